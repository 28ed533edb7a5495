"""Every loss of nn.functional at the edges of its domain against PyTorch (issue 27): the loss and
every gradient equal PyTorch's, NaN where PyTorch gives NaN, infinite where it is infinite and
finite where it is finite, in float32 and float64. The cases are in tests/loss_edge_cases.py."""
import warnings

import numpy as np
import pytest

import minitorch as mt
from loss_edge_cases import CASES, Arg

torch = pytest.importorskip("torch")

TOLERANCE = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def _build(L, dtype, arg):
    if not isinstance(arg, Arg):
        return arg
    if arg.kind == "i":
        return L.tensor(np.asarray(arg.data, dtype=np.int64))
    return L.tensor(np.asarray(arg.data, dtype=dtype), requires_grad=arg.kind == "x")


def run(L, name, args, kwargs, dtype):
    """(loss, gradients of the leaves that need one) of one case on library L, as numpy arrays."""
    args = [_build(L, dtype, a) for a in args]
    kwargs = {k: _build(L, dtype, v) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warning, on both sides
        loss = getattr(L.nn.functional, name)(*args, **kwargs)
    leaves = [a for a in list(args) + list(kwargs.values()) if isinstance(a, L.Tensor) and a.requires_grad]
    loss.sum().backward()
    return loss.detach().numpy(), [None if t.grad is None else t.grad.numpy() for t in leaves]


def assert_same(ours, theirs, dtype, what):
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape}, PyTorch {theirs.shape}"
    assert ours.dtype == theirs.dtype, f"{what}: dtype {ours.dtype}, PyTorch {theirs.dtype}"
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs), err_msg=f"{what}: NaN where PyTorch's is not, or not where it is")
    np.testing.assert_array_equal(np.isposinf(ours), np.isposinf(theirs), err_msg=f"{what}: +inf differs")
    np.testing.assert_array_equal(np.isneginf(ours), np.isneginf(theirs), err_msg=f"{what}: -inf differs")
    finite = np.isfinite(theirs)
    np.testing.assert_allclose(ours[finite], theirs[finite], err_msg=what, **TOLERANCE[dtype])


def _id(case):
    name, args, kwargs = case
    return f"{name}({', '.join([repr(a) for a in args] + [f'{k}={v!r}' for k, v in kwargs.items()])})"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_loss_and_gradients_match_pytorch_at_the_edges(case, dtype):
    name, args, kwargs = case
    try:
        theirs_loss, theirs_grads = run(torch, name, args, kwargs, dtype)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            run(mt, name, args, kwargs, dtype)
        return
    ours_loss, ours_grads = run(mt, name, args, kwargs, dtype)
    assert_same(ours_loss, theirs_loss, dtype, f"{name}: the loss")
    assert len(ours_grads) == len(theirs_grads)
    for k, (ours, theirs) in enumerate(zip(ours_grads, theirs_grads)):
        assert (ours is None) == (theirs is None), f"{name}: gradient {k} is {ours}, PyTorch's {theirs}"
        if theirs is not None:
            assert_same(ours, theirs, dtype, f"{name}: the gradient of argument {k}")
