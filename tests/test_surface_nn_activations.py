"""The nn surface, part 2 (activations, losses, dropout variants, embeddings, distances, nn.utils):
values and gradients against PyTorch with the same inputs and weights, finite differences in float64,
in-place variants, reprs and errors. (Recurrent layers, attention and transformers: test_surface_nn_layers2_sequences.py.)"""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn

from nn_twins import assert_close, compare_twins, gradchecks, probabilities, same_function, twins

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional

RNG = np.random.default_rng(0)

# ----- activations -----

# The points where PyTorch's piecewise derivatives switch, plus random values.
KINKS = np.array([-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 20.0, 25.0, -25.0])
ACTIVATIONS = [
    ("elu", {}), ("elu", {"alpha": 0.3}), ("celu", {"alpha": 2.0}), ("selu", {}), ("silu", {}), ("mish", {}),
    ("hardshrink", {}), ("hardshrink", {"lambd": 1.0}), ("hardsigmoid", {}), ("hardswish", {}), ("hardtanh", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 3.0}), ("logsigmoid", {}), ("relu6", {}), ("softplus", {}),
    ("softplus", {"beta": 2.0, "threshold": 1.0}), ("softshrink", {}), ("softshrink", {"lambd": 1.0}), ("softsign", {}),
    ("tanhshrink", {}), ("threshold", {"threshold": 0.5, "value": -2.0}), ("leaky_relu", {"negative_slope": 0.2}),
    ("relu", {}), ("rrelu", {"lower": 0.1, "upper": 0.3}), ("glu", {}), ("glu", {"dim": 0}), ("softmin", {"dim": 1}),
    ("gelu", {}),
]


@pytest.mark.parametrize("name, kwargs", ACTIVATIONS, ids=lambda v: str(v))
def test_activation_values_and_gradients_match_pytorch(name, kwargs):
    x = np.concatenate([KINKS, RNG.standard_normal(12) * 4]).reshape(4, 6)
    # PyTorch's hardsigmoid gradient multiplies by 1/6 rounded to float32, even in float64.
    rtol = 1e-7 if name == "hardsigmoid" else 1e-10
    same_function(lambda t: getattr(F, name)(t, **kwargs), lambda t: getattr(tF, name)(t, **kwargs), x, rtol=rtol)


SMOOTH = ["elu", "celu", "selu", "silu", "mish", "logsigmoid", "softplus", "softsign", "tanhshrink", "glu", "softmin"]


@pytest.mark.parametrize("name", SMOOTH)
def test_activation_first_and_second_derivatives_by_finite_differences(name):
    x = RNG.standard_normal((3, 4)) * 2
    x[np.abs(x) < 0.05] = 0.3  # away from ELU's kink at 0 (its second derivative jumps there)
    gradchecks(lambda t: getattr(F, name)(t, dim=1) if name == "softmin" else getattr(F, name)(t), x)


def test_piecewise_activations_first_derivatives_by_finite_differences():
    x = np.array([-4.2, -2.1, -0.7, -0.3, 0.2, 0.8, 2.2, 4.1])
    for fn in (F.hardsigmoid, F.hardswish, F.hardtanh, F.relu6, F.hardshrink, F.softshrink,
               lambda t: F.threshold(t, 0.1, 3.0), lambda t: F.prelu(t, mt.tensor(0.3, dtype=mt.float64))):
        gradchecks(fn, x, second=False)


def test_float32_stays_float32():
    x = mt.randn(4, 4)
    for name, kwargs in ACTIVATIONS:
        if name != "rrelu":
            assert getattr(F, name)(x, **kwargs).dtype == mt.float32, name
    assert F.prelu(x, mt.tensor([0.25])).dtype == mt.float32


@pytest.mark.parametrize("name", ["elu", "celu", "selu", "silu", "mish", "hardsigmoid", "hardswish", "softplus",
                                  "logsigmoid", "leaky_relu", "hardshrink", "softshrink", "glu"])
def test_integer_inputs_raise_as_in_pytorch(name):
    with pytest.raises(NotImplementedError, match="not implemented for"):
        getattr(F, name)(mt.tensor([-2, 0, 3, 1]))
    with pytest.raises((NotImplementedError, RuntimeError), match="not implemented for"):
        getattr(tF, name)(torch.tensor([-2, 0, 3, 1]))


def test_integer_inputs_that_pytorch_accepts():
    for name in ("relu", "relu6", "hardtanh"):
        ours, theirs = getattr(F, name)(mt.tensor([-2, 0, 3, 9])), getattr(tF, name)(torch.tensor([-2, 0, 3, 9]))
        assert ours.tolist() == theirs.tolist() and ours.dtype == mt.int64, name
    assert F.threshold(mt.tensor([-2, 0, 3]), 1, 5).tolist() == tF.threshold(torch.tensor([-2, 0, 3]), 1, 5).tolist()


def test_prelu_per_channel_matches_pytorch():
    x = RNG.standard_normal((2, 3, 4))
    w = np.array([0.1, -0.2, 0.5])
    same_function(F.prelu, tF.prelu, x, w)
    same_function(F.prelu, tF.prelu, RNG.standard_normal((5,)), np.array([0.3]))
    with pytest.raises(mt.ShapeError, match="mismatch of parameter numbers"):
        F.prelu(mt.zeros(2, 3), mt.ones(2))


def test_rrelu_training_slopes_lie_in_range_and_the_gradient_is_the_slope():
    mt.manual_seed(0)
    x = mt.tensor(-np.linspace(0.5, 3.0, 200), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = (y / x).detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-6)
    assert F.rrelu(mt.tensor([2.0]), training=True).item() == 2.0


def test_softmax2d_and_errors():
    x = RNG.standard_normal((2, 3, 4, 5))
    same_function(nn.Softmax2d(), tnn.Softmax2d(), x)
    with pytest.raises(ValueError, match="expected input to be 3D or 4D"):
        nn.Softmax2d()(mt.zeros(2, 3))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(mt.zeros(3))
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(mt.zeros(2), 2.0, 1.0)
    with pytest.raises(AssertionError):
        nn.Hardtanh(1.0, 0.0)


def test_gumbel_softmax_sums_to_one_and_hard_is_straight_through():
    mt.manual_seed(0)
    logits = mt.tensor(RNG.standard_normal((4, 6)), requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(dim=-1).detach().numpy(), 1.0)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True, dim=-1)
    assert sorted(set(hard.detach().numpy().ravel().tolist())) == [0.0, 1.0]
    np.testing.assert_array_equal(hard.detach().numpy().sum(axis=-1), 1.0)
    (hard * mt.arange(6.0)).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    # Gumbel noise moves the argmax with the logits' probabilities: a very peaked logit always wins.
    picks = [F.gumbel_softmax(mt.tensor([0.0, 8.0, 0.0]), hard=True).argmax().item() for _ in range(50)]
    assert picks.count(1) >= 45


ACTIVATION_MODULES = [
    lambda m: m.ELU(alpha=0.5), lambda m: m.CELU(alpha=1.5), lambda m: m.SELU(), lambda m: m.SiLU(), lambda m: m.Mish(),
    lambda m: m.GLU(dim=1), lambda m: m.Hardshrink(0.3), lambda m: m.Hardsigmoid(), lambda m: m.Hardswish(),
    lambda m: m.Hardtanh(-2.0, 2.0), lambda m: m.LogSigmoid(), lambda m: m.PReLU(), lambda m: m.PReLU(4, init=0.1),
    lambda m: m.RReLU(0.1, 0.2), lambda m: m.ReLU6(), lambda m: m.Softmin(dim=1), lambda m: m.Softplus(2.0, 5.0),
    lambda m: m.Softshrink(0.7), lambda m: m.Softsign(), lambda m: m.Tanhshrink(), lambda m: m.Threshold(0.2, -1.0),
    lambda m: m.ReLU(inplace=True), lambda m: m.ELU(inplace=True), lambda m: m.Hardtanh(inplace=True),
    lambda m: m.ReLU6(inplace=True), lambda m: m.Threshold(0.1, 2.0, inplace=True), lambda m: m.LeakyReLU(0.2, True),
    lambda m: m.SELU(inplace=True), lambda m: m.CELU(inplace=True), lambda m: m.SiLU(inplace=True),
    lambda m: m.Mish(inplace=True), lambda m: m.Hardswish(inplace=True), lambda m: m.Hardsigmoid(inplace=True),
    lambda m: m.RReLU(inplace=True),
]


@pytest.mark.parametrize("make", ACTIVATION_MODULES, ids=lambda make: repr(make(tnn)))
def test_activation_module_repr_parameters_and_values_match_pytorch(make):
    ours, theirs = make(nn).eval(), make(tnn).eval()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.double()
    theirs.double()
    for key, value in theirs.state_dict().items():
        assert_close(ours.state_dict()[key], value)
    # Behind a Linear, so the in-place modules write into a tensor that is not a leaf.
    x = RNG.standard_normal((3, 4)) * 3
    lin_m, lin_t = nn.Linear(4, 4).double(), tnn.Linear(4, 4).double()
    lin_t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in lin_m.state_dict().items()})
    rtol = 1e-7 if isinstance(ours, nn.Hardsigmoid) else 1e-10  # PyTorch's 1/6 in float32, as above
    same_function(lambda t: ours(lin_m(t)), lambda t: theirs(lin_t(t)), x, rtol=rtol)
    for p, q in zip(list(lin_m.parameters()) + list(ours.parameters()), list(lin_t.parameters()) + list(theirs.parameters())):
        assert_close(p.grad, q.grad, rtol=rtol)


@pytest.mark.parametrize("name, args", [("relu_", ()), ("elu_", (0.5,)), ("celu_", (2.0,)), ("selu_", ()),
                                        ("leaky_relu_", (0.1,)), ("hardtanh_", (-0.5, 0.5)),
                                        ("threshold_", (0.2, 7.0)), ("rrelu_", (0.2, 0.4))])
def test_in_place_functions_write_into_their_input(name, args):
    x = RNG.standard_normal(8)
    ours = mt.tensor(x)
    out = getattr(F, name)(ours, *args)
    theirs = getattr(tF, name)(torch.tensor(x), *args)
    assert out is ours
    assert_close(ours, theirs)
    # Recorded when a tape watches: the gradient flows through the in-place update.
    w = mt.tensor(x, requires_grad=True)
    h = w * 2.0
    getattr(F, name)(h, *args)
    h.sum().backward()
    wt = torch.tensor(x, requires_grad=True)
    ht = wt * 2.0
    getattr(tF, name)(ht, *args)
    ht.sum().backward()
    assert_close(w.grad, wt.grad)


def test_in_place_module_on_a_leaf_that_requires_grad_raises_as_pytorch():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        nn.ReLU(inplace=True)(mt.ones(2, requires_grad=True))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        tnn.ReLU(inplace=True)(torch.ones(2, requires_grad=True))
    x = mt.tensor([-1.0, 2.0])
    assert nn.ELU(inplace=True)(x) is x and x.tolist()[1] == 2.0


# ----- dropout variants -----

def test_dropout_variants_keep_whole_channels_and_scale_what_they_keep():
    mt.manual_seed(0)
    for fn, shape in ((F.dropout2d, (64, 8, 5, 3)), (F.dropout1d, (64, 8, 5)), (F.dropout1d, (8, 5))):
        data = mt.tensor(RNG.uniform(1.0, 2.0, shape))
        y = fn(data, p=0.25).numpy()
        kept = y != 0
        per_channel = kept.reshape(kept.shape[: len(shape) - 1] + (-1,))
        assert (per_channel.all(axis=-1) | ~per_channel.any(axis=-1)).all()  # a channel is kept or dropped whole
        np.testing.assert_allclose(y[kept], data.numpy()[kept] / 0.75)
        if len(shape) > 2:
            assert 0.15 < 1 - kept.mean() < 0.35


def test_dropout_mask_probability_and_gradient():
    mt.manual_seed(1)
    x = mt.ones(20000, requires_grad=True)
    y = F.dropout(x, p=0.3)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.02
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.7, rtol=1e-6)
    assert F.dropout(x, p=1.0).abs().sum().item() == 0
    assert F.dropout(x, p=0.5, training=False) is x


def test_alpha_dropout_keeps_mean_and_variance_and_is_affine():
    mt.manual_seed(2)
    x = mt.randn(200000, dtype=mt.float64)
    p = 0.2
    y = F.alpha_dropout(x, p=p, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    dropped_value = -alpha * a + alpha * a * p
    kept = ~np.isclose(y, dropped_value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y[kept], a * x.numpy()[kept] + alpha * a * p, rtol=1e-12)
    assert abs(kept.mean() - (1 - p)) < 0.01
    # the same constants as PyTorch's: its output on ones takes exactly these two values
    t = tF.alpha_dropout(torch.ones(1000, dtype=torch.float64), p=p, training=True).unique().numpy()
    np.testing.assert_allclose(sorted(t), sorted([dropped_value, a + alpha * a * p]), rtol=1e-12)
    assert F.alpha_dropout(x, p=0.5) is x  # PyTorch's default training=False


def test_feature_alpha_dropout_is_channelwise():
    mt.manual_seed(3)
    y = F.feature_alpha_dropout(mt.ones(50, 6, 7), p=0.5, training=True).numpy()
    assert (y == y[:, :, :1]).all() and len(np.unique(y)) == 2
    with pytest.raises(mt.ShapeError, match="at least 2 dimensions"):
        F.feature_alpha_dropout(mt.ones(5), training=True)


def test_dropout_inplace_writes_into_the_input_and_records_the_gradient():
    for fn in (F.dropout, F.dropout1d, F.alpha_dropout, F.feature_alpha_dropout):
        x = mt.ones(4, 5, 3)
        assert fn(x, 0.5, True, True) is x
    w = mt.ones(6, 5, requires_grad=True)
    h = w * 3.0
    nn.Dropout(0.5, inplace=True)(h)
    h.sum().backward()
    kept = h.detach().numpy() != 0
    np.testing.assert_allclose(w.grad.numpy(), kept * 6.0)


def test_dropout_errors_and_warnings_as_pytorch():
    for fn in (F.dropout, F.dropout1d, F.dropout2d, F.alpha_dropout, F.feature_alpha_dropout):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            fn(mt.ones(2, 2, 2), p=1.5)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(mt.ones(2, 2, 2, 2))
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(mt.ones(2, 2, 2))
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        F.dropout2d(mt.ones(2, 2))


@pytest.mark.parametrize("name", ["Dropout1d", "Dropout2d", "AlphaDropout", "FeatureAlphaDropout"])
def test_dropout_modules_repr_and_eval(name):
    ours, theirs = getattr(nn, name)(0.3, inplace=True), getattr(tnn, name)(0.3, inplace=True)
    assert repr(ours) == repr(theirs)
    x = mt.ones(2, 3, 4, 4)
    assert ours.eval()(x) is x


# ----- losses and distances -----

def _signs(shape):
    return np.where(RNG.random(shape) < 0.5, -1.0, 1.0)


def _probabilities(shape):
    return probabilities(RNG, shape)


def _multilabel_targets(n, classes):
    rows = np.full((n, classes), -1, dtype=np.int64)
    for i in range(n):
        k = RNG.integers(0, classes)
        rows[i, :k] = RNG.choice(classes, size=k, replace=False)
    rows[0, :3] = [1, 1, -1]  # a repeated class counts twice in PyTorch's loop
    return rows


# (F name, inputs, kwargs, indices of inputs that are constants: targets, labels, variances near 0)
LOSSES = [
    ("kl_div", lambda: [np.log(_probabilities((3, 5))), _probabilities((3, 5))], {"reduction": "batchmean"}, ()),
    ("kl_div", lambda: [np.log(_probabilities((3, 5))), np.r_[[0.0] * 5, *_probabilities((2, 5))].reshape(3, 5)],
     {"reduction": "sum"}, (1,)),
    ("kl_div", lambda: [RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))], {"reduction": "none", "log_target": True},
     ()),
    ("poisson_nll_loss", lambda: [RNG.standard_normal((4, 3)), RNG.poisson(2.0, (4, 3)).astype(float)], {}, ()),
    ("poisson_nll_loss", lambda: [RNG.uniform(0.1, 3, (4, 3)), RNG.poisson(2.0, (4, 3)).astype(float)],
     {"log_input": False, "full": True, "reduction": "sum"}, (1,)),
    ("gaussian_nll_loss", lambda: [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)), RNG.uniform(0.5, 2, (4, 3))],
     {}, ()),
    ("gaussian_nll_loss", lambda: [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)), RNG.uniform(0.5, 2, (4,))],
     {"full": True, "reduction": "none"}, ()),
    ("gaussian_nll_loss", lambda: [RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)),
                                   np.r_[1e-9, 0.0, 1.5, 2.0].reshape(4, 1)], {"reduction": "sum", "eps": 0.1}, (2,)),
    ("margin_ranking_loss", lambda: [RNG.standard_normal(6), RNG.standard_normal(6), _signs(6)], {"margin": 0.3}, (2,)),
    ("hinge_embedding_loss", lambda: [RNG.standard_normal((3, 4)), _signs((3, 4))], {"margin": 0.5}, (1,)),
    ("soft_margin_loss", lambda: [RNG.standard_normal((3, 4)), _signs((3, 4))], {"reduction": "none"}, (1,)),
    ("cosine_embedding_loss", lambda: [RNG.standard_normal((5, 4)), RNG.standard_normal((5, 4)), _signs(5)],
     {"margin": 0.2}, (2,)),
    ("cosine_embedding_loss", lambda: [RNG.standard_normal(4), RNG.standard_normal(4), np.array(-1.0)],
     {"margin": -0.5, "reduction": "none"}, (2,)),
    ("multi_margin_loss", lambda: [RNG.standard_normal((5, 4)), RNG.integers(0, 4, 5)], {}, ()),
    ("multi_margin_loss", lambda: [RNG.standard_normal((5, 4)), RNG.integers(0, 4, 5), ],
     {"p": 2, "margin": 0.7, "reduction": "none"}, ()),
    ("multi_margin_loss", lambda: [RNG.standard_normal(4), np.array(2)], {"reduction": "none"}, ()),
    ("multilabel_margin_loss", lambda: [RNG.standard_normal((5, 6)), _multilabel_targets(5, 6)], {}, ()),
    ("multilabel_margin_loss", lambda: [RNG.standard_normal((5, 6)), _multilabel_targets(5, 6)], {"reduction": "none"},
     ()),
    ("multilabel_margin_loss", lambda: [RNG.standard_normal(6), _multilabel_targets(1, 6)[0]], {"reduction": "none"}, ()),
    ("multilabel_soft_margin_loss", lambda: [RNG.standard_normal((4, 5)), (RNG.random((4, 5)) < 0.5) * 1.0], {}, ()),
    ("triplet_margin_loss", lambda: [RNG.standard_normal((5, 3)) for _ in range(3)], {"margin": 0.5}, ()),
    ("triplet_margin_loss", lambda: [RNG.standard_normal((5, 3)) for _ in range(3)],
     {"p": 1, "swap": True, "reduction": "none"}, ()),
    ("triplet_margin_with_distance_loss", lambda: [RNG.standard_normal((5, 3)) for _ in range(3)], {"swap": True}, ()),
    ("pairwise_distance", lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))], {}, ()),
    ("pairwise_distance", lambda: [RNG.standard_normal((2, 5, 3)), RNG.standard_normal(3)], {"p": 3.0, "keepdim": True},
     ()),
    ("pairwise_distance", lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))], {"p": 1.0, "eps": 0.0}, ()),
    ("pairwise_distance", lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))], {"p": float("inf")}, ()),
    ("cosine_similarity", lambda: [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 3))], {}, ()),
    ("cosine_similarity", lambda: [RNG.standard_normal((2, 5, 3)), RNG.standard_normal((5, 1))], {"dim": -1}, ()),
    ("cosine_similarity", lambda: [np.zeros((2, 3)), RNG.standard_normal((2, 3))], {"eps": 1e-3}, ()),
    ("pdist", lambda: [RNG.standard_normal((5, 3))], {}, ()),
    ("pdist", lambda: [RNG.standard_normal((4, 3))], {"p": 1.5}, ()),
    ("pdist", lambda: [RNG.standard_normal((4, 3))], {"p": float("inf")}, ()),
]
SMOOTH_LOSSES = ("kl_div", "poisson_nll_loss", "gaussian_nll_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
                 "cosine_similarity")


def _loss_id(value):
    return value if isinstance(value, str) else str(value) if isinstance(value, dict) else ""


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("name, make, kwargs, constants", LOSSES, ids=_loss_id)
def test_loss_and_distance_values_and_gradients_match_pytorch(name, make, kwargs, constants):
    same_function(lambda *t: getattr(F, name)(*t, **kwargs), lambda *t: getattr(tF, name)(*t, **kwargs), *make(),
                  constants=constants)


@pytest.mark.parametrize("name, make, kwargs, constants", [case for case in LOSSES if case[0] != "pdist"], ids=_loss_id)
def test_losses_by_finite_differences(name, make, kwargs, constants):
    arrays = make()
    variables = [i for i, a in enumerate(arrays) if a.dtype.kind == "f" and i not in constants]

    def fn(*values):
        args = [mt.tensor(a) for a in arrays]
        for i, v in zip(variables, values):
            args[i] = v
        return getattr(F, name)(*args, **kwargs)

    smooth = name in SMOOTH_LOSSES or name == "pairwise_distance" and kwargs.get("p", 2) not in (1.0, float("inf"))
    gradchecks(fn, *[arrays[i] for i in variables], second=smooth)


def test_pdist_gradient_by_finite_differences():
    gradchecks(F.pdist, RNG.standard_normal((4, 3)))
    gradchecks(lambda t: F.pdist(t, p=3.0), RNG.standard_normal((4, 3)))


def test_zero_distance_has_zero_gradient_as_pytorch():
    x = mt.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    F.pdist(x).sum().backward()
    xt = torch.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    tF.pdist(xt).sum().backward()
    assert_close(x.grad, xt.grad)
    assert not np.isnan(x.grad.numpy()).any()


@pytest.mark.parametrize("make", [
    lambda m: m.KLDivLoss(reduction="batchmean", log_target=True), lambda m: m.PoissonNLLLoss(full=True),
    lambda m: m.GaussianNLLLoss(full=True, eps=1e-3), lambda m: m.MarginRankingLoss(0.5), lambda m: m.HingeEmbeddingLoss(),
    lambda m: m.CosineEmbeddingLoss(0.1), lambda m: m.SoftMarginLoss(reduction="sum"), lambda m: m.MultiMarginLoss(p=2),
    lambda m: m.MultiLabelMarginLoss(), lambda m: m.MultiLabelSoftMarginLoss(), lambda m: m.TripletMarginLoss(swap=True),
    lambda m: m.TripletMarginWithDistanceLoss(margin=0.5), lambda m: m.NLLLoss2d(ignore_index=1),
    lambda m: m.PairwiseDistance(p=1.0, keepdim=True), lambda m: m.CosineSimilarity(dim=0, eps=1e-4),
])
@pytest.mark.filterwarnings("ignore:`NLLLoss2d` has been deprecated")
def test_loss_and_distance_modules_repr_and_attributes_match_pytorch(make):
    ours, theirs = make(nn), make(tnn)
    assert repr(ours) == repr(theirs)
    for key, value in vars(theirs).items():
        if not key.startswith("_") and key != "training":
            ours_value = getattr(ours, key)
            assert (repr(ours_value) == repr(value)) if isinstance(value, tnn.Module) else ours_value == value, key


@pytest.mark.filterwarnings("ignore:`NLLLoss2d` has been deprecated")
def test_loss_modules_match_functional_values():
    x, y = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    target = _signs(4)
    same_function(nn.CosineEmbeddingLoss(0.1), tnn.CosineEmbeddingLoss(0.1), x, y, target)
    same_function(nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), swap=True),
                  tnn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1 - tF.cosine_similarity(a, b), swap=True),
                  x, y, RNG.standard_normal((4, 3)))
    same_function(nn.NLLLoss2d(), tnn.NLLLoss2d(), np.ascontiguousarray(np.log(_probabilities((2, 3, 2, 4)).transpose(0, 3, 1, 2))),
                  RNG.integers(0, 4, (2, 3, 2)))
    same_function(nn.GaussianNLLLoss(), tnn.GaussianNLLLoss(), x, y, RNG.uniform(0.5, 1.0, (4, 1)))
    same_function(nn.MultiMarginLoss(weight=mt.tensor([0.2, 1.0, 3.0], dtype=mt.float64), margin=0.5),
                  tnn.MultiMarginLoss(weight=torch.tensor([0.2, 1.0, 3.0], dtype=torch.float64), margin=0.5),
                  x, RNG.integers(0, 3, 4))
    same_function(nn.MultiLabelSoftMarginLoss(weight=mt.tensor([0.2, 1.0, 3.0], dtype=mt.float64)),
                  tnn.MultiLabelSoftMarginLoss(weight=torch.tensor([0.2, 1.0, 3.0], dtype=torch.float64)),
                  x, (RNG.random((4, 3)) < 0.5) * 1.0)


def test_loss_errors_as_pytorch():
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(mt.zeros(2, 3), mt.tensor([0, 1]), p=3)
    with pytest.raises(IndexError, match="target out of range"):
        F.multi_margin_loss(mt.zeros(2, 3), mt.tensor([0, 3]))
    with pytest.raises(mt.ShapeError, match="inconsistent target size"):
        F.multi_margin_loss(mt.zeros(2, 3), mt.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(mt.zeros(2), mt.zeros(2), mt.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(mt.zeros(2, 3), mt.zeros(2, 3), mt.ones(3, 2))
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_loss(mt.zeros(2, 2), mt.zeros(2, 2), mt.zeros(2, 2), margin=0.0)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_loss(mt.zeros(2, 2), mt.zeros(2), mt.zeros(2, 2))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(mt.zeros(3), mt.zeros(3), mt.ones(3))
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(mt.zeros(3), mt.zeros(3, 1), mt.ones(3))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.kl_div(mt.zeros(3), mt.zeros(3), reduction="avg")
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(mt.zeros(3), mt.zeros(3))
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors"):
        F.pdist(mt.zeros(3))
    assert tuple(F.pdist(mt.zeros(1, 3)).shape) == (0,)


# ----- CTC -----

def _ctc_inputs(steps=7, batch=4, classes=5, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.standard_normal((steps, batch, classes))
    targets = rng.integers(1, classes, (batch, 4))
    targets[1, :2] = 2  # a repeated label needs a blank between its copies
    return logits, targets, [7, 5, 6, 2], [4, 2, 0, 3]  # the last sample cannot be aligned: its loss is inf


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_and_gradients_match_pytorch(reduction, zero_infinity):
    logits, targets, input_lengths, target_lengths = _ctc_inputs()
    if not zero_infinity:
        input_lengths[3] = 7
    x = mt.tensor(logits, requires_grad=True)
    log_probs = x.log_softmax(2)
    log_probs.retain_grad()
    ours = F.ctc_loss(log_probs, mt.tensor(targets), input_lengths, target_lengths, reduction=reduction,
                      zero_infinity=zero_infinity)
    xt = torch.tensor(logits, requires_grad=True)
    log_probs_t = xt.log_softmax(2)
    log_probs_t.retain_grad()
    theirs = tF.ctc_loss(log_probs_t, torch.tensor(targets), input_lengths, target_lengths, reduction=reduction,
                         zero_infinity=zero_infinity)
    assert_close(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    assert_close(log_probs.grad, log_probs_t.grad)  # PyTorch's gradient with respect to the log-probabilities
    assert_close(x.grad, xt.grad)


def test_ctc_loss_forms_float32_and_module():
    logits, targets, input_lengths, target_lengths = _ctc_inputs(seed=1)
    input_lengths[3] = 7
    concatenated = np.concatenate([row[:n] for row, n in zip(targets, target_lengths)])
    lp = np.log(np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype(np.float32)
    ours = nn.CTCLoss(blank=0)(mt.tensor(lp), mt.tensor(concatenated), mt.tensor(input_lengths), mt.tensor(target_lengths))
    theirs = tnn.CTCLoss(blank=0)(torch.tensor(lp), torch.tensor(concatenated), torch.tensor(input_lengths),
                                  torch.tensor(target_lengths))
    assert ours.dtype == mt.float32
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
    unbatched = F.ctc_loss(mt.tensor(lp[:, 0]), mt.tensor(targets[0]), 7, 4, reduction="none")
    assert tuple(unbatched.shape) == ()
    assert_close(unbatched, tF.ctc_loss(torch.tensor(lp[:, 0]), torch.tensor(targets[0]), torch.tensor(7), torch.tensor(4),
                                        reduction="none"), rtol=1e-5)
    # blank elsewhere than 0
    shifted = np.roll(lp, -1, axis=2)
    assert_close(F.ctc_loss(mt.tensor(shifted), mt.tensor(targets - 1), input_lengths, target_lengths, blank=4),
                 theirs, rtol=1e-5)
    assert repr(nn.CTCLoss(blank=3, zero_infinity=True)) == "CTCLoss()"


def test_ctc_loss_errors_and_no_second_derivative():
    lp = mt.zeros(5, 2, 4).log_softmax(2)
    targets = mt.tensor([[1, 2], [1, 1]])
    with pytest.raises(RuntimeError, match="Expected input_lengths to have value at most 5, but got value 6"):
        F.ctc_loss(lp, targets, [5, 6], [2, 2])
    with pytest.raises(RuntimeError, match="Expected tensor to have size at least 3 at dimension 1"):
        F.ctc_loss(lp, targets, [5, 5], [3, 2])
    with pytest.raises(RuntimeError, match="Expected tensor to have size 4 at dimension 0"):
        F.ctc_loss(lp, mt.tensor([1, 2, 1]), [5, 5], [2, 2])
    with pytest.raises(RuntimeError, match="input_lengths must be of size batch_size"):
        F.ctc_loss(lp, targets, [5], [2, 2])
    with pytest.raises(RuntimeError, match="Expected target_lengths to have value at least 0"):
        F.ctc_loss(lp, targets, [5, 5], [-1, 2])
    x = mt.tensor(np.random.default_rng(0).standard_normal((5, 2, 4)), requires_grad=True)
    loss = F.ctc_loss(x.log_softmax(2), targets, [5, 5], [2, 2])
    (grad,) = mt.autograd.grad(loss, x, create_graph=True)
    with pytest.raises(RuntimeError, match="second derivative is not implemented"):
        mt.autograd.grad(grad.sum(), x)
    with pytest.raises(RuntimeError, match="forward-mode derivatives are not implemented"):
        with mt.ForwardAccumulator(x, mt.ones_like(x)):
            F.ctc_loss(x.log_softmax(2), targets, [5, 5], [2, 2])


# ----- embeddings -----

def _twin_tables(make, weight):
    ours, theirs = make(nn), make(tnn)
    ours.double()
    theirs.double()
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(weight))
    ours.weight.data = mt.tensor(weight)
    return ours, theirs


@pytest.mark.parametrize("make", [
    lambda m: m.Embedding(7, 3), lambda m: m.Embedding(7, 3, padding_idx=2), lambda m: m.Embedding(7, 3, max_norm=1.0),
    lambda m: m.Embedding(7, 3, max_norm=0.5, norm_type=1.0, padding_idx=-1), lambda m: m.Embedding(7, 3, scale_grad_by_freq=True),
    lambda m: m.Embedding(7, 3, scale_grad_by_freq=True, padding_idx=0, max_norm=2.0),
], ids=lambda make: repr(make(tnn)))
def test_embedding_options_match_pytorch(make):
    weight = RNG.standard_normal((7, 3)) * 2
    ours, theirs = _twin_tables(make, weight)
    assert repr(ours) == repr(theirs)
    indices = np.array([[0, 2, 2, 5], [6, 2, 0, 1]])
    ym, yt = ours(mt.tensor(indices)), theirs(torch.tensor(indices))
    assert_close(ym, yt)
    assert_close(ours.weight, theirs.weight)  # max_norm renormalises the rows it used, in place
    projection = RNG.standard_normal(tuple(yt.shape))
    (ym * mt.tensor(projection)).sum().backward()
    (yt * torch.tensor(projection)).sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad)


BAGS = [
    (lambda m: m.EmbeddingBag(8, 3), "1d", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="sum"), "1d", {"per_sample_weights": True}),
    (lambda m: m.EmbeddingBag(8, 3, mode="max"), "1d", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="sum", include_last_offset=True), "last", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="mean", padding_idx=1), "1d", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="max", padding_idx=1), "1d", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="mean", max_norm=1.5), "1d", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="mean"), "2d", {}),
    (lambda m: m.EmbeddingBag(8, 3, mode="sum", padding_idx=0), "2d", {"per_sample_weights": True}),
]


@pytest.mark.parametrize("make, form, options", BAGS, ids=lambda v: repr(v(tnn)) if callable(v) else str(v))
def test_embedding_bag_matches_pytorch(make, form, options):
    weight = RNG.standard_normal((8, 3))
    ours, theirs = _twin_tables(make, weight)
    assert repr(ours) == repr(theirs)
    if form == "2d":
        indices, offsets = np.array([[0, 1, 1, 5], [7, 1, 0, 2], [1, 1, 1, 1]]), None
    else:
        indices = np.array([3, 1, 1, 5, 7, 2, 1, 1, 6])
        offsets = np.array([0, 3, 3, 5, 8] + ([9] if form == "last" else []))  # an empty bag, and a bag of padding
    samples = RNG.standard_normal(indices.shape) if options.get("per_sample_weights") else None
    args_m = [mt.tensor(indices), None if offsets is None else mt.tensor(offsets)]
    args_t = [torch.tensor(indices), None if offsets is None else torch.tensor(offsets)]
    sm = None if samples is None else mt.tensor(samples, requires_grad=True)
    st = None if samples is None else torch.tensor(samples, requires_grad=True)
    ym, yt = ours(*args_m, per_sample_weights=sm), theirs(*args_t, per_sample_weights=st)
    assert_close(ym, yt)
    projection = RNG.standard_normal(tuple(yt.shape))
    (ym * mt.tensor(projection)).sum().backward()
    (yt * torch.tensor(projection)).sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad)
    assert_close(ours.weight, theirs.weight)
    if samples is not None:
        assert_close(sm.grad, st.grad)


def test_embedding_bag_scale_grad_by_freq_divides_each_row_by_its_count():
    # PyTorch 2.13's CPU kernel divides by another index's count here (pytorch/pytorch#190063, fixed by #190264);
    # the documented behaviour, which its Embedding and its CUDA kernel have, is checked by hand instead.
    weight = mt.ones(8, 2, requires_grad=True)
    F.embedding_bag(mt.tensor([3, 1, 1, 5, 7, 2, 1, 1, 6]), weight, mt.tensor([0, 3, 5]), mode="sum",
                    scale_grad_by_freq=True).sum().backward()
    assert weight.grad[:, 0].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    w = torch.ones(8, 2, requires_grad=True)
    tF.embedding(torch.tensor([3, 1, 1, 5, 7, 2, 1, 1, 6]), w, scale_grad_by_freq=True).sum().backward()
    assert w.grad[:, 0].tolist() == weight.grad[:, 0].tolist()


def test_embedding_gradients_by_finite_differences():
    indices = mt.tensor([[0, 2, 2], [3, 2, 1]])
    gradchecks(lambda w: F.embedding(indices, w) ** 2, RNG.standard_normal((4, 3)))  # (padding_idx: no gradient by design)
    gradchecks(lambda w, s: F.embedding_bag(mt.tensor([0, 2, 2, 3, 1]), w, mt.tensor([0, 2]), mode="sum",
                                            per_sample_weights=s) ** 2, RNG.standard_normal((4, 3)), RNG.standard_normal(5))
    gradchecks(lambda w: F.embedding_bag(indices, w, mode="mean") ** 2, RNG.standard_normal((4, 3)))
    gradchecks(lambda w: F.embedding_bag(indices, w, mode="max"), RNG.standard_normal((4, 3)), second=False)


def test_embedding_errors_as_pytorch():
    weight = mt.randn(5, 2)
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        F.embedding_bag(mt.tensor([[0, 1]]), weight, mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(mt.tensor([0, 1]), weight)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(mt.tensor([[0, 1]]), weight, mt.tensor([0]))
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(mt.tensor([[0, 1]]), weight, per_sample_weights=mt.ones(1, 2))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(mt.tensor([[0, 1]]), weight, mode="median")
    with pytest.raises(IndexError, match="index out of range"):
        F.embedding(mt.tensor([5]), weight)
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.Embedding(5, 2, sparse=True)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 2, padding_idx=5)
    frozen = nn.EmbeddingBag.from_pretrained(mt.ones(3, 2), mode="sum")
    assert not frozen.weight.requires_grad and frozen(mt.tensor([[0, 1]])).tolist() == [[2.0, 2.0]]


# ----- nn.utils -----

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
