"""Unpack: a tensor cut into its slices along an axis, in one op (TensorFlow's "Unpack", tf.unstack).

The recurrent layers walk a sequence step by step. Taking step t as x[t]
(a StridedSlice) costs, in the reverse pass, a zero tensor of x's full
size per step, added up: quadratic in the sequence length. Unpack's
gradient is one Pack of the steps' gradients instead. Its outputs are
copies, not views, so writing into a step never writes into x.
"""
import numpy as np

from ..engine.execute import execute
from .rows import linear, op


def _unpack(x, axis):
    return tuple(np.moveaxis(x, axis, 0).copy())


def _unpack_grad(op, *grads):
    """d unstack(x) = stack(dy_0, ..., dy_{n-1}) along the axis (zeros for the slices that got none)."""
    return execute("Pack", grads, {"axis": op.attrs["axis"]})


op("Unpack", _unpack, _unpack_grad, needs="nothing", jvp=linear)


def unpack(x, axis=0):
    """The slices of `x` along `axis`, that axis removed, as a tuple of new tensors. Runs the "Unpack" op.

    >>> from minitorch.ops.sequence_ops import unpack
    >>> unpack(mt.tensor([[1, 2], [3, 4]]), axis=1)
    (tensor([1, 3]), tensor([2, 4]))
    """
    axis = axis % x.ndim
    return execute("Unpack", (x,), {"axis": axis})
