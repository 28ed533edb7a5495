"""Optional parity with PyTorch: same weights in, same outputs, gradients, running stats, reprs and state_dict keys out."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional


def to_torch(t, grad=False):
    return torch.tensor(np.array(t.detach().numpy()), requires_grad=grad)


def copy_weights(ours, theirs):
    """Loads our state_dict into the twin: the keys, their order and the shapes must agree."""
    state = ours.state_dict()
    assert list(state) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.tensor(np.array(v.numpy())) for k, v in state.items()})


def compare(ours, theirs, x, rtol=1e-10, atol=1e-12):
    """Forward and backward (input and parameter gradients) of twin modules in float64."""
    ours.double()
    theirs.double()
    copy_weights(ours, theirs)
    xm = mt.tensor(x, dtype=mt.float64, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ym, yt = ours(xm), theirs(xt)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol)
    seed = np.random.default_rng(1).standard_normal(yt.shape)
    ym.backward(mt.tensor(seed))
    yt.backward(torch.tensor(seed))
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=atol)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=rtol, atol=atol, err_msg=name)
    for (name, b), (_, c) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(b.numpy(), c.numpy(), rtol=rtol, atol=atol, err_msg=name)


RNG = np.random.default_rng(0)

LAYERS = [
    (lambda m: m.Linear(5, 3), (4, 5)),
    (lambda m: m.Linear(5, 3, bias=False), (2, 4, 5)),
    (lambda m: m.Conv2d(4, 6, 3, stride=2, padding=1, dilation=1, groups=2), (2, 4, 7, 7)),
    (lambda m: m.Conv2d(2, 3, (2, 3), padding="same", dilation=2), (1, 2, 6, 6)),
    (lambda m: m.BatchNorm1d(3), (5, 3)),
    (lambda m: m.BatchNorm1d(3, momentum=None), (5, 3, 4)),
    (lambda m: m.BatchNorm2d(2, affine=False), (3, 2, 3, 3)),
    (lambda m: m.BatchNorm2d(2, bias=False), (3, 2, 2, 2)),
    (lambda m: m.LayerNorm(4, bias=False), (3, 4)),
    (lambda m: m.LayerNorm((3, 4)), (2, 3, 4)),
    (lambda m: m.GELU(), (3, 4)),
    (lambda m: m.GELU(approximate="tanh"), (3, 4)),
    (lambda m: m.LeakyReLU(0.2), (3, 4)),
    (lambda m: m.Softmax(dim=1), (3, 4)),
    (lambda m: m.LogSoftmax(dim=0), (3, 4)),
    (lambda m: m.MaxPool2d(3, stride=2, padding=1), (2, 2, 7, 7)),
    (lambda m: m.MaxPool2d(2, ceil_mode=True), (1, 2, 5, 5)),
    (lambda m: m.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 2, 7, 7)),
    (lambda m: m.AdaptiveAvgPool2d((3, 2)), (2, 2, 7, 5)),
    (lambda m: m.Flatten(), (2, 3, 4)),
]


@pytest.mark.parametrize("make, shape", LAYERS, ids=lambda v: repr(v(tnn)) if callable(v) else str(v))
def test_layer_matches_pytorch(make, shape):
    ours, theirs = make(nn), make(tnn)
    assert repr(ours) == repr(theirs)
    compare(ours, theirs, RNG.standard_normal(shape))
    ours.eval()
    theirs.eval()
    compare(ours, theirs, RNG.standard_normal(shape))


def test_model_state_dict_round_trip_and_training_step():
    def build(m):
        return m.Sequential(
            m.Conv2d(1, 4, 3, padding=1), m.BatchNorm2d(4), m.ReLU(), m.MaxPool2d(2), m.Flatten(),
            m.Linear(16, 8), m.LayerNorm(8), m.GELU(), m.Dropout(0.0), m.Linear(8, 3),
        )

    ours, theirs = build(nn), build(tnn)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
    ]
    x = RNG.standard_normal((6, 1, 4, 4))
    y = np.array([0, 1, 2, 0, 1, 2])
    compare(ours, theirs, x)
    # And back: PyTorch's weights load into ours.
    theirs_state = {k: mt.tensor(v.numpy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(theirs_state)
    loss_ours = F.cross_entropy(ours(mt.tensor(x)), mt.tensor(y), label_smoothing=0.1)
    loss_theirs = tF.cross_entropy(theirs(torch.tensor(x)), torch.tensor(y), label_smoothing=0.1)
    np.testing.assert_allclose(loss_ours.item(), loss_theirs.item(), rtol=1e-10)


def test_embedding_matches_pytorch():
    ours, theirs = nn.Embedding(6, 3, padding_idx=2).double(), tnn.Embedding(6, 3, padding_idx=2).double()
    copy_weights(ours, theirs)
    idx = np.array([[2, 0, 5], [1, 2, 0]])
    ym, yt = ours(mt.tensor(idx)), theirs(torch.tensor(idx))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy())
    (ym * ym).sum().backward()
    (yt * yt).sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy())
    assert repr(ours) == repr(theirs)


LOSS_CASES = [
    ("cross_entropy", {}),
    ("cross_entropy", {"weight": [0.3, 1.0, 2.0, 0.7], "ignore_index": 2}),
    ("cross_entropy", {"label_smoothing": 0.25, "reduction": "sum"}),
    ("cross_entropy", {"weight": [0.3, 1.0, 2.0, 0.7], "label_smoothing": 0.25, "ignore_index": 0}),
    ("cross_entropy", {"weight": [0.3, 1.0, 2.0, 0.7], "reduction": "none"}),
    ("nll_loss", {"weight": [0.3, 1.0, 2.0, 0.7], "ignore_index": 1}),
]


@pytest.mark.parametrize("name, kwargs", LOSS_CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("spatial", [False, True])
def test_class_losses_match_pytorch(name, kwargs, spatial):
    shape = (3, 4, 2, 2) if spatial else (6, 4)
    x = RNG.standard_normal(shape)
    y = RNG.integers(0, 4, (shape[0],) + shape[2:])
    y.flat[0] = 0  # at least one target survives ignore_index
    y.flat[1] = 3
    ours_kwargs = {k: mt.tensor(v, dtype=mt.float64) if k == "weight" else v for k, v in kwargs.items()}
    theirs_kwargs = {k: torch.tensor(v, dtype=torch.float64) if k == "weight" else v for k, v in kwargs.items()}
    xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lm = getattr(F, name)(xm, mt.tensor(y), **ours_kwargs)
    lt = getattr(tF, name)(xt, torch.tensor(y), **theirs_kwargs)
    np.testing.assert_allclose(lm.detach().numpy(), lt.detach().numpy(), rtol=1e-10)
    lm.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("normalized", [True, False])
def test_probability_targets_match_pytorch(normalized):
    x, p = RNG.standard_normal((5, 3)), RNG.uniform(0.1, 1, (5, 3))
    if normalized:
        p /= p.sum(1, keepdims=True)
    for kwargs in ({}, {"label_smoothing": 0.2}, {"weight": [1.0, 0.5, 2.0]}):
        ours_kwargs = {k: mt.tensor(v, dtype=mt.float64) if k == "weight" else v for k, v in kwargs.items()}
        theirs_kwargs = {k: torch.tensor(v, dtype=torch.float64) if k == "weight" else v for k, v in kwargs.items()}
        xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        lm, lt = F.cross_entropy(xm, mt.tensor(p), **ours_kwargs), tF.cross_entropy(xt, torch.tensor(p), **theirs_kwargs)
        np.testing.assert_allclose(lm.item(), lt.item(), rtol=1e-10)
        lm.backward()
        lt.backward()
        np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


ELEMENTWISE_LOSSES = [
    ("mse_loss", {}), ("l1_loss", {"reduction": "sum"}), ("smooth_l1_loss", {"beta": 0.5}), ("huber_loss", {"delta": 0.5}),
    ("binary_cross_entropy_with_logits", {"pos_weight": [1.0, 3.0, 0.5]}),
    ("binary_cross_entropy_with_logits", {"weight": [0.2, 1.0, 2.0], "reduction": "none"}),
    ("binary_cross_entropy", {"weight": [0.2, 1.0, 2.0]}),
]


@pytest.mark.parametrize("name, kwargs", ELEMENTWISE_LOSSES, ids=lambda v: str(v))
def test_elementwise_losses_match_pytorch(name, kwargs):
    x = RNG.uniform(0.05, 0.95, (4, 3)) if name == "binary_cross_entropy" else RNG.standard_normal((4, 3)) * 2
    y = RNG.uniform(0, 1, (4, 3))
    ours_kwargs = {k: mt.tensor(v, dtype=mt.float64) if isinstance(v, list) else v for k, v in kwargs.items()}
    theirs_kwargs = {k: torch.tensor(v, dtype=torch.float64) if isinstance(v, list) else v for k, v in kwargs.items()}
    xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lm, lt = getattr(F, name)(xm, mt.tensor(y), **ours_kwargs), getattr(tF, name)(xt, torch.tensor(y), **theirs_kwargs)
    np.testing.assert_allclose(lm.detach().numpy(), lt.detach().numpy(), rtol=1e-10)
    lm.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_loss_module_reprs_and_state_dicts_match():
    for make in (lambda m: m.CrossEntropyLoss(), lambda m: m.MSELoss(), lambda m: m.BCEWithLogitsLoss(),
                 lambda m: m.SmoothL1Loss(), lambda m: m.Dropout(0.3), lambda m: m.ReLU(), lambda m: m.Identity()):
        assert repr(make(nn)) == repr(make(tnn))
    ours = nn.CrossEntropyLoss(weight=mt.ones(3))
    theirs = tnn.CrossEntropyLoss(weight=torch.ones(3))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
