"""Helpers for writing forward-mode rules (JVPs), shared by the op files.

A rule receives the op's input and output Tensors, its attrs and one tangent
per input (None where the input has none, i.e. a zero tangent) and returns
the output tangent(s). Rules are written with minitorch ops, so tangents are
differentiable again (reverse-over-forward, forward-over-forward). Ops whose
gradient row says `jvp=TRANSPOSE` have no rule: the ForwardAccumulator
transposes their gradient instead (engine/forwardprop.py).
"""
import numpy as np

from ..engine.execute import execute
from ..tensor import Tensor


def linear(op_name):
    """The rule of an op that is linear in its one input: the tangent goes through the op itself."""

    def rule(inputs, outputs, attrs, tangents):
        return execute(op_name, (tangents[0],), attrs)

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is linear: its tangent is {op_name} of the input's tangent."
    return rule


def linear_in_all(op_name):
    """The rule of an op that is linear in all its inputs together (missing tangents are zeros)."""

    def rule(inputs, outputs, attrs, tangents):
        return execute(op_name, zeros_for_missing(inputs, tangents), attrs)

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is linear in all inputs (missing tangents are zeros)."
    return rule


def fit(tangent, output):
    """A tangent of a broadcast input, broadcast to the output's shape and cast to its dtype."""
    if tangent._data.shape != output._data.shape:
        tangent = execute("BroadcastTo", (tangent,), {"shape": output._data.shape})
    if tangent._data.dtype != output._data.dtype:
        tangent = execute("Cast", (tangent,), {"dtype": output._data.dtype})
    return tangent


def zeros_for_missing(inputs, tangents):
    return tuple(Tensor._make(np.zeros_like(x._data)) if t is None else t for x, t in zip(inputs, tangents))


def sum_terms(terms, output):
    """The sum of the terms that are not None, fitted to the output."""
    present = [t for t in terms if t is not None]
    total = present[0] if len(present) == 1 else present[0] + present[1]
    return fit(total, output)
