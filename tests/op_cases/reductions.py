"""Cases for the scans, sorts, statistics and the zero-safe product (surface: reductions/linalg)."""
import numpy as np

import minitorch as mt
from minitorch.engine.execute import execute

from . import OpCase


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


def with_zeros(*shapes):
    """Normal values with about a third of them exactly zero (products and their gradients at zeros)."""
    def make(rng):
        return [np.where(rng.random(s) < 0.35, 0.0, rng.standard_normal(s)) for s in shapes]
    return make


def one_zero(shape):
    def make(rng):
        x = rng.standard_normal(shape)
        x.flat[1] = 0.0
        return [x]
    return make


CASES = [
    OpCase("Cumsum", lambda a: a.cumsum(1) ** 2, normal((2, 4))),
    OpCase("Cumsum", lambda a: execute("Cumsum", (a,), {"axis": 0, "reverse": True}) ** 2, normal((3, 2)), name="reverse"),
    OpCase("Cumprod", lambda a: a.cumprod(0), normal((4, 2))),
    OpCase("Cumprod", lambda a: a.cumprod(1), with_zeros((3, 5)), name="zeros"),
    OpCase("Cumprod", lambda a: execute("Cumprod", (a,), {"axis": 0, "reverse": True}), with_zeros((5, 2)),
           name="reverse-zeros"),
    OpCase("CumulativeLogsumexp", lambda a: mt.logcumsumexp(a, -1), normal((2, 5))),
    OpCase("CumulativeLogsumexp", lambda a: execute("CumulativeLogsumexp", (a,), {"axis": 0, "reverse": True}),
           normal((4, 2)), name="reverse"),
    OpCase("Prod", lambda a: a.prod(), one_zero((2, 3)), name="one-zero"),
    OpCase("Prod", lambda a: a.prod(dim=1, keepdim=True), with_zeros((4, 5)), name="zeros"),
    OpCase("GatherNd", lambda a: mt.cummax(a, 1).values * mt.cummin(a, 0).values, normal((3, 4)), name="cummax-cummin"),
    OpCase("ConcatV2", lambda a, b: mt.diff(a, n=2, dim=0, prepend=b) ** 2, normal((4, 3), (1, 3)), name="diff"),
    OpCase("Cumsum", lambda y, x: mt.cumulative_trapezoid(y, x) * mt.trapezoid(y, x, dim=0).sum(),
           lambda rng: [rng.standard_normal((3, 4)), np.cumsum(rng.uniform(0.5, 1.0, (3, 4)), axis=1)],
           name="trapezoid"),
    OpCase("ConcatV2", lambda a: mt.gradient(a, spacing=[0.5, 2.0])[1] * mt.gradient(a, dim=0, edge_order=2)[0],
           normal((4, 3)), name="gradient"),
    OpCase("ConcatV2", lambda a: mt.gradient(a, spacing=(mt.tensor([0.0, 1.0, 3.0, 3.5, 6.0]),), edge_order=2)[0] ** 2,
           normal((5,)), name="gradient-coordinates"),
    OpCase("Sum", lambda a: a.sum_to_size(1, 3) ** 2, normal((2, 4, 3)), name="sum_to_size"),
]

CASES += [
    OpCase("Median", lambda a: a.median() * a, normal((3, 4))),
    OpCase("Median", lambda a: mt.nanmedian(a), normal((2, 5)), name="nanmedian"),
    OpCase("GatherNd", lambda a: mt.sort(a, dim=0, descending=True).values ** 2, normal((4, 3)), name="sort"),
    OpCase("GatherNd", lambda a: mt.topk(a, 2).values * mt.kthvalue(a, 2, dim=0).values.sum(), normal((3, 4)),
           name="topk-kthvalue"),
    OpCase("GatherNd", lambda a: a.median(dim=1).values ** 2 + mt.mode(mt.round(a), 0).values.sum() + mt.mode(a).values.sum(), normal((3, 5)),
           name="median-mode"),
    OpCase("GatherNd", lambda a, q: mt.quantile(a, q, dim=1) ** 2, lambda rng: [rng.standard_normal((3, 5)),
           np.array([0.1, 0.45, 0.83])], name="quantile"),
    OpCase("GatherNd", lambda a: mt.nanquantile(a, 0.3, interpolation="midpoint") * a, normal((2, 4)),
           name="nanquantile"),
]
