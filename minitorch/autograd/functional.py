"""mt.autograd.functional: vjp, jvp, hvp, vhp, jacobian, hessian of a function.

PyTorch's `torch.autograd.functional`, with its argument and return
conventions: `inputs` is a Tensor or a tuple of Tensors and the results
mirror it (a tuple of tuples for a Jacobian of tuple outputs by tuple
inputs); `create_graph=True` keeps the results differentiable; `strict=True`
raises when an output does not depend on an input.

How each is computed, here, with the engine's two modes:
  vjp       one reverse pass (a private GradientTape);
  jvp       one forward pass with a ForwardAccumulator (no double-VJP trick);
  hvp       forward-over-reverse: the accumulator watches the inputs with `v`
            while a tape computes the gradient (one forward, one backward);
  vhp       reverse-over-reverse (nested tapes);
  jacobian  "reverse-mode": the function once on a persistent tape, then one
            reverse pass per output element (GradientTape.jacobian);
            "forward-mode": one accumulated forward pass per input element;
            "auto" (a minitorch extension) picks forward mode for tall
            Jacobians (fewer input than output elements), reverse otherwise.
            `vectorize` is accepted and ignored: gradients here are general
            minitorch ops, which cannot all take a batch of cotangents;
  hessian   the Jacobian of the gradient (outer strategy as PyTorch's
            `outer_jacobian_strategy`; "forward-mode" is forward-over-reverse).
"""
import numpy as np

from ..creation import ones_like, zeros, zeros_like
from ..engine import state
from ..engine.backprop import compute_gradient
from ..engine.forwardprop import ForwardAccumulator
from ..ops.array_ops import stack, stop_gradient
from ..tensor import Tensor
from .gradient_tape import GradientTape


def _as_tuple(value, arg_name, fn_name):
    """(was it a tuple?, the value as a tuple of Tensors), with PyTorch's message for anything else."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                    f"value at index {i} has type {type(v).__name__}."
                )
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but the given {arg_name} has type {type(v).__name__}.")
    return is_tuple, values


def _tuple_postprocess(values, is_tuple):
    """Undo _as_tuple: a 1-tuple becomes its element unless the user gave a tuple."""
    if isinstance(is_tuple, tuple):  # (outputs were a tuple, inputs were a tuple): a tuple of tuples
        outer, inner = is_tuple
        if not inner:
            values = tuple(v[0] for v in values)
        if not outer:
            values = values[0]
        return values
    return values if is_tuple else values[0]


def _grad_preprocess(inputs, create_graph):
    """The tensors to differentiate at: the inputs themselves when the graph must reach them, else fresh copies."""
    if create_graph:
        return tuple(inputs)
    return tuple(stop_gradient(t) for t in inputs)


def _grad_postprocess(tensors, create_graph):
    if create_graph:
        return tuple(tensors)
    return tuple(None if t is None else (t.detach() if t._requires_grad else t) for t in tensors)


def _recording(create_graph):
    """Outer tapes record the derivative computation only when a graph is asked for."""
    return state.enable_grad() if create_graph else state.stop_recording()


def _validate_v(v, others, other_name, fn_name):
    _, v = _as_tuple(v, "v", fn_name)
    if len(v) != len(others):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(others)} but got {len(v)}.")
    for i, (vi, oi) in enumerate(zip(v, others)):
        if vi.shape != oi.shape:
            raise RuntimeError(
                f"Entry {i} in v has invalid size: should be {tuple(oi.shape)} but got {tuple(vi.shape)}."
            )
    return v


def _fill_in_zeros(results, refs, strict, what):
    filled = []
    for i, (r, ref) in enumerate(zip(results, refs)):
        if r is None:
            if strict:
                raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not allowed in strict mode.")
            r = zeros_like(ref)
        filled.append(r)
    return tuple(filled)


def _gradients_through(tape, targets, sources, output_gradients=None):
    """The reverse pass of a private tape, seen by every other active tape (the
    autograd tape included, unlike GradientTape.gradient): that is create_graph."""
    grads = compute_gradient(tape._tape, list(targets), list(sources), output_gradients, release=True)
    tape._tape.clear()
    return grads


def _run_on_tape(func, inputs, fn_name, persistent=False):
    tape = GradientTape(persistent=persistent, watch_accessed_variables=False)
    with tape:
        tape.watch(list(inputs))
        outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    return tape, is_outputs_tuple, outputs


# ----- vector products -----

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): one reverse pass.

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    >>> mt.autograd.functional.vjp(lambda x: x * x, x, mt.ones(2, dtype=mt.float64))[1]
    tensor([2., 4.], dtype=minitorch.float64)
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _grad_preprocess(inputs, create_graph)
    tape, is_outputs_tuple, outputs = _run_on_tape(func, inputs, "vjp")
    if v is None:
        if len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor with a single element.")
        v = (ones_like(outputs[0]),)
    else:
        v = _validate_v(v, outputs, "outputs", "vjp")
    with _recording(create_graph):
        grads = _gradients_through(tape, outputs, inputs, list(v))
    grads = _fill_in_zeros(grads, inputs, strict, "output")
    return (
        _tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(grads, create_graph), is_inputs_tuple),
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): one forward pass carrying tangents (ForwardAccumulator).

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    >>> mt.autograd.functional.jvp(lambda x: x * x, x, mt.ones(2, dtype=mt.float64))[1]
    tensor([2., 4.], dtype=minitorch.float64)
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs, v = _tangents(inputs, v, create_graph, "jvp")
    with ForwardAccumulator(list(inputs), list(v)) as acc:
        outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
    tangents = []
    for i, out in enumerate(outputs):
        tangent = acc.jvp(out)
        if tangent is None:
            if strict:
                raise RuntimeError(f"Output {i} of the user-provided function is independent of the inputs. This is not allowed in strict mode.")
            tangent = zeros_like(out)
        tangents.append(tangent)
    return (
        _tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(tangents, create_graph), is_outputs_tuple),
    )


def _v_over_inputs(v, inputs, fn_name):
    """The vector v for jvp, hvp and vhp: as given, or ones for a single one-element input, as PyTorch."""
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        return (ones_like(inputs[0]),)
    return _validate_v(v, inputs, "inputs", fn_name)


def _tangents(inputs, v, create_graph, fn_name):
    """The inputs and the tangents v of a forward-mode product (jvp, hvp): v detached unless create_graph."""
    v = _v_over_inputs(v, inputs, fn_name)
    inputs = _grad_preprocess(inputs, create_graph)
    return inputs, v if create_graph else tuple(stop_gradient(t) for t in v)


def _scalar_output(outputs, is_outputs_tuple, fn_name):
    if is_outputs_tuple or len(outputs) != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    return outputs[0]


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func: forward-over-reverse.

    The accumulator carries `v` through the forward pass and through the
    reverse pass that the tape runs inside it, so the gradient's tangent is H v.

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    >>> f = lambda x: (x ** 3).sum()          # H = diag(6 x)
    >>> mt.autograd.functional.hvp(f, x, mt.ones(2, dtype=mt.float64))
    (tensor(9., dtype=minitorch.float64), tensor([ 6., 12.], dtype=minitorch.float64))
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
    inputs, v = _tangents(inputs, v, create_graph, "hvp")
    with ForwardAccumulator(list(inputs), list(v)) as acc:
        tape, is_outputs_tuple, outputs = _run_on_tape(func, inputs, "hvp")
        output = _scalar_output(outputs, is_outputs_tuple, "hvp")
        grads = _gradients_through(tape, [output], inputs)
    grads = _fill_in_zeros(grads, inputs, strict, "output")
    hv = _fill_in_zeros([acc.jvp(g) for g in grads], inputs, strict, "gradient")
    return _grad_postprocess([output], create_graph)[0], _tuple_postprocess(_grad_postprocess(hv, create_graph), is_inputs_tuple)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func: reverse-over-reverse (nested tapes).

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    >>> f = lambda x: (x ** 3).sum()          # H = diag(6 x)
    >>> mt.autograd.functional.vhp(f, x, mt.tensor([1.0, 0.0], dtype=mt.float64))[1]
    tensor([6., 0.], dtype=minitorch.float64)
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
    v = _v_over_inputs(v, inputs, "vhp")
    inputs = _grad_preprocess(inputs, create_graph)
    outer = GradientTape(watch_accessed_variables=False)
    with outer:
        outer.watch(list(inputs))
        tape, is_outputs_tuple, outputs = _run_on_tape(func, inputs, "vhp")
        output = _scalar_output(outputs, is_outputs_tuple, "vhp")
        grads = _fill_in_zeros(_gradients_through(tape, [output], inputs), inputs, strict, "output")
    with _recording(create_graph):
        vh = _gradients_through(outer, grads, inputs, list(v))
    vh = _fill_in_zeros(vh, inputs, strict, "gradient")
    return _grad_postprocess([output], create_graph)[0], _tuple_postprocess(_grad_postprocess(vh, create_graph), is_inputs_tuple)


# ----- Jacobians and Hessians -----

def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(inputs) / d inputs; for one output and one input a Tensor of shape output.shape + input.shape.

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    >>> mt.autograd.functional.jacobian(lambda x: x * x, x)
    tensor([[2., 0.],
            [0., 4.]], dtype=minitorch.float64)
    """
    if strategy not in ("reverse-mode", "forward-mode", "auto"):
        raise ValueError('Expected strategy to be either "forward-mode", "reverse-mode" or "auto".')
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _grad_preprocess(inputs, create_graph)
    if strategy == "reverse-mode" or strategy == "auto":
        tape, is_outputs_tuple, outputs = _run_on_tape(func, inputs, "jacobian", persistent=True)
        n_in, n_out = sum(t.numel() for t in inputs), sum(o.numel() for o in outputs)
        if strategy == "reverse-mode" or n_in >= n_out:
            with _recording(create_graph):
                rows = [tape.jacobian_seen_by_autograd(out, list(inputs)) for out in outputs]
        else:
            del tape  # a tall Jacobian: cheaper one forward pass per input element
            rows, outputs, is_outputs_tuple = _forward_jacobian(func, inputs, create_graph)
    else:
        rows, outputs, is_outputs_tuple = _forward_jacobian(func, inputs, create_graph)
    result = []
    for i, (out, row) in enumerate(zip(outputs, rows)):
        filled = []
        for j, (inp, block) in enumerate(zip(inputs, row)):
            if block is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. This is not allowed in strict mode.")
                block = zeros(tuple(out.shape) + tuple(inp.shape), dtype=out.dtype)
            filled.append(block)
        result.append(tuple(_grad_postprocess(filled, create_graph)))
    return _tuple_postprocess(tuple(result), (is_outputs_tuple, is_inputs_tuple))


def _forward_jacobian(func, inputs, create_graph):
    """One ForwardAccumulator pass per input element: column k of block (i, j) is J_ij e_k."""
    columns = None  # [output][input] -> list of tangents, one per input element
    outputs, is_outputs_tuple = None, False
    for j, inp in enumerate(inputs):
        for k in range(inp.numel()):
            basis = np.zeros(inp.numel(), inp._data.dtype)
            basis[k] = 1
            tangent = Tensor._make(basis.reshape(inp.shape))
            with ForwardAccumulator(inp, tangent) as acc:
                result = func(*inputs)
            is_outputs_tuple, result = _as_tuple(result, "outputs of the user-provided function", "jacobian")
            if columns is None:
                outputs = result
                columns = [[[] for _ in inputs] for _ in result]
            for i, out in enumerate(result):
                columns[i][j].append(acc.jvp(out))
    if columns is None:  # no input elements at all: run once for the outputs
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        columns = [[[] for _ in inputs] for _ in outputs]
    rows = []
    with _recording(create_graph):
        for i, out in enumerate(outputs):
            row = []
            for j, inp in enumerate(inputs):
                cols = columns[i][j]
                if all(c is None for c in cols):
                    row.append(None)
                    continue
                cols = [zeros_like(out) if c is None else c for c in cols]
                row.append(stack(cols, dim=-1).reshape(tuple(out.shape) + tuple(inp.shape)))
            rows.append(row)
    return rows, outputs, is_outputs_tuple


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """Second derivatives of a scalar func: the Jacobian of its gradient.

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    >>> mt.autograd.functional.hessian(lambda x: (x ** 3).sum(), x)
    tensor([[ 6.,  0.],
            [ 0., 12.]], dtype=minitorch.float64)
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_func(*inp):
        is_tuple, out = _as_tuple(func(*inp), "outputs of the user-provided function", "hessian")
        return _scalar_output(out, is_tuple, "hessian").reshape(())

    def gradient_func(*inp):
        return jacobian(scalar_func, inp, create_graph=True, strict=strict)

    result = jacobian(gradient_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))

