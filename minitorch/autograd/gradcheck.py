"""Finite-difference checks of gradients: the test oracle for every op.

`gradcheck` compares the Jacobian that the tapes compute with central
differences in float64; `gradgradcheck` does the same for the gradient
function itself (second order), as PyTorch's checks of the same names do.
"""
import numpy as np

from ..nest import flatten
from ..tensor import Tensor
from .backward import grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians differ (or inputs are not float64).

    >>> x = mt.tensor([1.0], requires_grad=True)
    >>> mt.autograd.gradcheck(mt.exp, (x,))
    Traceback (most recent call last):
        ...
    minitorch.autograd.gradcheck.GradcheckError: gradcheck: input 0 is minitorch.float32; finite differences need float64 inputs
    """
    pass


def _differentiable(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]


def _flat_outputs(func, inputs):
    return [o for o in flatten(func(*inputs)) if isinstance(o, Tensor) and o.is_floating_point()]


def numerical_jacobian(func, inputs, eps=1e-6):
    """Per differentiable input, a (input size, total output size) array of central differences.

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    >>> from minitorch.autograd.gradcheck import numerical_jacobian
    >>> numerical_jacobian(lambda x: x * x, (x,))[0].round(4)
    array([[2., 0.],
           [0., 4.]])
    """
    jacobians = []
    for i in _differentiable(inputs):
        flat = inputs[i]._data.reshape(-1)  # a view: perturbs the input in place
        columns = []
        for k in range(flat.size):
            original = flat[k]
            flat[k] = original + eps
            plus = _evaluate(func, inputs)
            flat[k] = original - eps
            minus = _evaluate(func, inputs)
            flat[k] = original
            columns.append((plus - minus) / (2 * eps))
        jacobians.append(np.array(columns).reshape(flat.size, -1))
    return jacobians


def _evaluate(func, inputs):
    outputs = _flat_outputs(func, inputs)
    return np.concatenate([o._data.reshape(-1) for o in outputs]) if outputs else np.zeros(0)


def analytical_jacobian(func, inputs):
    """The same Jacobians as `numerical_jacobian`, from the tapes: one reverse pass per output element.

    >>> x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    >>> from minitorch.autograd.gradcheck import analytical_jacobian
    >>> analytical_jacobian(lambda x: x * x, (x,))[0]
    array([[2., 0.],
           [0., 4.]])
    """
    wrt = [inputs[i] for i in _differentiable(inputs)]
    outputs = _flat_outputs(func, inputs)
    total = sum(o.numel() for o in outputs)
    jacobians = [np.zeros((t.numel(), total)) for t in wrt]
    column = 0
    for out in outputs:
        for k in range(out.numel()):
            seed = np.zeros(out.numel(), out._data.dtype)
            seed[k] = 1
            if out._requires_grad:
                grads = grad(out, wrt, grad_outputs=Tensor._make(seed.reshape(out.shape)),
                             retain_graph=True, allow_unused=True)
                for j, g in enumerate(grads):
                    if g is not None:
                        jacobians[j][:, column] = g._data.reshape(-1)
            column += 1
    return jacobians


def _refuse_unsupported_checks(name, **requested):
    """PyTorch's optional checks minitorch does not run: asking for one raises rather than passing unchecked."""
    asked = [flag for flag, value in requested.items() if value]
    if asked:
        raise NotImplementedError(f"{name}: {', '.join(asked)} not supported by minitorch (only the reverse-mode "
                                  "Jacobian is compared with finite differences)")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """True when func's gradients match finite differences for the inputs that require grad.

    PyTorch's keywords are taken; minitorch's passes are deterministic (nondet_tol has nothing to allow
    for), fast_mode is the full check, and the checks it does not run (batched, forward-mode, dtypes,
    masked) raise NotImplementedError when asked for.

    >>> x = mt.tensor([0.5, 1.5], dtype=mt.float64, requires_grad=True)
    >>> mt.autograd.gradcheck(mt.exp, (x,))
    True
    """
    _refuse_unsupported_checks("gradcheck", check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                               check_batched_forward_grad=check_batched_forward_grad,
                               check_forward_ad=check_forward_ad, masked=masked)
    if not check_backward_ad:
        return True
    inputs = flatten(inputs)
    for i in _differentiable(inputs):
        if inputs[i]._data.dtype != np.float64:
            raise GradcheckError(f"gradcheck: input {i} is {inputs[i].dtype}; finite differences need float64 inputs")
    numeric = numerical_jacobian(func, inputs, eps)
    analytic = analytical_jacobian(func, inputs)
    for j, (n, a) in enumerate(zip(numeric, analytic)):
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            if raise_exception:
                raise GradcheckError(
                    f"Jacobian mismatch for output 0 with respect to input {j},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
            return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False, masked=False, seed=0):
    """gradcheck of the function (inputs, v) -> v^T J(inputs): second derivatives against finite differences.
    (`seed` draws the random v; PyTorch's other keywords are taken as gradcheck takes them.)

    >>> x = mt.tensor([0.5, 1.5], dtype=mt.float64, requires_grad=True)
    >>> mt.autograd.gradgradcheck(mt.tanh, (x,))
    True
    """
    _refuse_unsupported_checks("gradgradcheck", gen_non_contig_grad_outputs=gen_non_contig_grad_outputs,
                               check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                               check_fwd_over_rev=check_fwd_over_rev, masked=masked)
    if not check_rev_over_rev:
        return True
    inputs = flatten(inputs)
    wrt = [inputs[i] for i in _differentiable(inputs)]
    outputs = [o for o in _flat_outputs(func, inputs) if o._requires_grad]
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        grad_outputs = [Tensor(rng.standard_normal(o.shape), dtype=o.dtype, requires_grad=True) for o in outputs]
    grad_outputs = list(flatten(grad_outputs))
    n = len(inputs)

    def first_derivatives(*args):
        outs = [o for o in _flat_outputs(func, args[:n]) if o._requires_grad]
        sources = [args[i] for i in _differentiable(args[:n])]
        grads = grad(outs, sources, grad_outputs=list(args[n:]), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)

