"""ForwardAccumulator: forward-mode autodiff (Jacobian-vector products).

Mirrors TensorFlow's `ForwardAccumulator` (tensorflow/c/eager/tape.h) and
tensorflow/python/eager/forwardprop.py. An accumulator joins the same `record_gradient` path as the
tapes; where a tape *records* an op for later, an accumulator runs the op's
forward derivative at once and keeps the result, the op outputs' tangents,
by tensor id.

    x = mt.tensor([1.0, 2.0])
    with mt.ForwardAccumulator(x, mt.tensor([1.0, 0.0])) as acc:
        y = x * x
    acc.jvp(y)            # tensor([2., 0.]) = (dy/dx) @ [1, 0]

Each op's tangent comes from its row's JVP rule (written next to its kernel
in minitorch/ops/) when it has one; otherwise from tape.h's
`ForwardpropFromTape`: run the op's backward
function on a dummy output gradient while a private tape records it, then
differentiate that (linear) function with respect to the dummy, with the
input tangents as output gradients. The transpose of a VJP is the JVP.

The call-state stack keeps an accumulator out of its own work: while it
computes a tangent (`accumulating`), the ops it runs are not accumulated by
itself, nor by accumulators entered after it; accumulators entered before it,
and every tape, do see them, which is how forward-over-forward and
reverse-over-forward derivatives arise. The stack is per thread: an
accumulator busy on one thread does not hide other threads' ops from it.
"""
import threading

import numpy as np

from ..nest import flatten, map_structure
from ..tensor import Tensor
from .state import active_accumulators, tape_lock, track
from .backprop import compute_gradient, match_input
from .execute import execute
from .registry import OPS, TRANSPOSE
from .tape import Tape


class _CallStates(threading.local):
    """One accumulator's call-state stack on each thread (TensorFlow keeps the accumulator set per thread)."""

    def __init__(self):
        self.stack = [_CallState(None, False)]


class _CallState:
    """One level of tape.h's `AccumulatorCallState` stack."""

    __slots__ = ("backward_tape", "accumulating")

    def __init__(self, backward_tape, accumulating):
        self.backward_tape = backward_tape  # ops are forwarded here while a backward function runs
        self.accumulating = accumulating  # True while this accumulator computes tangents


class ForwardAccumulator:
    """Computes Jacobian-vector products of everything computed from `primals`.

    `primals` is a Tensor or a (nested) list/tuple of Tensors; `tangents`
    has the same structure and shapes. Inside the `with` block every op that
    reads a watched tensor pushes its tangent forward; `acc.jvp(t)` fetches
    the tangent of `t` (None, or zeros with `unconnected_gradients="zero"`,
    when `t` does not depend on the primals).

    >>> x = mt.tensor(2.0, dtype=mt.float64)
    >>> with mt.ForwardAccumulator(x, mt.tensor(1.0, dtype=mt.float64)) as acc:
    ...     y = x ** 3
    >>> acc.jvp(y)        # 3 x^2
    tensor(12., dtype=minitorch.float64)
    """

    def __init__(self, primals, tangents):
        self._jvps = {}  # tensor id -> tangent Tensor
        self._call_states = _CallStates()
        self._recording = False
        self._watch(primals, tangents)

    # ----- the context -----

    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        with tape_lock:
            active_accumulators.append(self)
        self._recording = True
        return self

    def __exit__(self, *exc):
        if self._recording:
            with tape_lock:
                if self in active_accumulators:
                    active_accumulators.remove(self)
            self._recording = False
        return False

    def _watch(self, primals, tangents):
        """Watches each primal with its tangent; watching a tensor twice adds the tangents (tape.h: Watch)."""
        flat_primals, flat_tangents = flatten(primals), flatten(tangents)
        if len(flat_primals) != len(flat_tangents):
            raise ValueError(
                f"ForwardAccumulator: got {len(flat_primals)} primals but {len(flat_tangents)} tangents; "
                "primals and tangents must have the same structure"
            )
        for primal, tangent in zip(flat_primals, flat_tangents):
            if not isinstance(primal, Tensor):
                raise TypeError(f"ForwardAccumulator: primals must be Tensors, got {type(primal).__name__}")
            if primal._data.dtype.kind != "f":
                raise ValueError(f"ForwardAccumulator: a watched primal must be floating point, got {primal.dtype}")
            if not isinstance(tangent, Tensor):
                tangent = Tensor(tangent, dtype=primal.dtype)
            if tangent.shape != primal.shape:
                raise ValueError(
                    f"ForwardAccumulator: tangent of shape {tuple(tangent.shape)} does not match its primal's shape {tuple(primal.shape)}"
                )
            if tangent._data.dtype != primal._data.dtype:
                tangent = execute("Cast", (tangent,), {"dtype": primal._data.dtype})
            existing = self._jvps.get(primal._id)
            self._jvps[primal._id] = tangent if existing is None else existing + tangent
            track(primal)  # its death must release the tangent

    def jvp(self, primals, unconnected_gradients="none"):
        """The tangent of each tensor in `primals` (same structure): J(primals of the accumulator) @ tangents.

        >>> x = mt.tensor([1.0, 2.0])
        >>> with mt.ForwardAccumulator(x, mt.tensor([1.0, 0.0])) as acc:
        ...     y, z = x * x, x.sum()
        >>> acc.jvp([y, z])
        [tensor([2., 0.]), tensor(1.)]
        """
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")

        def fetch(tensor):
            if not isinstance(tensor, Tensor):
                raise TypeError(f"ForwardAccumulator.jvp expects Tensors, got {type(tensor).__name__}")
            tangent = self._jvps.get(tensor._id)
            if tangent is None and unconnected_gradients == "zero":
                tangent = Tensor._make(np.zeros_like(tensor._data))
            return tangent

        return map_structure(fetch, primals)

    # ----- the record_gradient hooks (tape.h: ShouldRecord, Accumulate, DeleteGradient) -----

    def should_record(self, inputs):
        state = self._call_states.stack[-1]
        if state.backward_tape is not None:
            return state.backward_tape.should_record(inputs)
        if state.accumulating:
            return False
        for outer in active_accumulators:
            if outer is self:
                break
            if outer._call_states.stack[-1].accumulating:
                return False  # an outer accumulator's own tangent work: invisible to inner ones (tape.h: BusyAccumulating)
        jvps = self._jvps
        for t in inputs:
            if t._id in jvps and t._data.dtype.kind == "f":
                return True
        return False

    def accumulate(self, op_name, inputs, attrs, results, entry):
        state = self._call_states.stack[-1]
        if state.backward_tape is not None:
            # An op run by our own backward function: the private tape needs it.
            state.backward_tape.record_operation(entry, inputs, results)
            return
        tangents = [self._jvps.get(t._id) if t._data.dtype.kind == "f" else None for t in inputs]
        if all(t is None for t in tangents):
            return
        self._call_states.stack.append(_CallState(None, True))
        try:
            rule = OPS[op_name].jvp
            if rule is not None and rule is not TRANSPOSE:
                out_tangents = rule(inputs, results, attrs, tangents)
                if isinstance(out_tangents, Tensor) or out_tangents is None:
                    out_tangents = (out_tangents,)
            else:
                out_tangents = self._forwardprop_from_tape(op_name, inputs, results, entry, tangents)
        finally:
            self._call_states.stack.pop()
        for output, tangent in zip(results, out_tangents):
            # An output that already has a tangent keeps the first one (tape.h: the recompute_grad case).
            if tangent is not None and output._data.dtype.kind == "f" and output._id not in self._jvps:
                self._jvps[output._id] = tangent
                track(output)

    def _forwardprop_from_tape(self, op_name, inputs, results, backward_function, tangents):
        """The JVP as the transpose of the op's VJP (tape.h: ForwardpropFromTape).

        g(aids) = backward_function(aids) is linear in the output-gradient
        aids; recording it on a private tape and running that tape backwards
        with the input tangents as output gradients gives J @ tangents.
        """
        backward_tape = Tape(persistent=False, watch_accessed_variables=False)
        state = self._call_states.stack[-1]
        state.backward_tape = backward_tape
        try:
            aids = [Tensor._make(np.ones_like(o._data)) for o in results]  # the value does not matter: g is linear in it
            for aid in aids:
                backward_tape.watch(aid)
            needs = tuple(t is not None for t in tangents)
            grads = backward_function(needs, aids)
            targets, output_gradients = [], []
            for grad, tangent, (shape, dtype) in zip(grads, tangents, backward_function.input_info):
                if grad is not None and tangent is not None:
                    # The tape's un-broadcasting and casting belong to the VJP, so record them too.
                    targets.append(match_input(grad, shape, dtype, op_name))
                    output_gradients.append(tangent)
        finally:
            state.backward_tape = None
        if not targets:
            return [None] * len(results)
        out_tangents = compute_gradient(backward_tape, targets, aids, output_gradients, release=True)
        backward_tape.clear()
        return out_tangents

    def delete_trace(self, tracker):
        """A tensor with a tangent died: drop its tangent (tape.h: DeleteGradient), unless the entry
        that made it lives and keeps its value for a backward function. A reverse pass run inside
        this accumulator rebuilds such a tensor under the same id, and needs its tangent
        (TensorFlow's tapes keep the tensor itself alive for that)."""
        if tracker.tensor_id in self._jvps:
            node = tracker.node() if tracker.node is not None else None
            if node is None or node._saved_outputs is None:
                del self._jvps[tracker.tensor_id]
