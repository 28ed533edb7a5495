"""Sampling: multinomial, normal, bernoulli, poisson, binomial, and the in-place random fills.

Each draws from `generator=` (an `mt.Generator`) or from the default generator
that `mt.manual_seed` seeds. Samples are constants: no gradient flows through
them (PyTorch gives these ops zero or no gradients too). The numbers are
reproducible under a seed but are not PyTorch's streams.
"""
import numpy as np

from .. import dtypes, random
from ..creation import check_placement
from ..tensor import Tensor
from .coercion import as_operand
from .in_place_ops import random_fill


def _probabilities(name, input):
    array = np.asarray(as_operand(input))
    if array.dtype.kind != "f":
        raise RuntimeError(f"{name}: expected a floating point tensor, got {dtypes.from_numpy_dtype(array.dtype)}")
    return array


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the categories of each row of `input` (non-negative weights, not necessarily summing to 1).

    Without replacement, each row's indices are distinct (drawn in order, each
    in proportion to the remaining weights). Returns int64, shape (num_samples,)
    or (rows, num_samples).

    >>> g = mt.Generator().manual_seed(0)
    >>> mt.multinomial(mt.tensor([0.0, 1.0, 0.0]), 2, replacement=True, generator=g)
    tensor([1, 1])
    >>> sorted(mt.multinomial(mt.tensor([1.0, 2.0, 3.0]), 3, generator=g).tolist())
    [0, 1, 2]
    """
    weights = _probabilities("multinomial", input)
    if weights.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got {weights.ndim}")
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample n_sample <= 0 samples (got {num_samples})")
    rows = np.atleast_2d(weights).astype(np.float64)
    categories = rows.shape[1]
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    totals = rows.sum(axis=1)
    if (totals <= 0).any():
        raise RuntimeError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
    rng = random.generator(generator)
    if replacement:
        # Inverse CDF, every row at once: offset row r by r so the rows' CDFs form one increasing array.
        cdf = np.cumsum(rows, axis=1)
        cdf /= cdf[:, -1:]  # the last entry is exactly 1.0, above every draw in [0, 1)
        offsets = np.arange(len(rows))[:, None]
        draws = rng.random((len(rows), num_samples)) + offsets
        samples = np.searchsorted((cdf + offsets).ravel(), draws.ravel(), side="right").reshape(draws.shape)
        samples -= offsets * categories
    else:
        if num_samples > categories:
            raise RuntimeError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
                               f"({num_samples} > {categories})")
        # Exponential races: the order of E_i / w_i is the order of drawing without replacement;
        # zero-weight categories come last (PyTorch also returns them once the others are used up).
        with np.errstate(divide="ignore"):
            keys = rng.standard_exponential(rows.shape) / rows
        samples = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    samples = samples.astype(np.int64)
    return Tensor._make(samples[0] if weights.ndim == 1 else samples)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None, pin_memory=False,
           requires_grad=False):
    """Normal random numbers: tensor means and/or stds (broadcast), or two numbers and a `size`.

    >>> g = mt.Generator().manual_seed(0)
    >>> mt.normal(mt.zeros(2, 3), 1.0, generator=g).shape, mt.normal(2.0, 3.0, size=(4,)).shape
    (minitorch.Size([2, 3]), minitorch.Size([4]))
    >>> mt.normal(mt.tensor([0.0, 10.0]), mt.tensor([0.0, 0.0]))
    tensor([ 0., 10.])
    """
    check_placement(device, layout, pin_memory)
    tensors = [np.asarray(v) for v in (mean, std) if isinstance(v, Tensor)]
    if not tensors:
        if size is None:
            raise TypeError("normal() with a number mean and std needs a size")
        out_dtype = dtypes.default_float.numpy if dtype is None else dtypes.to_numpy_dtype(dtype)
        shape = tuple(size)
    else:
        if size is not None:
            raise TypeError("normal(): size is only for a number mean and std")
        if any(t.dtype.kind != "f" for t in tensors):
            raise RuntimeError("normal expects floating point mean and std tensors")
        out_dtype = np.result_type(*tensors)
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
    std_values = np.asarray(std)
    if (std_values < 0).any():
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std_values.min()}")
    values = random.generator(generator).normal(np.asarray(mean, np.float64), std_values, shape).astype(out_dtype)
    result = Tensor._make(values)
    return result.requires_grad_(True) if requires_grad else result


def bernoulli(input, p=None, *, generator=None):
    """1 with probability `input` (elementwise), else 0, in `input`'s dtype; with `p`, probability p everywhere.

    >>> mt.bernoulli(mt.tensor([0.0, 1.0, 1.0]))
    tensor([0., 1., 1.])
    """
    probs = _probabilities("bernoulli", input)
    if p is not None:
        probs = np.full(probs.shape, p, np.float64)
    if ((probs < 0) | (probs > 1) | np.isnan(probs)).any():
        raise RuntimeError("bernoulli: expected all probabilities in [0, 1]")
    draws = random.generator(generator).random(probs.shape) < probs
    return Tensor._make(draws.astype(np.asarray(input).dtype))


def poisson(input, generator=None):
    """A Poisson sample for each rate in `input` (non-negative), in `input`'s dtype.

    >>> mt.poisson(mt.tensor([0.0, 0.0]))
    tensor([0., 0.])
    >>> g = mt.Generator().manual_seed(0)
    >>> 4.5 < float(mt.poisson(mt.full((1000,), 5.0), generator=g).mean()) < 5.5
    True
    """
    rates = _probabilities("poisson", input)
    if (rates < 0).any() or np.isnan(rates).any():
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    return Tensor._make(random.generator(generator).poisson(rates).astype(rates.dtype))


def binomial(count, prob, generator=None):
    """A Binomial(count, prob) sample per element (float tensors of the same shape, as PyTorch).

    >>> mt.binomial(mt.tensor([5.0, 5.0]), mt.tensor([0.0, 1.0]))
    tensor([0., 5.])
    """
    counts, probs = _probabilities("binomial", count), _probabilities("binomial", prob)
    if ((probs < 0) | (probs > 1)).any() or (counts < 0).any():
        raise RuntimeError("binomial: expected counts >= 0 and probabilities in [0, 1]")
    draws = random.generator(generator).binomial(counts.astype(np.int64), probs)
    return Tensor._make(draws.astype(counts.dtype))


def multinomial_method(self, num_samples, replacement=False, *, generator=None):
    """`mt.multinomial(self, ...)`: indices drawn from the weights in each row of this tensor.

    >>> mt.tensor([0.0, 0.0, 1.0]).multinomial(1)
    tensor([2])
    """
    return multinomial(self, num_samples, replacement, generator=generator)


def bernoulli_method(self, p=None, *, generator=None):
    """`mt.bernoulli(self)`: 1 with the probability each element holds, else 0.

    >>> mt.tensor([1.0, 0.0]).bernoulli()
    tensor([1., 0.])
    """
    return bernoulli(self, p, generator=generator)


def _random_integers(rng, shape, dtype, *bounds):
    """random_(), random_(to), random_(from, to)."""
    if len(bounds) > 2:
        raise TypeError(f"random_ takes at most 2 bounds (from, to), got {len(bounds)}")
    if len(bounds) == 0:  # bounded only by the dtype (PyTorch's rule: floats up to their exact integers)
        high = {"f": 2 ** (np.finfo(dtype).nmant + 1) + 1, "b": 2}.get(dtype.kind) or int(np.iinfo(dtype).max) + 1
        low, high = 0, min(high, 2**63 - 1)
    else:
        low, high = (0, *bounds) if len(bounds) == 1 else bounds
        low, high = int(low), int(high)
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return rng.integers(low, high, size=shape, dtype=np.int64)


_random_fill_integers = random_fill("random_", _random_integers)


def random_(self, from_=None, /, to=None, *, generator=None):
    """Fills this tensor with integers in [from, to) (`random_(to)`: from 0; no bound: the dtype's range).

    >>> g = mt.Generator().manual_seed(0)
    >>> x = mt.zeros(100).random_(3, 6, generator=g)
    >>> sorted(set(x.tolist()))
    [3.0, 4.0, 5.0]
    """
    bounds = [b for b in (from_, to) if b is not None]
    if from_ is None and to is not None:
        bounds = [0, to]
    return _random_fill_integers(self, self._data.dtype, *bounds, generator=generator)


exponential_ = random_fill("exponential_", lambda rng, shape, lambd=1.0: rng.exponential(1.0 / lambd, shape))
exponential_.__doc__ = """Fills this tensor with Exponential(lambd) samples (mean 1 / lambd).

    >>> x = mt.empty(1000).exponential_(2.0, generator=mt.Generator().manual_seed(0))
    >>> bool((x >= 0).all()), 0.4 < float(x.mean()) < 0.6
    (True, True)
    """
geometric_ = random_fill("geometric_", lambda rng, shape, p: rng.geometric(p, shape))
geometric_.__doc__ = """Fills this tensor with Geometric(p) samples: the number of trials up to the first success (1, 2, ...).

    >>> x = mt.empty(1000).geometric_(0.5, generator=mt.Generator().manual_seed(0))
    >>> float(x.min()), 1.8 < float(x.mean()) < 2.2
    (1.0, True)
    """
log_normal_ = random_fill("log_normal_", lambda rng, shape, mean=1.0, std=2.0: rng.lognormal(mean, std, shape))
log_normal_.__doc__ = """Fills this tensor with samples whose logarithm is Normal(mean, std).

    >>> x = mt.empty(1000).log_normal_(0.0, 0.25, generator=mt.Generator().manual_seed(0))
    >>> bool((x > 0).all()), -0.05 < float(x.log().mean()) < 0.05
    (True, True)
    """
cauchy_ = random_fill("cauchy_", lambda rng, shape, median=0.0, sigma=1.0: median + sigma * rng.standard_cauchy(shape))
cauchy_.__doc__ = """Fills this tensor with Cauchy(median, sigma) samples.

    >>> x = mt.empty(1001).cauchy_(5.0, 1.0, generator=mt.Generator().manual_seed(0))
    >>> 4.8 < float(np.median(x.numpy())) < 5.2
    True
    """
