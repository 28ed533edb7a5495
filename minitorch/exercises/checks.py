"""Checking a student's gradient of one op: against finite differences, first and second order,
and against minitorch's own gradient; each failure named with a hint.

For each case of the exercise (catalogue.py), on float64 inputs:
  1. the op runs once on a private tape; its backward function is called with a
     random incoming gradient v, once with the student's gradient in the op
     table's row and once with minitorch's: what the student returns must be
     Tensors of the inputs' shapes and dtypes, equal to the finite-difference
     vector-Jacobian product  d<v, op(x)>/dx  and to minitorch's;
  2. second order, with the student's gradient in the row: the gradient is
     taken with create_graph=True; it must be connected to the tape (not raw
     numpy), and the derivatives of  <w, gradient>  with respect to x and v must
     match finite differences.
"""
import contextlib
import dataclasses
import re
import traceback

import numpy as np

import minitorch as mt
from minitorch.engine.backprop import broadcast_axes, match_input
from minitorch.engine.registry import OPS

EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3

TODO, PASS, FAIL = "TODO", "PASS", "FAIL"


@dataclasses.dataclass
class Verdict:
    """PASS, FAIL or TODO (not written yet), with what to tell the student."""

    status: str
    message: str


@contextlib.contextmanager
def gradients_in_table(functions):
    """For the block: OPS[op].grad = function for each {op name: function}; the table's own come back after.

    >>> from minitorch.exercises.checks import gradients_in_table
    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> with gradients_in_table({"Exp": lambda op, grad: grad * 0}):
    ...     mt.exp(x).sum().backward()
    >>> x.grad
    tensor([0., 0.])
    """
    saved = {name: OPS[name].grad for name in functions}
    try:
        for name, function in functions.items():
            OPS[name].grad = function
        yield
    finally:
        for name, function in saved.items():
            OPS[name].grad = function


class CheckFailed(Exception):
    """A verdict reached inside a check."""

    def __init__(self, verdict):
        super().__init__(verdict.message)
        self.verdict = verdict


def _fail(message):
    return CheckFailed(Verdict(FAIL, message))


_UNKEPT = re.compile(r"the gradient of (\w+) reads op\.(inputs|outputs), but this op keeps")
_KEPT = {  # (keeps its inputs, keeps its outputs): what to read instead
    (True, False): "this op keeps its inputs: use op.inputs",
    (False, True): "this op keeps its output: use op.outputs[0]",
    (False, False): "this op keeps nothing: its gradient needs no values, only grad and op.input_shapes",
    (True, True): "use op.inputs and op.outputs",
}


def raised(error, path, function):
    """A Verdict for an exception from the student's code: TODO for NotImplementedError, else FAIL with where."""
    if isinstance(error, NotImplementedError):
        what = str(error) or function
        return Verdict(TODO, f"not written yet ({what} raises NotImplementedError)")
    frames = [f for f in traceback.extract_tb(error.__traceback__) if path is not None and f.filename == str(path)]
    where = f" ({path.name}, line {frames[-1].lineno})" if frames else ""
    unkept = _UNKEPT.match(str(error))
    if unkept:  # the engine says it in op-table words; say what the student can use instead
        op, read = unkept.groups()
        kept = _KEPT[OPS[op].needs_inputs, OPS[op].needs_outputs]
        return Verdict(FAIL, f"read op.{read}, which {op} does not keep: {kept}{where}")
    hint = ""
    if "numpy() on Tensor that requires grad" in str(error):
        hint = ("; a second derivative runs your gradient on tensors that require grad: numpy cannot follow "
                "them, write it with minitorch ops")
    if isinstance(error, SystemExit):
        hint = "; a gradient must return its result, not end the program"
    return Verdict(FAIL, f"raised {type(error).__name__}: {error}{where}{hint}")


def check_op(exercise, function, path=None):
    """The Verdict on `function` as the gradient of `exercise.op`."""
    record = _SideGradientRecorder(function)
    try:
        for number, case in enumerate(exercise.cases):
            _first_order(exercise, case, record, np.random.default_rng(number))
        for number, case in enumerate(exercise.cases):
            _check_second_order(exercise, case, record, np.random.default_rng(100 + number))
    except CheckFailed as failure:
        return failure.verdict
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the student's function raised, or called sys.exit: a FAIL, not the end of check
        return raised(error, path, exercise.function)
    cases = len(exercise.cases)
    return Verdict(PASS, f"agrees with finite differences (first and second order) and with minitorch's gradient "
                         f"({cases} case{'s' if cases > 1 else ''})")


class _SideGradientRecorder:
    """The student's function, noting whether a side output's gradient ever arrived (second order)."""

    def __init__(self, function):
        self.function = function
        self.side_gradients = False

    def __call__(self, op, *grads):
        if any(g is not None for g in grads[1:]):
            self.side_gradients = True
        return self.function(op, *grads)


def _tensors(arrays, requires_grad=False):
    return [mt.tensor(a, dtype=mt.float64 if a.dtype.kind == "f" else mt.int64,
                      requires_grad=requires_grad and a.dtype.kind == "f") for a in arrays]


def _numeric_vjp(case, arrays, v):
    """d<v, op(x)>/dx by central differences, for each float input (None for the others)."""
    def value(perturbed):
        with mt.no_grad():
            return float(np.sum(v * np.asarray(case.run(*_tensors(perturbed)))))

    result = []
    for i, array in enumerate(arrays):
        if array.dtype.kind != "f":
            result.append(None)
            continue
        grad = np.zeros_like(array)
        for index in np.ndindex(*array.shape):
            plus, minus = [a.copy() for a in arrays], [a.copy() for a in arrays]
            plus[i][index] += EPS
            minus[i][index] -= EPS
            grad[index] = (value(plus) - value(minus)) / (2 * EPS)
        result.append(grad)
    return result


def _recorded_entry(exercise, case, arrays):
    """The tape entry of the op, run once on watched inputs."""
    tensors = _tensors(arrays)
    with mt.GradientTape(persistent=True) as tape:
        for t in tensors:
            if t.is_floating_point():
                tape.watch(t)
        output = case.run(*tensors)
    (entry,) = [e for e in tape._tape.live_entries() if e.op_type == exercise.op]
    return entry, tensors, output  # the output keeps the entry on the tape


def _first_order(exercise, case, record, rng):
    arrays = case.arrays(rng)
    entry, tensors, _output = _recorded_entry(exercise, case, arrays)
    accepts_none = OPS[exercise.op].accepts_none
    v = rng.standard_normal(entry.output_info[0][0])
    out_grads = [mt.tensor(v)] + [None if i in accepts_none else mt.zeros(*shape, dtype=mt.float64)
                                  for i, (shape, _) in enumerate(entry.output_info[1:], 1)]
    needs = tuple(t.is_floating_point() for t in tensors)
    with gradients_in_table({exercise.op: record}):
        try:
            yours = entry.backward_function(needs, list(out_grads))
        except RuntimeError as error:
            if "returned" in str(error) and "gradients for" in str(error):
                raise _fail(f"{error} ({case.label}): return one gradient per input, in a tuple") from None
            raise
    builtin = entry.backward_function(needs, list(out_grads))
    expected = _numeric_vjp(case, arrays, v)
    for i, (mine, theirs, numeric) in enumerate(zip(yours, builtin, expected)):
        if numeric is None:
            continue
        where = f"input {i} of {case.label}"
        if mine is None:
            raise _fail(f"returned None for {where}, which needs a gradient")
        if not isinstance(mine, mt.Tensor):
            raise _fail(f"returned a {type(mine).__name__} for {where}: return minitorch Tensors, made with minitorch ops")
        _compare_first(np.asarray(mine.detach()), numeric, where, mine.dtype)
        reference = np.asarray(match_input(theirs, numeric.shape, numeric.dtype, exercise.op).detach())
        if not np.allclose(np.asarray(mine.detach()), reference, rtol=RTOL, atol=ATOL):
            raise _fail(f"agrees with finite differences but not with minitorch's gradient for {where}")


def _compare_first(mine, numeric, where, dtype):
    if mine.shape != numeric.shape:
        axes = broadcast_axes(mine.shape, numeric.shape)
        if axes:
            raise _fail(f"forgot to un-broadcast: the gradient of {where} has shape {mine.shape}, the input "
                        f"{numeric.shape}: sum over axes {axes} (and reshape)")
        raise _fail(f"wrong shape: the gradient of {where} has shape {mine.shape}, the input {numeric.shape}")
    if dtype != mt.float64:
        raise _fail(f"the gradient of {where} is {dtype}, the input float64: make constants with dtype=grad.dtype")
    explain_difference(mine, numeric, where)


def explain_difference(mine, expected, where, reference="finite differences give"):
    """Raises a FAIL naming how `mine` differs from `expected` (sign, a factor, where), if it does."""
    if np.allclose(mine, expected, rtol=RTOL, atol=ATOL):
        return
    if np.any(np.abs(expected) > ATOL) and np.allclose(mine, -expected, rtol=RTOL, atol=ATOL):
        raise _fail(f"wrong sign: the gradient of {where} is minus the right one")
    scale = float(np.sum(mine * expected) / max(np.sum(expected * expected), 1e-300))
    if abs(scale) > 1e-6 and np.allclose(mine, scale * expected, rtol=RTOL, atol=ATOL):
        raise _fail(f"off by a factor: the gradient of {where} is {scale:.4g} times the right one")
    worst = np.unravel_index(np.argmax(np.abs(mine - expected)), expected.shape)
    raise _fail(f"wrong values: the gradient of {where} at index {tuple(int(i) for i in worst)} is "
                f"{mine[worst]:.6g}, {reference} {expected[worst]:.6g}")


def _check_second_order(exercise, case, record, rng):
    arrays = case.arrays(rng)
    float_inputs = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    with mt.no_grad():
        out_shape = tuple(case.run(*_tensors(arrays)).shape)
    v_array = rng.standard_normal(out_shape)
    weights = [rng.standard_normal(arrays[i].shape) for i in float_inputs]

    def second(all_arrays, v_values, create_graph):
        tensors = _tensors(all_arrays, requires_grad=True)
        v = mt.tensor(v_values, requires_grad=create_graph)
        with gradients_in_table({exercise.op: record}):
            grads = mt.autograd.grad(case.run(*tensors), [tensors[i] for i in float_inputs], grad_outputs=v,
                                     create_graph=create_graph, allow_unused=True)
            total = sum(((g if g is not None else 0 * tensors[i]) * mt.tensor(w)).sum()
                        for i, g, w in zip(float_inputs, grads, weights))
        return total, grads, tensors, v

    total, grads, tensors, v = second(arrays, v_array, create_graph=True)
    for i, g in zip(float_inputs, grads):
        if g is not None and not g.requires_grad:
            raise _fail(f"not differentiable twice: the gradient of input {i} of {case.label} is not on the tape, so "
                        "no tape saw how it was computed (raw numpy, .numpy(), np.asarray, .item(), float() or "
                        ".detach()); write it with minitorch ops")
    with gradients_in_table({exercise.op: record}):
        analytic = mt.autograd.grad(total, [tensors[i] for i in float_inputs] + [v], allow_unused=True)
    points = {i: arrays[i] for i in float_inputs}
    for k, (name, base) in enumerate(list(points.items()) + [("v", v_array)]):
        numeric = np.zeros_like(base)
        for index in np.ndindex(*base.shape):
            values = []
            for step in (EPS, -EPS):
                moved = [a.copy() for a in arrays]
                v_moved = v_array.copy()
                (v_moved if name == "v" else moved[name])[index] += step
                values.append(float(second(moved, v_moved, create_graph=False)[0]))
            numeric[index] = (values[0] - values[1]) / (2 * EPS)
        got = np.zeros_like(base) if analytic[k] is None else np.asarray(analytic[k].detach())
        if not np.allclose(got, numeric, rtol=RTOL, atol=ATOL):
            wrt = "the incoming gradient" if name == "v" else f"input {name}"
            hint = ""
            if record.side_gradients:
                hint = ("; in a second-order pass your function also gets gradients for the op's other outputs "
                        "(they are not None): recompute what you read from op.outputs[1:] from the inputs instead")
            raise _fail(f"second derivatives wrong (with respect to {wrt}, {case.label}): first order is right, but "
                        f"the gradient's own gradient is not{hint}")
