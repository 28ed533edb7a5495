"""`check DIR --html PATH`: the stepping page (mt.viz.explore) of a small network's reverse pass, on the student's gradients.

The network (network()) runs every op of the op exercises once: conv2d, batch
norm, relu, max-pool, reshape, transpose, matmul, add, tanh, mul, exp, sum,
log, mean and softmax cross-entropy, on float64. Its reverse pass is replayed
twice on the same recorded tape (autograd/replay.py): once with the student's
gradient functions in the op table (those written: not the ones still raising
NotImplementedError, and only the exercises asked for), once with
minitorch's. The page shows the student's, and marks the first step where they
differ from minitorch's, showing minitorch's gradients there too. A function
that raises, or returns what the tape cannot use, gets minitorch's gradient in
its place for that call, so that the pass goes on; its step says so. The
reverse pass itself is minitorch's (tracing does not run inside a student's
compute_gradient).
"""
import numpy as np

import minitorch as mt
from minitorch.autograd.replay import replay
from minitorch.engine.registry import OPS
from minitorch.nn import functional as F
from minitorch.ops.batch_norm_ops import fused_batch_norm
from minitorch.ops.loss_ops import sparse_softmax_cross_entropy_with_logits
from minitorch.viz.page import marked_step, page

from .catalogue import BY_NAME
from .checks import TODO, gradients_in_table


def network(seed=0):
    """(loss, names): a conv-batchnorm-relu-pool-linear-tanh network's loss, recorded, with its tensors' names."""
    rng = np.random.default_rng(seed)

    def leaf(*shape):
        return mt.tensor(rng.standard_normal(shape) * 0.5, dtype=mt.float64, requires_grad=True)

    images, labels = mt.tensor(rng.standard_normal((2, 1, 6, 6))), mt.tensor([1, 2])
    kernel, offset, weight, bias, gain = leaf(2, 1, 3, 3), leaf(2), leaf(3, 18), leaf(3), leaf(3)
    scale = mt.tensor(rng.uniform(0.5, 1.5, 2), requires_grad=True)
    h = fused_batch_norm(F.conv2d(images, kernel, padding=1), scale, offset)[0]
    h = F.max_pool2d(mt.relu(h), 2).reshape(2, 18)
    logits = mt.tanh(h @ weight.transpose(0, 1) + bias) * gain
    loss = sparse_softmax_cross_entropy_with_logits(logits, labels)[0].mean() + mt.log(mt.exp(bias).sum()) * 0.1
    names = {"images": images, "labels": labels, "kernel": kernel, "scale": scale, "offset": offset, "weight": weight,
             "bias": bias, "gain": gain, "logits": logits, "loss": loss}
    return loss, names


def _usable(grads, op):
    """Raises ValueError when what a gradient function returned cannot go on the tape (not Tensors, wrong shapes)."""
    grads = grads if isinstance(grads, (tuple, list)) else (grads,)
    if len(grads) != len(op.input_info):
        raise ValueError(f"returned {len(grads)} gradients for {len(op.input_info)} inputs")
    for i, (grad, (shape, _)) in enumerate(zip(grads, op.input_info)):
        if grad is None:
            continue
        if not isinstance(grad, mt.Tensor):
            raise ValueError(f"returned a {type(grad).__name__} for input {i}, not a Tensor")
        try:
            np.broadcast_shapes(tuple(grad.shape), tuple(shape))
        except ValueError:
            raise ValueError(f"returned shape {tuple(grad.shape)} for input {i} of shape {tuple(shape)}") from None


class _Counted:
    """Every gradient function of the pass, counted (the n-th call is step n): the student's guarded by minitorch's."""

    def __init__(self):
        self.calls = 0
        self.notes = {}

    def wrap(self, op_name, function, builtin):
        def gradient(op, *grads):
            self.calls += 1
            if function is builtin:
                return builtin(op, *grads)
            try:
                result = function(op, *grads)
                _usable(result, op)
                return result
            except Exception as error:
                self.notes[self.calls] = (f"your {getattr(function, '__name__', op_name)} {_first_line(error)}; "
                                          f"minitorch's gradient was used in its place")
                return builtin(op, *grads)
        return gradient


def _first_line(error):
    text = str(error).splitlines()[0] if str(error) else ""
    return text if isinstance(error, ValueError) and text.startswith("returned") else f"raised {type(error).__name__}: {text}"


def write(functions, verdicts, path):
    """Writes the page to `path` for the student's `functions` (a module or dict) with their `verdicts`; returns
    the first step where they differ from minitorch's (None when none does)."""
    lookup = functions if isinstance(functions, dict) else vars(functions)
    yours = {BY_NAME[name].op: lookup[BY_NAME[name].function] for name, verdict in verdicts.items()
             if BY_NAME[name].op is not None and verdict.status != TODO}
    loss, names = network()
    counted = _Counted()
    op_types = {op.op_type for op in replay(loss).ops}
    table = {op: counted.wrap(op, yours.get(op, OPS[op].grad), OPS[op].grad) for op in op_types}
    with gradients_in_table(table):
        graph = replay(loss, names)
    reference = replay(loss, names)
    text = page(graph, names, title="Your gradients, step by step", reference=reference, notes=counted.notes)
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return marked_step(graph, reference, counted.notes)
