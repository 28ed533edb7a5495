"""Losses: values against numpy formulas (PyTorch's weight/ignore_index/label_smoothing means), gradients, errors."""
import numpy as np
import pytest
from scipy.special import log_softmax as np_log_softmax

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((6, 4))
TARGETS = np.array([0, 3, 1, 1, 2, 3])
WEIGHT = np.array([0.5, 1.0, 2.0, 1.5])


def t(values, grad=False):
    return mt.tensor(values, dtype=mt.float64 if np.asarray(values).dtype.kind == "f" else None, requires_grad=grad)


def reference_cross_entropy(logits, targets, weight=None, ignore_index=-100, smoothing=0.0, reduction="mean"):
    """PyTorch's formula, written out: (1-e) w[t] nll + e/C sum_c w_c (-log p_c); mean divides by sum w[t] kept."""
    classes = logits.shape[1]
    logp = np_log_softmax(logits, axis=1)
    w = np.ones(classes) if weight is None else weight
    keep = targets != ignore_index
    safe = np.where(keep, targets, 0)
    nll = -logp[np.arange(len(safe)), safe] * w[safe]
    spread = -(logp * w).sum(1)
    per = ((1 - smoothing) * nll + smoothing / classes * spread) * keep
    if reduction == "none":
        return per
    if reduction == "sum":
        return per.sum()
    return per.sum() / (w[safe] * keep).sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weight", [None, WEIGHT], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("ignore_index", [-100, 3])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_matches_pytorchs_formula(reduction, weight, ignore_index, smoothing):
    loss = nn.CrossEntropyLoss(weight=None if weight is None else t(weight), ignore_index=ignore_index,
                               reduction=reduction, label_smoothing=smoothing)
    out = loss(t(LOGITS), t(TARGETS))
    expected = reference_cross_entropy(LOGITS, TARGETS, weight, ignore_index, smoothing, reduction)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_cross_entropy_with_spatial_dimensions():
    logits = RNG.standard_normal((2, 3, 4, 5))
    targets = RNG.integers(0, 3, (2, 4, 5))
    flat_logits = logits.transpose(0, 2, 3, 1).reshape(-1, 3)
    out = F.cross_entropy(t(logits), t(targets), reduction="none")
    assert out.shape == (2, 4, 5)
    np.testing.assert_allclose(out.numpy().ravel(), reference_cross_entropy(flat_logits, targets.ravel(), reduction="none"))
    np.testing.assert_allclose(F.cross_entropy(t(logits), t(targets)).item(), reference_cross_entropy(flat_logits, targets.ravel()))


def test_cross_entropy_single_sample():
    logits = np.array([2.0, 0.5, -1.0])
    np.testing.assert_allclose(F.cross_entropy(t(logits), t(np.array(0))).item(), -np_log_softmax(logits)[0])


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("weight", [None, WEIGHT], ids=["unweighted", "weighted"])
def test_cross_entropy_with_probability_targets(normalized, weight):
    probs = RNG.uniform(0.1, 1.0, (6, 4))
    if normalized:
        probs /= probs.sum(1, keepdims=True)
    w = np.ones(4) if weight is None else weight
    for smoothing in (0.0, 0.1):
        target = probs * (1 - smoothing) + smoothing / 4
        expected = -(np_log_softmax(LOGITS, axis=1) * target * w).sum(1)
        out = F.cross_entropy(t(LOGITS), t(probs), weight=None if weight is None else t(weight), label_smoothing=smoothing)
        np.testing.assert_allclose(out.item(), expected.mean(), rtol=1e-12)
        # Gradient against finite differences, whichever path (fused or composed) ran.
        x = t(LOGITS, grad=True)
        fn = lambda x: F.cross_entropy(x, t(probs), weight=None if weight is None else t(weight),  # noqa: E731
                                       label_smoothing=smoothing)
        assert gradcheck(fn, (x,))


def test_cross_entropy_gradients():
    x = t(LOGITS, grad=True)
    targets = t(np.array([0, 3, 1, 1, 2, 3]))
    for kwargs in [{}, {"weight": t(WEIGHT), "ignore_index": 1}, {"label_smoothing": 0.3},
                   {"weight": t(WEIGHT), "label_smoothing": 0.3, "reduction": "sum"}]:
        fn = lambda x: F.cross_entropy(x, targets, **kwargs)  # noqa: E731
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


def test_cross_entropy_errors():
    with pytest.raises(mt.ShapeError, match=r"cross_entropy: expected target of shape \(6,\) for input of shape \(6, 4\), got target of shape \(5,\)"):
        F.cross_entropy(t(LOGITS), t(TARGETS[:5]))
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.cross_entropy(t(LOGITS), t(np.array([0, 4, 1, 1, 2, 3])))
    with pytest.raises(RuntimeError, match="integer dtype"):
        F.cross_entropy(t(LOGITS), mt.tensor(TARGETS).to(mt.bool))
    with pytest.raises(mt.ShapeError, match=r"weight should be a 1D tensor of size 4"):
        F.cross_entropy(t(LOGITS), t(TARGETS), weight=t(np.ones(3)))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        nn.CrossEntropyLoss(reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing must be between"):
        F.cross_entropy(t(LOGITS), t(TARGETS), label_smoothing=1.5)


# ----- NLLLoss -----

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_with_weight_and_ignore_index(reduction):
    logp = np_log_softmax(LOGITS, axis=1)
    out = nn.NLLLoss(weight=t(WEIGHT), ignore_index=1, reduction=reduction)(t(logp), t(TARGETS))
    np.testing.assert_allclose(out.numpy(), reference_cross_entropy(LOGITS, TARGETS, WEIGHT, 1, 0.0, reduction), rtol=1e-12)


def test_nll_loss_gradients_and_log_softmax_composition():
    x = t(LOGITS, grad=True)
    targets = t(TARGETS)
    fn = lambda x: F.nll_loss(F.log_softmax(x, 1), targets, weight=t(WEIGHT), ignore_index=2)  # noqa: E731
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))
    np.testing.assert_allclose(fn(x).item(), F.cross_entropy(x, targets, weight=t(WEIGHT), ignore_index=2).item(), rtol=1e-12)


# ----- regression losses -----

PRED = RNG.standard_normal((3, 4)) * 2
TARGET = RNG.standard_normal((3, 4))


@pytest.mark.parametrize("loss, formula", [
    (nn.MSELoss, lambda d: d**2),
    (nn.L1Loss, np.abs),
    (lambda **kw: nn.SmoothL1Loss(beta=0.5, **kw), lambda d: np.where(np.abs(d) < 0.5, 0.5 * d**2 / 0.5, np.abs(d) - 0.25)),
    (lambda **kw: nn.HuberLoss(delta=0.5, **kw), lambda d: np.where(np.abs(d) < 0.5, 0.5 * d**2, 0.5 * (np.abs(d) - 0.25))),
])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(loss, formula, reduction):
    out = loss(reduction=reduction)(t(PRED), t(TARGET))
    expected = formula(PRED - TARGET)
    expected = expected.mean() if reduction == "mean" else expected.sum() if reduction == "sum" else expected
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("loss", [nn.MSELoss(), nn.L1Loss(reduction="sum"), nn.SmoothL1Loss(beta=0.7), nn.HuberLoss(delta=0.7)],
                         ids=repr)
def test_regression_loss_gradients(loss):
    x = t(PRED, grad=True)
    assert gradcheck(lambda x: loss(x, t(TARGET)), (x,))


def test_smooth_l1_with_beta_zero_is_l1():
    np.testing.assert_allclose(F.smooth_l1_loss(t(PRED), t(TARGET), beta=0.0).item(), np.abs(PRED - TARGET).mean())


def test_regression_loss_target_errors():
    with pytest.warns(UserWarning, match=r"mse_loss: using a target size \(4,\) that is different to the input size \(3, 4\)"):
        F.mse_loss(t(PRED), t(TARGET[0]))
    with pytest.raises(mt.ShapeError, match=r"l1_loss: target of shape \(3,\) cannot broadcast to input of shape \(3, 4\)"):
        F.l1_loss(t(PRED), t(TARGET[:, 0]))
    with pytest.raises(TypeError, match="mse_loss: expected a floating point target"):
        F.mse_loss(t(PRED), mt.tensor([[1, 2, 3, 4]]))


# ----- binary classification -----

def test_bce_with_logits_values_weights_and_pos_weight():
    x = RNG.standard_normal((5, 3)) * 3
    y = RNG.uniform(0, 1, (5, 3))
    pos_weight, weight = np.array([1.0, 2.0, 0.5]), RNG.uniform(0.5, 1.5, (5, 3))
    p = 1 / (1 + np.exp(-x))
    expected = -weight * (pos_weight * y * np.log(p) + (1 - y) * np.log(1 - p))
    out = nn.BCEWithLogitsLoss(weight=t(weight), pos_weight=t(pos_weight), reduction="none")(t(x), t(y))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)
    np.testing.assert_allclose(F.binary_cross_entropy_with_logits(t(x), t(y)).item(),
                               (-(y * np.log(p) + (1 - y) * np.log(1 - p))).mean(), rtol=1e-10)


def test_bce_with_logits_is_stable_for_large_logits():
    x = mt.tensor([1000.0, -1000.0, 50.0, -50.0], requires_grad=True)
    y = mt.tensor([0.0, 1.0, 1.0, 0.0])
    out = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    # PyTorch's form, (1 - y) x - log sigmoid(x), rounds x = -50, y = 0 to 0 (-50 + 50 + 1.9e-22), as PyTorch does.
    np.testing.assert_allclose(out.detach().numpy(), [1000.0, 1000.0, np.log1p(np.exp(-50.0)), np.log1p(np.exp(-50.0))], rtol=1e-6,
                               atol=1e-21)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, -1.0, 0.0, 0.0], atol=1e-12)


def test_bce_with_logits_gradient_at_zero_is_sigmoid_minus_target():
    x = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    F.binary_cross_entropy_with_logits(x, t(np.array([0.0, 0.3, 1.0])), reduction="sum").backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.2, -0.5])


def test_bce_gradients():
    x = t(RNG.standard_normal((2, 3)), grad=True)
    y = t(RNG.uniform(0, 1, (2, 3)))
    pw = t(np.array([1.0, 3.0, 0.5]))
    fn = lambda x: F.binary_cross_entropy_with_logits(x, y, pos_weight=pw)  # noqa: E731
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))
    probs = t(RNG.uniform(0.1, 0.9, (2, 3)), grad=True)
    assert gradcheck(lambda p: F.binary_cross_entropy(p, y), (probs,))


def test_bce_values_and_errors():
    p, y = RNG.uniform(0.05, 0.95, (4,)), RNG.uniform(0, 1, (4,))
    np.testing.assert_allclose(nn.BCELoss()(t(p), t(y)).item(), (-(y * np.log(p) + (1 - y) * np.log(1 - p))).mean())
    assert F.binary_cross_entropy(t(np.array([0.0])), t(np.array([1.0]))).item() == 100.0  # log clamped at -100
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(t(np.array([1.5])), t(np.array([1.0])))
    with pytest.raises(ValueError, match=r"binary_cross_entropy_with_logits: target size \(3,\) must be the same as input size \(3, 1\)"):
        F.binary_cross_entropy_with_logits(mt.zeros(3, 1), mt.zeros(3))


# ----- issue 27: the edges, against PyTorch's backward formulas written out -----

@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.2}, {"weight": t(WEIGHT[:2])},
                                    {"weight": t(WEIGHT[:2]), "label_smoothing": 0.2}])
def test_cross_entropy_with_every_target_ignored_has_zero_gradients(kwargs):
    """PyTorch's nll_loss_backward never writes an ignored row: the loss is 0 / 0 = nan, the gradient 0."""
    x = mt.tensor([[0.5, 1.0], [0.1, 0.2]], requires_grad=True)
    loss = F.cross_entropy(x, mt.tensor([-100, -100]), **kwargs)
    assert np.isnan(loss.item())
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 2)))


def test_an_all_padding_batch_leaves_the_weights_unchanged():
    model = nn.Linear(3, 4)
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
    F.cross_entropy(model(mt.ones(2, 3)), mt.tensor([-100, -100])).backward()
    optimizer.step()
    for p, q in zip(model.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), q.numpy())


def test_nll_loss_gradient_is_zero_for_ignored_rows_and_nan_for_zero_weight_rows():
    """-w[t] g / total_weight for a kept row (0 / 0 = nan when the kept weights sum to 0), 0 for an ignored one."""
    x = t(np.array([[-0.5, -1.0], [-2.0, -0.1], [-0.3, -0.4]]), grad=True)
    F.nll_loss(x, t(np.array([1, -100, 1])), weight=t(np.array([1.0, 0.0]))).backward()
    expected = np.array([[0.0, np.nan], [0.0, 0.0], [0.0, np.nan]])  # -0 / 0 at each kept target, 0 elsewhere
    np.testing.assert_array_equal(x.grad.numpy(), expected)


@pytest.mark.parametrize("dtype", [mt.float32, mt.float64])
def test_binary_cross_entropy_at_0_and_1_has_pytorchs_gradient(dtype):
    """PyTorch's binary_cross_entropy_backward: g (p - y) / max(p (1 - p), EPSILON), EPSILON the float32 1e-12;
    the target's: -g logit(p). The loss clamps each log at -100."""
    p_values, y_values = np.array([0.0, 1.0, 1.0, 0.0, 0.5]), np.array([1.0, 0.0, 1.0, 0.0, 0.25])
    p = mt.tensor(p_values, dtype=dtype, requires_grad=True)
    y = mt.tensor(y_values, dtype=dtype, requires_grad=True)
    loss = F.binary_cross_entropy(p, y)
    with np.errstate(divide="ignore"):
        log_p, log_1mp = np.maximum(np.log(p_values), -100), np.maximum(np.log1p(-p_values), -100)
    np.testing.assert_allclose(loss.item(), (-(y_values * log_p + (1 - y_values) * log_1mp)).mean(), rtol=1e-6)
    loss.backward()
    epsilon = float(np.float32(1e-12))
    expected = (p_values - y_values) / np.maximum(p_values * (1 - p_values), epsilon) / 5
    np.testing.assert_allclose(p.grad.numpy(), expected, rtol=1e-6)  # [-2e11, 2e11, 0, 0, 0.1]
    np.testing.assert_array_equal(y.grad.numpy()[:4], [np.inf, -np.inf, -np.inf, np.inf])  # -logit(p) / 5
    assert y.grad.numpy()[4] == 0.0


def test_binary_cross_entropy_of_the_issues_example():
    p = mt.tensor([0.0, 1.0, 1.0], requires_grad=True)
    F.binary_cross_entropy(p, mt.tensor([1.0, 0.0, 1.0])).backward()
    np.testing.assert_allclose(p.grad.numpy(), [-3.3333335e11, 3.3333335e11, 0.0], rtol=1e-6)


def test_a_sigmoid_saturated_to_1_gives_a_finite_gradient():
    x = mt.tensor([20.0, -120.0], requires_grad=True)  # float32: sigmoid(20) rounds to 1.0, sigmoid(-120) to 0
    F.binary_cross_entropy(mt.sigmoid(x), mt.tensor([1.0, 1.0])).backward()
    assert np.isfinite(x.grad.numpy()).all()


SECOND_ORDER = [
    ("cross_entropy", lambda x, y: F.cross_entropy(x, mt.tensor([0, -100, 2]), weight=t(np.array([0.5, 1.0, 2.0])),
                                                   label_smoothing=0.1)),
    ("nll_loss", lambda x, y: F.nll_loss(x, mt.tensor([-100, 1, 2]))),
    ("binary_cross_entropy", lambda x, y: F.binary_cross_entropy(mt.sigmoid(x), mt.sigmoid(y))),
    ("binary_cross_entropy_with_logits", lambda x, y: F.binary_cross_entropy_with_logits(
        x, mt.sigmoid(y), pos_weight=t(np.array([0.5, 1.0, 2.0])))),
    ("kl_div", lambda x, y: F.kl_div(x, mt.sigmoid(y), reduction="batchmean")),
    ("poisson_nll_loss", lambda x, y: F.poisson_nll_loss(x, y.exp() + 1, full=True)),
    ("huber_loss", lambda x, y: F.huber_loss(x, y, delta=0.3)),
    ("smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, beta=0.3)),
    ("cosine_embedding_loss", lambda x, y: F.cosine_embedding_loss(x, y, mt.tensor([1, 1, -1]))),
]


@pytest.mark.parametrize("name, fn", SECOND_ORDER, ids=[name for name, _ in SECOND_ORDER])
def test_the_losses_issue_27_changed_stay_twice_differentiable(name, fn):
    rng = np.random.default_rng(3)
    x, y = t(rng.standard_normal((3, 3)), grad=True), t(rng.standard_normal((3, 3)), grad=True)
    assert gradcheck(fn, (x, y))
    assert gradgradcheck(fn, (x, y))
