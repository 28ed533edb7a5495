"""mt.viz.explore: write the stepping page of a reverse pass; Jupyter shows a Graph as that page.

    explore(loss, "backprop.html")   replays the reverse pass from `loss` on a copy of its tape
                                     (autograd/replay.py) and writes the page (page.py)

The user's tensors are not changed and no `.grad` is written; the page is one
file with nothing to load (inline SVG, CSS and JavaScript), that opens from file://.
"""
import html
from pathlib import Path

from ..autograd import graph as graph_module
from ..autograd.graph import Graph
from ..autograd.replay import replay
from .page import page


def explore(target, path="backprop.html", names=None, sources=None, group_by=None, title=None):
    """Writes to `path` a page that steps through the reverse pass from `target`, one recorded op at a time; returns `path`.

    `target` is a Tensor holding one number (a loss) whose graph is still recorded (call
    explore before backward(), or after backward(retain_graph=True)), or a Graph captured with
    mt.viz.capture(keep_values=True). The page shows the forward graph (each tensor's name, shape
    and value, each op's name), and at each step the op whose backward function runs, its
    gradient formula, the gradient that arrived and what it sends to each input; at the end every
    leaf shows its gradient, the numbers backward() would give. `names` {name: Tensor} names
    tensors; `sources` (tensors) asks for their gradients instead of every leaf's, as
    autograd.grad does; `group_by=model` boxes each nn.Module's ops and folds the innermost ones
    (a click unfolds them).

    >>> import os, tempfile
    >>> a, b = mt.tensor(2.0, requires_grad=True), mt.tensor(-3.0, requires_grad=True)
    >>> path = mt.viz.explore(a * b + a, os.path.join(tempfile.mkdtemp(), "backprop.html"), names={"a": a, "b": b})
    >>> 'data-tensor="a"' in open(path).read(), a.grad
    (True, None)
    """
    if isinstance(target, Graph):
        graph = target
        if group_by is not None:
            graph_module.group_by_module(graph, group_by)
    else:
        graph = replay(target, names, sources, group_by)
    text = page(graph, names, title or "Backpropagation, step by step")
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise OSError(f"explore: cannot write {path}: {error.strerror}") from None
    return path


def inline(graph, height=640):
    """The page of `graph` in an iframe of its own (Jupyter's rich display of a Graph: Graph._repr_html_)."""
    return (f'<iframe srcdoc="{html.escape(page(graph), quote=True)}" style="width:100%;height:{height}px;'
            f'border:1px solid #cbd5e0" title="{html.escape(graph.title)}"></iframe>')


graph_module.html_view = inline  # graph.py sits a floor below: this is how a Graph finds its page
