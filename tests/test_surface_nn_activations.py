"""nn's activations and dropout variants against PyTorch: values and gradients with the same inputs, finite
differences in float64, in-place variants, modules' reprs and errors. (Losses: test_surface_nn_losses.py; embeddings:
test_surface_nn_embeddings.py; nn.utils: test_surface_nn_utils.py; recurrent layers, attention and transformers:
test_surface_nn_sequences.py.)"""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn

from nn_twins import assert_close, gradchecks, same_function

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional

RNG = np.random.default_rng(0)


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
