"""PyTorch's top-level forms of nn functions (mt.dropout(x, p, train), mt.kl_div(..., reduction=2), ...),
mt.gradient, mt.isin, sum_to_size: equal to the nn.functional computation they translate to, and to
PyTorch where it is installed. Their gradients are the op cases' (tests/op_cases)."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

# kl_div with reduction="mean" warns as PyTorch's nn.functional does
pytestmark = pytest.mark.filterwarnings("ignore:reduction. .mean. divides")

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 3, 8)).astype(np.float32)
IMG = RNG.standard_normal((2, 4, 6, 6)).astype(np.float32)
A, B = RNG.standard_normal((2, 4, 5)).astype(np.float32)
SIGN = np.array([1.0, -1.0, 1.0, -1.0], np.float32)


def _close(ours, theirs):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


# (name, args as numpy/python values, the nn.functional computation it must equal)
CASES = [
    ("dropout", (X, 0.5, False), lambda x, p, t: F.dropout(x, p, t)),
    ("alpha_dropout", (X, 0.3, False), lambda x, p, t: x),
    ("feature_dropout", (IMG, 0.3, False), lambda x, p, t: x),
    ("feature_alpha_dropout", (IMG, 0.3, False), lambda x, p, t: x),
    ("embedding", (A, np.array([[1, 3], [0, 0]])), lambda w, i: F.embedding(i, w)),
    ("embedding", (A, np.array([1, 3, 2]), 3), lambda w, i, p: F.embedding(i, w, padding_idx=p)),
    ("layer_norm", (X, [8]), lambda x, s: F.layer_norm(x, s)),
    ("group_norm", (IMG, 2), lambda x, g: F.group_norm(x, g)),
    ("batch_norm", (IMG, None, None, None, None, True, 0.1, 1e-5, False),
     lambda x, w, b, m, v, t, mo, e, c: F.batch_norm(x, None, None, training=True)),
    ("instance_norm", (IMG, None, None, None, None, True, 0.1, 1e-5, False),
     lambda x, w, b, m, v, u, mo, e, c: F.instance_norm(x)),
    ("rms_norm", (X, [8]), lambda x, s: F.rms_norm(x, s)),
    ("constant_pad_nd", (A, [1, 2], 3.0), lambda x, p, v: F.pad(x, p, value=v)),
    ("convolution", (IMG, RNG.standard_normal((3, 4, 3, 3)).astype(np.float32), None, [1, 1], [1, 1], [1, 1], False,
                     [0, 0], 1), lambda x, w, *rest: F.conv2d(x, w, padding=1)),
    ("convolution", (X, RNG.standard_normal((3, 2, 3)).astype(np.float32), None, [2], [1], [1], True, [1], 1),
     lambda x, w, *rest: F.conv_transpose1d(x, w, stride=2, padding=1, output_padding=1)),
    ("adaptive_max_pool1d", (X, 3), lambda x, s: F.adaptive_max_pool1d(x, s, return_indices=True)),
    ("max_pool1d", (X, 2), lambda x, k: F.max_pool1d(x, k)),
    ("max_pool2d", (IMG, 3, 2, 1), lambda x, k, s, p: F.max_pool2d(x, k, s, p)),
    ("max_pool1d_with_indices", (X, 2), lambda x, k: F.max_pool1d(x, k, return_indices=True)),
    ("kl_div", (A, np.abs(B)), lambda x, t: F.kl_div(x, t, reduction="none")),
    ("kl_div", (A, np.abs(B), 1), lambda x, t, r: F.kl_div(x, t, reduction="mean")),
    ("kl_div", (A, np.abs(B), 0), lambda x, t, r: F.kl_div(x, t, reduction="none")),
    ("kl_div", (A, np.abs(B), 2), lambda x, t, r: F.kl_div(x, t, reduction="sum")),
    ("binary_cross_entropy_with_logits", (A, np.abs(B) / 3, None, None, 2),
     lambda x, t, w, pw, r: F.binary_cross_entropy_with_logits(x, t, reduction="sum")),
    ("cosine_embedding_loss", (A, B, SIGN, 0.1, 0), lambda a, b, t, m, r: F.cosine_embedding_loss(a, b, t, m, reduction="none")),
    ("hinge_embedding_loss", (A, np.sign(B)), lambda x, t: F.hinge_embedding_loss(x, t, reduction="none")),
    ("hinge_embedding_loss", (A, np.sign(B), 0.5, 1), lambda x, t, m, r: F.hinge_embedding_loss(x, t, m)),
    ("margin_ranking_loss", (A[0], B[0], np.sign(A[1])),
     lambda a, b, t: F.margin_ranking_loss(a, b, t, reduction="none")),
    ("poisson_nll_loss", (A, np.abs(B), True, False, 1e-8, 1), lambda x, t, *rest: F.poisson_nll_loss(x, t)),
    ("triplet_margin_loss", (A, B, A[::-1].copy()), lambda a, p, n: F.triplet_margin_loss(a, p, n, reduction="none")),
    ("binary_cross_entropy_with_logits", (A, np.abs(B) / 3),
     lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none")),
]


def _tensors(args, module):
    return [module.tensor(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("name,args,functional", CASES, ids=[c[0] for c in CASES])
def test_top_level_form_is_the_functional_computation(name, args, functional):
    ours = getattr(mt, name)(*_tensors(args, mt))
    expected = functional(*_tensors(args, mt))
    ours = ours if isinstance(ours, tuple) else (ours,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for o, e in zip(ours, expected):
        np.testing.assert_array_equal(o.numpy(), e.numpy())


@pytest.mark.parametrize("name,args,functional", CASES, ids=[c[0] for c in CASES])
def test_top_level_form_matches_pytorch(name, args, functional):
    torch = pytest.importorskip("torch")
    _close(getattr(mt, name)(*_tensors(args, mt)), getattr(torch, name)(*_tensors(args, torch)))


def test_losses_are_unreduced_by_default_as_pytorchs_top_level_forms():
    assert mt.kl_div(mt.zeros(2, 3), mt.ones(2, 3)).shape == (2, 3)
    assert mt.cosine_embedding_loss(mt.ones(4, 2), mt.ones(4, 2), mt.ones(4)).shape == (4,)


def test_ctc_loss_integer_reduction_matches_its_name():
    log_probs = mt.tensor(RNG.standard_normal((6, 2, 4))).log_softmax(2)
    targets, lengths, target_lengths = mt.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2]
    for code, name in [(0, "none"), (1, "mean"), (2, "sum")]:
        np.testing.assert_array_equal(mt.ctc_loss(log_probs, targets, lengths, target_lengths, 0, code).numpy(),
                                      F.ctc_loss(log_probs, targets, lengths, target_lengths, 0, name).numpy())


def test_bad_reduction_code_names_the_function():
    with pytest.raises(ValueError, match=r"kl_div\(\): reduction must be 0"):
        mt.kl_div(mt.zeros(2), mt.ones(2), 3)


def test_dropout_requires_p_and_train_as_in_pytorch():
    with pytest.raises(TypeError):
        mt.dropout(mt.ones(2))
    kept = mt.dropout(mt.ones(1000), 0.5, True)
    assert set(np.unique(kept.numpy())) == {0.0, 2.0}


# ----- mt.gradient: numpy.gradient's estimates, differentiable -----

@pytest.mark.parametrize("kwargs", [{}, {"edge_order": 2}, {"spacing": 2.0}, {"spacing": [0.5, 3.0]},
                                    {"dim": 1}, {"dim": [1, 0], "spacing": [2.0, 1.0], "edge_order": 2}])
def test_gradient_is_numpys(kwargs):
    y = RNG.standard_normal((5, 4))
    ours = mt.gradient(mt.tensor(y), **kwargs)
    dims = kwargs.get("dim", [0, 1])
    dims = [dims] if isinstance(dims, int) else dims
    spacing = kwargs.get("spacing", 1.0)
    spacing = spacing if isinstance(spacing, list) else [spacing] * len(dims)
    expected = np.gradient(y, *spacing, axis=tuple(dims), edge_order=kwargs.get("edge_order", 1))
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    assert isinstance(ours, tuple) and len(ours) == len(dims)
    for o, e in zip(ours, expected):
        np.testing.assert_allclose(o.numpy(), e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_with_coordinates_is_numpys(edge_order):
    y, x = RNG.standard_normal(6), np.array([0.0, 0.5, 2.0, 2.5, 4.0, 7.0])
    (ours,) = mt.gradient(mt.tensor(y), spacing=(mt.tensor(x),), edge_order=edge_order)
    np.testing.assert_allclose(ours.numpy(), np.gradient(y, x, edge_order=edge_order), rtol=1e-12, atol=1e-12)


def test_gradient_of_integers_is_float_and_short_dims_are_refused():
    assert mt.gradient(mt.tensor([1, 4, 9, 16]))[0].tolist() == [3.0, 4.0, 6.0, 7.0]
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        mt.gradient(mt.ones(3, 2), edge_order=2)
    with pytest.raises(RuntimeError, match="list of length 3"):
        mt.gradient(mt.ones(3, 4), spacing=[1.0, 2.0, 3.0])


def test_gradient_matches_pytorch():
    torch = pytest.importorskip("torch")
    y = RNG.standard_normal((4, 5))
    for kwargs in [{}, {"edge_order": 2, "spacing": [2.0, 0.5]}, {"dim": 1}]:
        _close(mt.gradient(mt.tensor(y), **kwargs), torch.gradient(torch.tensor(y), **kwargs))


# ----- isin, resolve_neg, sum_to_size -----

def test_isin():
    elements = np.array([[1, 2, 5], [3, 4, 2]])
    assert mt.isin(mt.tensor(elements), mt.tensor([2, 3])).numpy().tolist() == np.isin(elements, [2, 3]).tolist()
    assert mt.isin(mt.tensor(elements), 2, invert=True).numpy().tolist() == (elements != 2).tolist()
    assert mt.isin(2, mt.tensor(elements)).item() is True
    with pytest.raises(TypeError, match="at least one of elements or test_elements"):
        mt.isin([1], [1])
    torch = pytest.importorskip("torch")
    assert torch.isin(torch.tensor(elements), torch.tensor([2, 3])).tolist() == \
        mt.isin(mt.tensor(elements), mt.tensor([2, 3])).tolist()


def test_resolve_neg_and_sum_to_size():
    x = mt.tensor(RNG.standard_normal((2, 4, 3)))
    assert mt.resolve_neg(x) is x and x.resolve_neg() is x
    np.testing.assert_allclose(x.sum_to_size(4, 1).numpy(), x.numpy().sum(axis=(0, 2))[:, None])
    assert x.sum_to_size((2, 4, 3)) is x
    with pytest.raises(RuntimeError, match=r"sum_to_size: size \[5\] is not expandable to size \[2, 4, 3\]"):
        x.sum_to_size(5)
    torch = pytest.importorskip("torch")
    _close(x.sum_to_size(1, 4, 1), torch.tensor(x.numpy()).sum_to_size(1, 4, 1))
