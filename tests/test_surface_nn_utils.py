"""nn.utils against PyTorch: gradient clipping, parameters to a vector and back, weight_norm and spectral_norm."""
import numpy as np
import pytest

import minitorch as mt
from minitorch import nn

from nn_twins import assert_close, compare_twins, twins

torch = pytest.importorskip("torch")
tnn = torch.nn

RNG = np.random.default_rng(0)


def _grads_pair(shapes, scale=3.0):
    grads = [RNG.standard_normal(s) * scale for s in shapes]
    ours = [nn.Parameter(mt.zeros(*s, dtype=mt.float64)) for s in shapes]
    theirs = [tnn.Parameter(torch.zeros(*s, dtype=torch.float64)) for s in shapes]
    for p, q, g in zip(ours, theirs, grads):
        p.grad, q.grad = mt.tensor(g), torch.tensor(g)
    return ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), "inf"])
def test_clip_grad_norm_matches_pytorch_in_place(norm_type):
    ours, theirs = _grads_pair([(3, 2), (4,)])
    grad_objects = [p.grad for p in ours]
    total_m = nn.utils.clip_grad_norm_(ours, max_norm=1.5, norm_type=norm_type)
    total_t = tnn.utils.clip_grad_norm_(theirs, max_norm=1.5, norm_type=norm_type)
    assert_close(total_m, total_t)
    for p, q, g in zip(ours, theirs, grad_objects):
        assert p.grad is g  # scaled in place, as PyTorch's
        assert_close(p.grad, q.grad)
    assert_close(nn.utils.get_total_norm([p.grad for p in ours], norm_type),
                 tnn.utils.get_total_norm([q.grad for q in theirs], norm_type))


def test_clip_grad_value_and_errors():
    ours, theirs = _grads_pair([(5,), (2, 2)])
    nn.utils.clip_grad_value_(ours, 0.7)
    tnn.utils.clip_grad_value_(theirs, 0.7)
    for p, q in zip(ours, theirs):
        assert_close(p.grad, q.grad)
    p = nn.Parameter(mt.zeros(2))
    p.grad = mt.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
    assert nn.utils.clip_grad_norm_([nn.Parameter(mt.zeros(2))], 1.0).item() == 0.0
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        nn.utils.clip_grad_norm([p], 1.0)


def test_parameters_to_vector_and_back():
    ours, theirs = twins(lambda m: m.Linear(3, 2))
    vec_m = nn.utils.parameters_to_vector(ours.parameters())
    vec_t = tnn.utils.parameters_to_vector(theirs.parameters())
    assert_close(vec_m, vec_t)
    (vec_m * mt.arange(8.0, dtype=mt.float64)).sum().backward()  # differentiable, as in PyTorch
    np.testing.assert_array_equal(ours.weight.grad.numpy().ravel(), np.arange(6.0))
    new = RNG.standard_normal(8)
    nn.utils.vector_to_parameters(mt.tensor(new), ours.parameters())
    tnn.utils.vector_to_parameters(torch.tensor(new), theirs.parameters())
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_close(p, q)
        assert p.requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.parameters_to_vector([np.zeros(2)])


@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated")
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_pytorch(dim):
    ours, theirs = twins(lambda m: m.utils.weight_norm(m.Linear(4, 3), dim=dim))
    assert list(ours.state_dict()) == ["bias", "weight_g", "weight_v"]
    compare_twins(ours, theirs, RNG.standard_normal((5, 4)))
    nn.utils.remove_weight_norm(ours)
    tnn.utils.remove_weight_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert_close(ours.weight, theirs.weight)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(ours)


def test_spectral_norm_matches_pytorch_with_power_iteration():
    ours, theirs = twins(lambda m: m.utils.spectral_norm(m.Linear(5, 4), n_power_iterations=2))
    assert list(ours.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    for _ in range(2):  # training: each forward refines u and v in place
        compare_twins(ours, theirs, RNG.standard_normal((3, 5)))
        for key in ("weight_u", "weight_v"):
            assert_close(ours.state_dict()[key], theirs.state_dict()[key])
    ours.eval()
    theirs.eval()
    compare_twins(ours, theirs, RNG.standard_normal((3, 5)))
    sigma = np.linalg.svd(ours.weight_orig.detach().numpy(), compute_uv=False)[0]
    np.testing.assert_allclose(np.linalg.svd(ours.weight.detach().numpy(), compute_uv=False)[0], 1.0, rtol=0.2)
    assert sigma > 0
    nn.utils.remove_spectral_norm(ours)
    tnn.utils.remove_spectral_norm(theirs)
    assert_close(ours.weight, theirs.weight)
    assert isinstance(ours.weight, nn.Parameter) and list(ours.state_dict()) == ["bias", "weight"]
