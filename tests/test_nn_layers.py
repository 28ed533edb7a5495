"""Layers: default initialisation, forward semantics against numpy, train/eval behaviour, gradients (float64)."""
import math

import numpy as np
import pytest
from scipy.special import erf

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn
from minitorch.autograd import gradcheck, gradgradcheck


def double(*shape, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    return mt.tensor(rng.standard_normal(shape) * scale, dtype=mt.float64, requires_grad=True)


def check_module(module, x, second_order=True):
    """First (and second) order gradients wrt the input and every parameter, in float64."""
    params = [p for p in module.parameters() if p.requires_grad]
    fn = lambda inp, *ps: module(inp)  # noqa: E731  (the params are perturbed in place)
    assert gradcheck(fn, (x, *params))
    if second_order:
        assert gradgradcheck(fn, (x, *params))


# ----- default initialisation -----

@pytest.mark.parametrize("make, fan_in", [
    (lambda: nn.Linear(300, 200), 300),
    (lambda: nn.Conv2d(8, 64, 5), 8 * 25),
    (lambda: nn.Conv2d(8, 64, (3, 2), groups=2), 4 * 6),
])
def test_linear_and_conv_default_init_is_pytorchs(make, fan_in):
    mt.manual_seed(0)
    layer = make()
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) gives exactly this bound
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.95 * bound
    np.testing.assert_allclose(w.std(), bound / math.sqrt(3), rtol=0.05)
    assert abs(w.mean()) < 0.05 * bound


def test_init_follows_manual_seed():
    mt.manual_seed(3)
    a = nn.Linear(5, 4).weight.detach().numpy().copy()
    mt.manual_seed(3)
    b = nn.Linear(5, 4).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


def test_embedding_init_and_padding_row():
    mt.manual_seed(0)
    emb = nn.Embedding(2000, 16, padding_idx=3)
    w = emb.weight.detach().numpy()
    assert np.all(w[3] == 0)
    np.testing.assert_allclose(w.std(), 1.0, rtol=0.03)
    assert abs(w.mean()) < 0.03


def test_batchnorm_initial_state():
    bn = nn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1, 1, 1] and bn.bias.tolist() == [0, 0, 0]
    assert bn.running_mean.tolist() == [0, 0, 0] and bn.running_var.tolist() == [1, 1, 1]
    assert bn.num_batches_tracked.dtype == mt.int64 and bn.num_batches_tracked.item() == 0
    assert bn.weight.requires_grad and not bn.running_mean.requires_grad


# ----- Linear, Flatten, Identity -----

def test_linear_forward_and_errors():
    layer = nn.Linear(3, 2)
    x = mt.randn(4, 5, 3)
    expected = x.numpy() @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
    np.testing.assert_allclose(layer(x).detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert nn.Linear(3, 2, bias=False).bias is None
    with pytest.raises(mt.ShapeError, match=r"linear: input of shape \(4, 2\) cannot be multiplied by weight of shape \(2, 3\)"):
        layer(mt.randn(4, 2))


def test_linear_gradients():
    check_module(nn.Linear(3, 2).double(), double(4, 3))


def test_flatten_and_identity():
    x = mt.randn(2, 3, 4, 5)
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 2)(x).shape == (24, 5)
    assert nn.Identity(54, unused="x")(x) is x


# ----- activations -----

def test_activation_values():
    values = np.linspace(-4, 4, 17)
    x = mt.tensor(values, dtype=mt.float64)
    np.testing.assert_allclose(nn.ReLU()(x).numpy(), np.maximum(values, 0))
    np.testing.assert_allclose(nn.LeakyReLU(0.2)(x).numpy(), np.where(values > 0, values, 0.2 * values))
    np.testing.assert_allclose(nn.GELU()(x).numpy(), values * 0.5 * (1 + erf(values / math.sqrt(2))), rtol=1e-12)
    tanh_form = 0.5 * values * (1 + np.tanh(math.sqrt(2 / math.pi) * (values + 0.044715 * values**3)))
    np.testing.assert_allclose(nn.GELU("tanh")(x).numpy(), tanh_form, rtol=1e-12)
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), 1 / (1 + np.exp(-values)))
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), np.tanh(values))
    m = mt.tensor(values.reshape(1, -1), dtype=mt.float64)
    expected = np.exp(values) / np.exp(values).sum()
    np.testing.assert_allclose(nn.Softmax(dim=1)(m).numpy()[0], expected)
    np.testing.assert_allclose(nn.LogSoftmax(dim=-1)(m).numpy()[0], np.log(expected))
    with pytest.raises(ValueError, match="approximate"):
        nn.GELU("fast")


def test_softmax_without_dim_warns_and_picks_pytorchs_dim():
    x = mt.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension"):
        y = F.softmax(x)
    np.testing.assert_allclose(y.sum(dim=1).numpy(), [1, 1], rtol=1e-6)


@pytest.mark.parametrize("layer", [nn.GELU(), nn.GELU("tanh"), nn.Sigmoid(), nn.Tanh(), nn.Softmax(1), nn.LogSoftmax(0)],
                         ids=lambda m: repr(m))
def test_smooth_activation_gradients(layer):
    check_module(layer, double(3, 4))


@pytest.mark.parametrize("layer", [nn.ReLU(), nn.LeakyReLU(0.1)], ids=repr)
def test_piecewise_activation_gradients(layer):
    values = (np.random.default_rng(1).permutation(12) - 5.5) * 0.3  # away from the kink
    check_module(layer, mt.tensor(values.reshape(3, 4), dtype=mt.float64, requires_grad=True), second_order=False)


# ----- Dropout -----

def test_dropout_train_and_eval():
    mt.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = mt.ones(200, 100)
    y = drop(x).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.75)
    drop.eval()
    assert drop(x) is x
    assert nn.Dropout(1.0)(x).numpy().sum() == 0
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_dropout_mask_follows_seed_and_gradient_uses_it():
    x = double(5, 6)
    mt.manual_seed(7)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    mt.manual_seed(7)
    again = F.dropout(x, 0.5).detach().numpy()
    np.testing.assert_array_equal(y.detach().numpy(), again)
    np.testing.assert_allclose(x.grad.numpy(), (again != 0) * 2.0)


# ----- BatchNorm -----

def test_batchnorm1d_running_stats_by_hand():
    bn = nn.BatchNorm1d(2, momentum=0.1)
    batches = [np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 7.0]]), np.array([[0.0, 1.0], [2.0, -1.0], [4.0, 3.0]])]
    mean, var = np.zeros(2), np.ones(2)
    for batch in batches:
        out = bn(mt.tensor(batch)).detach().numpy()
        normalized = (batch - batch.mean(0)) / np.sqrt(batch.var(0) + 1e-5)
        np.testing.assert_allclose(out, normalized, rtol=1e-5, atol=1e-6)
        mean = 0.9 * mean + 0.1 * batch.mean(0)
        var = 0.9 * var + 0.1 * batch.var(0, ddof=1)
    np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-6)
    assert bn.num_batches_tracked.item() == 2
    bn.eval()
    probe = np.array([[1.0, 1.0], [2.0, 0.0]])
    np.testing.assert_allclose(bn(mt.tensor(probe)).detach().numpy(), (probe - mean) / np.sqrt(var + 1e-5), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 2  # eval does not count batches


def test_batchnorm_momentum_none_is_a_cumulative_average():
    bn = nn.BatchNorm2d(1, momentum=None)
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((2, 1, 3, 3)) * (i + 1) + i for i in range(3)]
    for b in batches:
        bn(mt.tensor(b, dtype=mt.float32))
    np.testing.assert_allclose(bn.running_mean.numpy(), [np.mean([b.mean() for b in batches])], rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), [np.mean([b.var(ddof=1) for b in batches])], rtol=1e-5)


def test_batchnorm_3d_input_and_affine_parameters():
    bn = nn.BatchNorm1d(3)
    with mt.no_grad():
        bn.weight.copy_(mt.tensor([1.0, 2.0, 3.0]))
        bn.bias.copy_(mt.tensor([0.0, -1.0, 1.0]))
    x = np.random.default_rng(2).standard_normal((4, 3, 5))
    out = bn(mt.tensor(x, dtype=mt.float32)).detach().numpy()
    normalized = (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5)
    expected = normalized * np.array([1, 2, 3])[None, :, None] + np.array([0, -1, 1])[None, :, None]
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean((0, 2)), rtol=1e-5)


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval():
    bn = nn.BatchNorm1d(2, affine=False, track_running_stats=False).eval()
    assert list(bn.state_dict()) == [] and bn.weight is None
    x = np.array([[1.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(bn(mt.tensor(x)).numpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-5)


def test_batchnorm_errors():
    with pytest.raises(ValueError, match=r"BatchNorm2d: expected 4D input \(got 2D input of shape \(3, 2\)\)"):
        nn.BatchNorm2d(2)(mt.randn(3, 2))
    with pytest.raises(mt.ShapeError, match=r"expected 4 channels .* shape \(3, 2\)"):
        nn.BatchNorm1d(4)(mt.randn(3, 2))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(2)(mt.randn(1, 2))


@pytest.mark.parametrize("make, shape", [(lambda: nn.BatchNorm1d(3), (4, 3)), (lambda: nn.BatchNorm1d(2), (3, 2, 2)),
                                         (lambda: nn.BatchNorm2d(2), (2, 2, 2, 2))])
def test_batchnorm_gradients_train_and_eval(make, shape):
    bn = make().double()
    with mt.no_grad():
        bn.weight.copy_(mt.tensor(np.linspace(0.5, 1.5, bn.num_features)))
        bn.bias.copy_(mt.tensor(np.linspace(-0.2, 0.3, bn.num_features)))
    check_module(bn, double(*shape))
    bn.eval()
    check_module(bn, double(*shape, seed=1))


# ----- LayerNorm -----

def test_layernorm_forward_and_errors():
    ln = nn.LayerNorm((3, 4))
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    mean = x.mean((1, 2), keepdims=True)
    expected = (x - mean) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(mt.tensor(x, dtype=mt.float32)).detach().numpy(), expected, rtol=1e-4, atol=1e-5)
    assert list(ln.state_dict()) == ["weight", "bias"] and ln.weight.shape == (3, 4)
    with pytest.raises(mt.ShapeError, match=r"normalized_shape=\[3, 4\].*got input of size \[2, 4, 3\]"):
        ln(mt.randn(2, 4, 3))


def test_layernorm_gradients():
    ln = nn.LayerNorm(4).double()
    with mt.no_grad():
        ln.weight.copy_(mt.tensor([0.5, 1.0, 1.5, 2.0]))
    check_module(ln, double(3, 4))


# ----- Embedding -----

def test_embedding_lookup_and_padding_gets_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=0).double()
    with mt.no_grad():
        emb.weight[0] = 9.0  # a non-zero padding row is still looked up, but never trained
    idx = mt.tensor([[0, 2, 2], [4, 0, 1]])
    out = emb(idx)
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(out.detach().numpy(), emb.weight.detach().numpy()[idx.numpy()])
    out.sum().backward()
    np.testing.assert_array_equal(emb.weight.grad.numpy()[:, 0], [0, 1, 2, 0, 1])
    with pytest.raises(IndexError, match=r"indices must lie in \[0, 5\)"):
        emb(mt.tensor([5]))
    with pytest.raises(RuntimeError, match="integer index tensor"):
        emb(mt.tensor([0.0]))


def test_embedding_gradients():
    # Without padding_idx: with it, PyTorch (and we) deliberately drop the padding row's true gradient.
    emb = nn.Embedding(4, 2).double()
    idx = mt.tensor([0, 1, 3, 0])
    assert gradcheck(lambda w: F.embedding(idx, w), (emb.weight,))
    assert gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (emb.weight,))


def test_one_hot():
    out = F.one_hot(mt.tensor([0, 2, 1]), 4)
    assert out.dtype == mt.int64 and out.tolist() == [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]
    assert F.one_hot(mt.tensor([1, 3])).shape == (2, 4)
    with pytest.raises(RuntimeError, match="class values must be in"):
        F.one_hot(mt.tensor([4]), 3)


# ----- Conv2d and pooling -----

def test_conv2d_forward_against_a_direct_sum():
    conv = nn.Conv2d(2, 3, 3, stride=2, padding=1).double()
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 5))
    w, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    expected = np.zeros((1, 3, 3, 3))
    for o in range(3):
        for i in range(3):
            for j in range(3):
                expected[0, o, i, j] = np.sum(padded[0, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3] * w[o]) + b[o]
    np.testing.assert_allclose(conv(mt.tensor(x)).detach().numpy(), expected, rtol=1e-10)
    assert nn.Conv2D is nn.Conv2d


def test_conv2d_same_padding_and_repr():
    conv = nn.Conv2d(1, 2, 3, padding="same", bias=False)
    assert conv(mt.randn(1, 1, 6, 7)).shape == (1, 2, 6, 7)
    assert repr(conv) == "Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), padding=same, bias=False)"
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)


def test_conv2d_gradients():
    check_module(nn.Conv2d(2, 2, 2, padding=1, groups=2).double(), double(1, 2, 3, 3))


def test_pooling_layers():
    x = mt.tensor(np.arange(32.0).reshape(1, 2, 4, 4))
    assert nn.MaxPool2d(2)(x).tolist() == [[[[5, 7], [13, 15]], [[21, 23], [29, 31]]]]
    np.testing.assert_allclose(nn.AvgPool2d(2)(x).numpy()[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d(1)(x).numpy().ravel(), [7.5, 23.5])
    assert nn.AdaptiveAvgPool2d((2, 1))(x).shape == (1, 2, 2, 1)
    assert repr(nn.AdaptiveAvgPool2d(1)) == "AdaptiveAvgPool2d(output_size=1)"


def test_pooling_gradients():
    values = (np.random.default_rng(0).permutation(32) * 0.1).reshape(1, 2, 4, 4)  # distinct: max is differentiable
    x = mt.tensor(values, dtype=mt.float64, requires_grad=True)
    assert gradcheck(nn.MaxPool2d(2, stride=1), (x,))
    check_module(nn.AvgPool2d(2, padding=1), x)
    check_module(nn.AdaptiveAvgPool2d((3, 2)), x)


# ----- a small model trains -----

def test_small_cnn_trains():
    mt.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Dropout(0.1), nn.Linear(16, 2),
    )
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((16, 1, 4, 4)), dtype=mt.float32)
    y = mt.tensor((x.numpy()[:, 0, :2].sum((1, 2)) > 0).astype(np.int64))
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(30):
        model.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        with mt.no_grad():
            for p in model.parameters():
                p.sub_(p.grad, alpha=0.1)
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


# ----- nn.init -----

def test_calculate_gain_and_fans():
    init = nn.init
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init._calculate_fan_in_and_fan_out(mt.empty(16, 8, 3, 3)) == (72, 144)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(mt.empty(5))
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(mt.empty(3, 3), mode="fan_avg")


@pytest.mark.parametrize("initialiser, std", [
    (lambda w: nn.init.xavier_uniform_(w, gain=2.0), 2.0 * math.sqrt(2 / (400 + 300))),
    (lambda w: nn.init.xavier_normal_(w), math.sqrt(2 / (400 + 300))),
    (lambda w: nn.init.kaiming_uniform_(w, nonlinearity="relu"), math.sqrt(2) / math.sqrt(400)),
    (lambda w: nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"), math.sqrt(2) / math.sqrt(300)),
    (lambda w: nn.init.normal_(w, 1.0, 0.5), 0.5),
    (lambda w: nn.init.uniform_(w, -2.0, 2.0), 4 / math.sqrt(12)),
])
def test_initialisers_have_pytorchs_spread(initialiser, std):
    mt.manual_seed(0)
    w = nn.Parameter(mt.empty(300, 400))
    assert initialiser(w) is w
    np.testing.assert_allclose(w.detach().numpy().std(), std, rtol=0.03)


def test_uniform_initialisers_respect_their_bounds_and_constants():
    w = nn.Parameter(mt.empty(50, 60))
    nn.init.xavier_uniform_(w)
    assert np.abs(w.detach().numpy()).max() <= math.sqrt(6 / 110)
    nn.init.kaiming_uniform_(w, a=0.0)
    assert np.abs(w.detach().numpy()).max() <= math.sqrt(6 / 60)
    nn.init.constant_(w, 0.3)
    assert np.all(w.detach().numpy() == np.float32(0.3))
    assert nn.init.zeros_(w).detach().numpy().sum() == 0 and nn.init.ones_(w).detach().numpy().sum() == 3000
    assert w.requires_grad and w.is_leaf


# ----- gradient clipping -----

def test_clip_grad_norm_and_value():
    a, b = nn.Parameter(mt.zeros(2)), nn.Parameter(mt.zeros(1))
    a.grad, b.grad = mt.tensor([3.0, 0.0]), mt.tensor([4.0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(a.grad.numpy(), [0.6, 0.0], rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [0.8], rtol=1e-5)
    assert nn.utils.clip_grad_norm_([a, b], max_norm=10.0).item() == pytest.approx(1.0, rel=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [0.8], rtol=1e-5)  # under max_norm: unchanged
    a.grad = mt.tensor([-3.0, 0.5])
    assert nn.utils.clip_grad_norm_(a, 1.0, norm_type="inf").item() == 3.0
    a.grad = mt.tensor([-3.0, 0.5])
    nn.utils.clip_grad_value_([a], 1.0)
    assert a.grad.tolist() == [-1.0, 0.5]
