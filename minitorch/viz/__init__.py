"""Looking at what the engine recorded: tape listings, pictures (PNG, with matplotlib alone) and DOT text.

The tapes keep ids, shapes and backward functions (engine/tape.py);
autograd/graph.py turns them into a Graph, and this package shows it:

    listing(x)          one line per recorded op (inputs -> outputs, what the backward
                        function keeps), then each tensor's value and gradient
    picture(x)          what a drawing shows, as data (boxes.py): one box per tensor
                        (name, shape, value and signed gradient) and per op (name, what
                        it keeps, its side outputs folded in), edges, modules, legend
    draw(x, path)       the picture as a PNG (drawing.py, laid out by layout.py)
    to_dot(x)           the picture as Graphviz DOT text
    capture()           a `with` block that records the graph as it is built and,
                        during backward passes, every gradient and the order in which
                        the backward functions ran
    explore(x, path)    a self-contained HTML page that steps through the reverse pass
                        from x, one backward function at a time (explore.py, page.py,
                        page.js); in Jupyter a Graph shows itself as that page

`x` is a Tensor (the ops upstream of it on the autograd tape, or on an active
GradientTape), a GradientTape or a Tape (all its entries), or a Graph made by
capture(). After `backward()` a Tensor's graph is still drawn (grad_fn keeps
its shape), but the tape freed the values it saved: only a captured pass
shows every value and gradient. Tensors are named as the trace names them.
`group_by=model` (draw, picture, to_dot, capture) boxes each nn.Module's ops.
"""
from ..autograd import graph as graph_module
from ..autograd.graph import Graph, capture
from .drawing import draw, to_dot
from .boxes import Picture, as_graph, picture
from .explore import explore

__all__ = ["Graph", "Picture", "capture", "draw", "explore", "graph_of", "listing", "picture", "to_dot"]


def listing(obj, names=None):
    return graph_module.listing(as_graph(obj, names), names)


listing.__doc__ = graph_module.listing.__doc__


def graph_of(tensor, names=None):
    """The Graph upstream of `tensor` as the tapes hold it now (what draw(tensor) draws).

    >>> x = mt.tensor([1.0, -1.0], requires_grad=True)
    >>> graph = mt.viz.graph_of((x * 2).sum())
    >>> [op.op_type for op in graph.ops], graph.tensors[x._id].value.text()
    (['Mul', 'Sum'], '[1, -1]')
    """
    return graph_module.from_tensor(tensor, names)
