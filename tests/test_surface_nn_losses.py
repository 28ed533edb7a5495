"""nn's losses and distances (CTC too) against PyTorch: values and gradients with the same inputs and weights,
finite differences in float64, reductions, modules' reprs and errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn

from nn_twins import assert_close, gradchecks, probabilities, same_function

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional

RNG = np.random.default_rng(0)


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
