"""What the nn parity tests share (tests/test_surface_nn_{activations,losses,embeddings,utils,sequences}.py):
float64 twins of a function or module in minitorch and in PyTorch, compared on values and on the gradients of a
random projection of the outputs; finite differences."""
import numpy as np
import pytest

import minitorch as mt
from minitorch import nn

torch = pytest.importorskip("torch")
tnn = torch.nn


def to_torch(t, grad=False):
    return torch.tensor(np.array(t.detach().numpy()), requires_grad=grad)


def assert_close(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=""):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    np.testing.assert_allclose(np.asarray(ours.detach().numpy()), theirs, rtol=rtol, atol=atol, err_msg=err_msg)


def same_function(ours, theirs, *arrays, rtol=1e-10, atol=1e-12, seed=1, constants=()):
    """ours(*tensors) and theirs(*torch tensors) in float64: the values, and the gradients of a random
    projection of the output with respect to every floating input (but the `constants`)."""
    differentiable = [a.dtype.kind == "f" and i not in constants for i, a in enumerate(arrays)]
    xs = [mt.tensor(a, requires_grad=d) for a, d in zip(arrays, differentiable)]
    ts = [torch.tensor(a, requires_grad=d) for a, d in zip(arrays, differentiable)]
    ym, yt = ours(*xs), theirs(*ts)
    assert_close(ym, yt, rtol, atol)
    assert ym.dtype == mt.float64 and tuple(ym.shape) == tuple(yt.shape)
    if not yt.requires_grad:
        return
    projection = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    (ym * mt.tensor(projection)).sum().backward()
    (yt * torch.tensor(projection)).sum().backward()
    for x, t in zip(xs, ts):
        if t.requires_grad:
            assert_close(x.grad if x.grad is not None else mt.zeros_like(x),
                         t.grad if t.grad is not None else torch.zeros_like(t), rtol, atol)


def gradchecks(fn, *arrays, second=True):
    inputs = [mt.tensor(a, dtype=mt.float64, requires_grad=True) for a in arrays]
    assert mt.autograd.gradcheck(fn, inputs, eps=1e-6, atol=1e-6, rtol=1e-4)
    if second:
        assert mt.autograd.gradgradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)


def twins(make):
    """Our module and PyTorch's, in float64, with PyTorch's weights copied into ours (same keys, same order)."""
    ours, theirs = make(nn).double(), make(tnn).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [tuple(v.shape) for v in ours.state_dict().values()] == [tuple(v.shape) for v in theirs.state_dict().values()]
    ours.load_state_dict({k: mt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _flatten_outputs(result):
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in _flatten_outputs(item)]
    return [result.data if hasattr(result, "batch_sizes") else result]


def compare_twins(ours, theirs, *arrays, rtol=1e-10, atol=1e-12, modules=None):
    """Forward outputs, then the gradients of a random projection of every output, for inputs and parameters
    (of `modules`, a pair, when ours and theirs are functions calling modules)."""
    xs = [mt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs_m, outs_t = _flatten_outputs(ours(*xs)), _flatten_outputs(theirs(*ts))
    assert len(outs_m) == len(outs_t)
    total_m, total_t = 0, 0
    for k, (m, t) in enumerate(zip(outs_m, outs_t)):
        assert tuple(m.shape) == tuple(t.shape)
        assert_close(m, t, rtol, atol, err_msg=f"output {k}")
        projection = np.random.default_rng(k).standard_normal(tuple(t.shape))
        total_m = total_m + (m * mt.tensor(projection)).sum()
        total_t = total_t + (t * torch.tensor(projection)).sum()
    total_m.backward()
    total_t.backward()
    for x, t in zip(xs, ts):
        assert_close(x.grad, t.grad, rtol, atol)
    module_m, module_t = modules or (ours, theirs)
    for (name, p), (_, q) in zip(module_m.named_parameters(), module_t.named_parameters()):
        assert_close(p.grad, q.grad, rtol, atol, err_msg=name)


def probabilities(rng, shape):
    """Rows of positive numbers summing to 1 along the last dimension."""
    p = rng.uniform(0.05, 1.0, shape)
    return p / p.sum(axis=-1, keepdims=True)
