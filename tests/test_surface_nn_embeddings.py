"""nn's Embedding and EmbeddingBag against PyTorch, with the same weights: values, gradients, max_norm's in-place
renormalisation, padding_idx, per-sample weights, reprs and errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn

from nn_twins import assert_close, gradchecks

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional

RNG = np.random.default_rng(0)


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
