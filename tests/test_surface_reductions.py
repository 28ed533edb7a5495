"""Reductions, scans, sorting and statistics against PyTorch: values, dtypes, shapes, gradients, errors.

The finite-difference checks (first and second order, forward mode) are the op
cases in tests/op_cases/reductions.py; here the same names meet PyTorch itself.
"""
import numpy as np
import pytest

import minitorch as mt

from parity_reductions import parity, same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
X64 = RNG.standard_normal((2, 3, 4))
INTS = RNG.integers(-3, 4, (3, 5))
TIES = np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [0.0, 0.0, -1.0, 5.0, 5.0]], dtype=np.float32)
WITH_NAN = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 0.5, 0.5, 2.0]], dtype=np.float32)
ZEROS = np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [1.0, 2.0, 0.0, 4.0, 0.5]])


# ----- numpy-style aliases on every reduction (PyTorch's argument parser takes them) -----

@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "argmax", "argmin", "logsumexp", "var", "std",
                                  "nansum", "nanmean", "count_nonzero", "all", "any"])
def test_axis_and_keepdims_aliases(name):
    x = X.astype(np.float32) if name not in ("all", "any") else X > 0
    kwargs = {"axis": 1} if name == "count_nonzero" else {"axis": 1, "keepdims": True}
    parity(torch, name, x, **kwargs)


@pytest.mark.parametrize("name", ["max", "min", "median", "nanmedian", "mode", "kthvalue"])
def test_aliases_on_value_index_reductions(name):
    args = (2,) if name == "kthvalue" else ()
    parity(torch, name, X.astype(np.float32), *args, axis=0, keepdims=True)


def test_alias_and_name_together_is_an_error():
    with pytest.raises(TypeError, match="both 'dim' and its alias 'axis'"):
        mt.sum(mt.ones(2, 2), dim=0, axis=1)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "logcumsumexp", "softmax", "log_softmax"])
def test_axis_alias_on_dim_functions(name):
    parity(torch, name, X, axis=1)


def test_max_returns_named_tuple():
    values, indices = mt.tensor(TIES).max(dim=1)
    result = mt.tensor(TIES).max(dim=1)
    assert result.values is values or np.array_equal(result.values.numpy(), values.numpy())
    assert type(result).__name__ == "max" and result._fields == ("values", "indices")
    parity(torch, "max", TIES, dim=1)
    parity(torch, "min", TIES, 0, True)


@pytest.mark.parametrize("call", [
    ("sum", X, {"dim": (0, 1)}), ("sum", X, {"dim": []}), ("sum", INTS, {}), ("prod", INTS, {"dim": 1}),
    ("prod", np.array([True, False]), {}), ("amax", X, {}), ("argmax", X, {"keepdim": True}),
    ("var", X, {"dim": 0, "unbiased": False}), ("std", X, {"correction": 0, "dim": (0, 1)}),
])
def test_reduction_forms(call):
    name, x, kwargs = call
    parity(torch, name, x, **kwargs)


def test_var_reads_a_bool_as_unbiased():
    parity(torch, "var", X, False, method=True)
    parity(torch, "std", X, 1, True, True, method=True)


def test_prod_gradient_with_zeros_matches_pytorch():
    parity(torch, "prod", ZEROS, dim=1)
    parity(torch, "prod", ZEROS)


# ----- scans -----

@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("x", [X, X64.astype(np.float32), INTS, ZEROS, np.array([True, False, True])])
def test_cumsum_cumprod(name, x):
    parity(torch, name, x, dim=-1)


def test_cumsum_dtype_and_0d():
    parity(torch, "cumsum", INTS, 1, dtype=torch.float64 if False else None)
    assert mt.cumsum(mt.tensor([1, 2, 3]), 0, dtype=mt.float32).dtype == mt.float32
    parity(torch, "cumsum", np.array(2.5), 0)
    parity(torch, "cumprod", np.array(2.5), dim=0)


def test_cumprod_second_order_with_zeros_matches_pytorch():
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    xm, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (gm,), (gt,) = mt.autograd.grad(xm.cumprod(0).sum(), xm, create_graph=True), torch.autograd.grad(
        xt.cumprod(0).sum(), xt, create_graph=True)
    np.testing.assert_allclose(gm.detach().numpy(), gt.detach().numpy())
    np.testing.assert_allclose(mt.autograd.grad(gm.sum(), xm)[0].numpy(), torch.autograd.grad(gt.sum(), xt)[0].numpy())


def test_in_place_scans():
    for name in ("cumsum_", "cumprod_"):
        ours, theirs = mt.tensor(X), torch.tensor(X)
        result = getattr(ours, name)(1)
        getattr(theirs, name)(1)
        assert result is ours
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # the NaN gradient at -inf, as PyTorch's
@pytest.mark.parametrize("x", [X, X64, np.array([-np.inf, -np.inf, 1.0]), np.array([-np.inf, 0.0, 1.0])])
def test_logcumsumexp(x):
    parity(torch, "logcumsumexp", x, dim=-1)


def test_logcumsumexp_refuses_integers():
    same_error(torch, "logcumsumexp", INTS, 0)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("x", [X, TIES, WITH_NAN, INTS])
def test_cummax_cummin(name, x):
    parity(torch, name, x, dim=1)
    parity(torch, name, x, 0)


def test_cummax_0d():
    parity(torch, "cummax", np.array(3.0), 0)


# ----- differences and the trapezoid rule -----

@pytest.mark.parametrize("kwargs", [{}, {"n": 2}, {"n": 0}, {"dim": 0}, {"n": 3, "dim": 1}])
def test_diff(kwargs):
    parity(torch, "diff", X, **kwargs)


def test_diff_prepend_append_and_bools():
    parity(torch, "diff", X, prepend=X[:, :1].copy(), append=X[:, :2].copy())
    parity(torch, "diff", np.array([True, False, False]))
    parity(torch, "diff", INTS, dim=0)
    same_error(torch, "diff", X, prepend=np.zeros(4))
    same_error(torch, "diff", X, prepend=np.zeros((2, 1)))


@pytest.mark.parametrize("name", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_trapezoid_rule(name):
    parity(torch, name, X)
    parity(torch, name, X, dim=0)
    parity(torch, name, X, np.cumsum(RNG.uniform(0.1, 1.0, 4)))
    parity(torch, name, X, np.cumsum(RNG.uniform(0.1, 1.0, (3, 4)), axis=1))
    parity(torch, name, INTS)
    if name != "trapz":
        parity(torch, name, X, dx=0.5)
    same_error(torch, name, X, np.array([1.0, 2.0]))


# ----- sorting and order statistics -----

DISTINCT = RNG.permutation(20).reshape(4, 5).astype(np.float64) * 0.37 - 2.0


@pytest.mark.parametrize("kwargs", [{}, {"dim": 0}, {"descending": True}, {"dim": 0, "descending": True, "stable": True}])
@pytest.mark.parametrize("x", [DISTINCT, TIES, WITH_NAN, INTS])
def test_sort(x, kwargs):
    if x is INTS or x is TIES:
        kwargs = dict(kwargs, stable=True)  # ties: only the stable order is specified
    parity(torch, "sort", x, **kwargs)
    parity(torch, "argsort", x, **kwargs)


def test_sort_0d_and_msort():
    parity(torch, "sort", np.array(3.0))
    parity(torch, "msort", DISTINCT)


@pytest.mark.parametrize("kwargs", [{"k": 2}, {"k": 3, "dim": 0}, {"k": 2, "largest": False}, {"k": 0}, {"k": 5}])
def test_topk(kwargs):
    parity(torch, "topk", DISTINCT, **kwargs)


def test_topk_with_nan_and_errors():
    parity(torch, "topk", np.array([1.0, np.nan, 3.0, 2.0]), 2)
    same_error(torch, "topk", DISTINCT, 6)
    same_error(torch, "kthvalue", DISTINCT, 0)
    same_error(torch, "kthvalue", DISTINCT, 6)


@pytest.mark.parametrize("args", [(1,), (3,), (5,), (2, 0), (4, 0, True)])
def test_kthvalue(args):
    parity(torch, "kthvalue", DISTINCT, *args)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("x", [DISTINCT, WITH_NAN, np.array([[np.nan, np.nan], [1.0, 2.0]]), INTS])
def test_median_along_a_dim(name, x):
    ours, theirs = parity(torch, name, x, 1, grad=x is DISTINCT)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    parity(torch, name, x, dim=0, keepdim=True, grad=False)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("x", [DISTINCT, TIES, WITH_NAN, np.array([[2.0, 1.0, 2.0], [2.0, 5.0, 0.0]]), np.array([]),
                               np.array([np.nan, 1.0, np.nan])])
def test_median_of_everything_shares_the_gradient_among_ties(name, x):
    parity(torch, name, x)


def test_median_0d():
    parity(torch, "median", np.array(3.0), 0)
    parity(torch, "median", np.array(3.0))


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 5.0]), TIES, INTS, DISTINCT,
                               np.array([1.0, 2.0, np.nan, np.nan])])
def test_mode(x):
    parity(torch, "mode", x)
    parity(torch, "mode", x, 0, True)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile(name, interpolation):
    q = np.array([0.0, 0.25, 0.5, 0.55, 0.95, 1.0])
    parity(torch, name, DISTINCT, q, interpolation=interpolation)
    parity(torch, name, DISTINCT, 0.3, dim=1, keepdim=True, interpolation=interpolation)
    parity(torch, name, DISTINCT, q, dim=0, keepdim=True, interpolation=interpolation)
    parity(torch, name, DISTINCT, np.array(0.7), keepdim=True, interpolation=interpolation)
    parity(torch, name, WITH_NAN.astype(np.float64), q, dim=1, interpolation=interpolation, grad=False)
    parity(torch, name, np.array([[np.nan, np.nan], [1.0, 2.0]]), 0.5, dim=1, interpolation=interpolation, grad=False)


def test_quantile_gradient_follows_the_stable_sort():
    parity(torch, "quantile", np.array([[1.0, 2.0, 2.0], [2.0, 5.0, 0.0]]), 0.5)


def test_quantile_errors():
    same_error(torch, "quantile", DISTINCT, 1.5)
    same_error(torch, "quantile", INTS, 0.5)
    same_error(torch, "quantile", DISTINCT, np.array([0.5], dtype=np.float32))
    with pytest.raises(ValueError, match="interpolation"):
        mt.quantile(mt.tensor(DISTINCT), 0.5, interpolation="cubic")


@pytest.mark.parametrize("kwargs", [{}, {"return_inverse": True}, {"return_counts": True},
                                    {"return_inverse": True, "return_counts": True, "sorted": False}])
def test_unique(kwargs):
    parity(torch, "unique", INTS, **kwargs)
    parity(torch, "unique", np.array([3.0, 1.0, 3.0, np.nan, np.nan]), grad=False, **kwargs)
    parity(torch, "unique", np.array([[1, 2], [1, 2], [0, 5]]), dim=0, **kwargs)
    parity(torch, "unique", INTS, dim=1, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"return_inverse": True}, {"return_counts": True},
                                    {"return_inverse": True, "return_counts": True}])
def test_unique_consecutive(kwargs):
    parity(torch, "unique_consecutive", np.array([1, 1, 2, 2, 3, 1, 1]), **kwargs)
    parity(torch, "unique_consecutive", np.array([[1, 1], [1, 2]]), **kwargs)
    parity(torch, "unique_consecutive", np.array([[1, 1], [1, 1], [2, 3]]), dim=0, **kwargs)
    parity(torch, "unique_consecutive", np.array([[1, 1, 2], [1, 1, 3]]), dim=1, **kwargs)
    parity(torch, "unique_consecutive", np.zeros(0, dtype=np.int64), **kwargs)


def test_unique_is_not_differentiable():
    x = mt.tensor([1.0, 2.0, 1.0], requires_grad=True)
    assert not mt.unique(x).requires_grad
    assert mt.tensor([2, 1, 2]).unique().tolist() == [1, 2]


# ----- statistics -----

@pytest.mark.parametrize("name", ["nansum", "nanmean"])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": (0, 1), "keepdim": True}])
@pytest.mark.filterwarnings("ignore:invalid value encountered", "ignore:divide by zero encountered")
def test_nansum_nanmean(name, kwargs):
    parity(torch, name, WITH_NAN, **kwargs)
    # A slice of NaNs only: the same values; NaN elements get a zero gradient (PyTorch: NaN where the slice's mean is NaN).
    parity(torch, name, np.array([[1.0, np.nan], [np.nan, np.nan]]), grad=name == "nansum", **kwargs)


def test_nansum_integers_and_nanmean_refusal():
    parity(torch, "nansum", INTS)
    same_error(torch, "nanmean", INTS)


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "correction": 0, "keepdim": True}, {"unbiased": False}])
def test_std_mean_var_mean(name, kwargs):
    parity(torch, name, X64, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"keepdim": True}])
def test_aminmax(kwargs):
    parity(torch, "aminmax", TIES, **kwargs)


def test_aminmax_refuses_empty():
    same_error(torch, "aminmax", np.zeros((0, 2)))


@pytest.mark.parametrize("kwargs", [{}, {"dim": 0}, {"dim": (0, 1)}, {"dim": -1}])
def test_count_nonzero(kwargs):
    parity(torch, "count_nonzero", INTS, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"correction": 0}, {"correction": 2}, {"fweights": np.array([1, 2, 1, 3])},
                                    {"aweights": np.array([0.5, 1.0, 1.0, 2.0])},
                                    {"fweights": np.array([1, 2, 1, 3]), "aweights": np.array([0.5, 1.0, 1.0, 2.0])}])
def test_cov(kwargs):
    parity(torch, "cov", X[:, :4], **kwargs)


def test_cov_forms_and_corrcoef():
    parity(torch, "cov", X[0])
    parity(torch, "cov", INTS)
    parity(torch, "corrcoef", X)
    parity(torch, "corrcoef", X[0])
    same_error(torch, "cov", X64)
    same_error(torch, "cov", X, fweights=np.array([1.0, 2.0, 1.0, 1.0]))


def test_bincount():
    parity(torch, "bincount", np.array([0, 1, 1, 3]))
    parity(torch, "bincount", np.array([0, 1, 1, 3]), minlength=6)
    parity(torch, "bincount", np.array([0, 1, 1, 3]), weights=np.array([0.5, 1.0, 1.0, 2.0], dtype=np.float32))
    parity(torch, "bincount", np.array([0, 1, 1, 3]), weights=np.array([1, 2, 3, 4]))
    parity(torch, "bincount", np.zeros(0, dtype=np.int64), minlength=3)
    same_error(torch, "bincount", np.array([-1, 1]))
    same_error(torch, "bincount", np.array([[1, 1]]))


def test_histc():
    parity(torch, "histc", np.array([1.0, 2.0, 1.0], dtype=np.float32))
    parity(torch, "histc", np.array([1.0, 2.0, 1.0, 7.0]), bins=4, min=0, max=3)
    parity(torch, "histc", np.array([2.0, 2.0]), bins=3)
    same_error(torch, "histc", np.array([1, 2]))


def test_histogram():
    x = np.array([1.0, 2.0, 1.0, 7.0], dtype=np.float32)
    parity(torch, "histogram", x, 3, grad=False)
    parity(torch, "histogram", x, 4, range=(0.0, 3.0), grad=False)
    parity(torch, "histogram", x, np.array([0.0, 1.0, 2.0, 3.0], dtype=np.float32), density=True, grad=False)
    parity(torch, "histogram", x, 3, weight=np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32), grad=False)
    parity(torch, "histogram", np.array([2.0, 2.0]), 2, grad=False)
    result = mt.histogram(mt.tensor(x), 3)
    assert result._fields == ("hist", "bin_edges")


@pytest.mark.parametrize("name", ["cummax", "cummin", "diff", "trapezoid", "cumulative_trapezoid"])
def test_axis_alias_on_scans(name):
    parity(torch, name, X, axis=0)


def test_histogramdd():
    points = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]], dtype=np.float32)
    parity(torch, "histogramdd", points, bins=[3, 3], weight=np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float32), grad=False)
    parity(torch, "histogramdd", points, bins=2, range=[0.0, 1.0, 0.0, 1.0], density=True, grad=False)
    ours = mt.histogramdd(mt.tensor(points), bins=[mt.tensor([0.0, 1.0, 2.0]), mt.tensor([0.0, 2.0])])
    theirs = torch.histogramdd(torch.tensor(points), bins=[torch.tensor([0.0, 1.0, 2.0]), torch.tensor([0.0, 2.0])])
    np.testing.assert_array_equal(ours.hist.numpy(), theirs.hist.numpy())
    assert ours._fields == ("hist", "bin_edges") and isinstance(ours.bin_edges, tuple)


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # 0 / 0 = NaN, as PyTorch's
def test_var_warns_without_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        result = mt.var(mt.tensor([1.0]))
    assert np.isnan(result.item())
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        torch.var(torch.tensor([1.0]))
