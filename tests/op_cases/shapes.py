"""Cases for the shape and indexing surface: flip, roll, unfold, scatter ops, and the functions
composed from array_ops (split, gather, repeat, ...), checked through the op they run."""
import numpy as np

import minitorch as mt
from minitorch.engine.execute import execute

from . import OpCase


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


def apart(*shapes):
    """Values pairwise far apart, so amax/amin have one clear winner per position."""
    def make(rng):
        out, offset = [], 0.0
        for s in shapes:
            n = int(np.prod(s))
            out.append(((rng.permutation(n) + offset) * 0.37 - 1.0).reshape(s))
            offset += n + 0.5
        return out
    return make


def with_zeros(rng):
    """A base and updates for prod with one zero in the base and one zero among the updates sent to
    the same place (the exclusive products PyTorch's gradient takes care with)."""
    x = rng.uniform(0.5, 2.0, (2, 3))
    x[0, 1] = 0.0
    updates = rng.uniform(0.5, 2.0, (2, 3))
    updates[1, 0] = 0.0
    return [x, updates]


ROWS = mt.tensor([[0, 2, 0], [1, 1, 2]])  # scatter/gather index along dim 1 of a (2, 3) tensor, repeats included
WEIGHTS = mt.arange(1.0, 7.0, dtype=mt.float64).reshape(2, 3)  # makes each output element's gradient distinct


def scatter_reduce(reduce, include_self=True):
    return lambda a, u: a.scatter_reduce(1, ROWS, u, reduce, include_self=include_self) * WEIGHTS


CASES = [
    OpCase("ReverseV2", lambda a: mt.flip(a, (0, 2)) * mt.arange(12.0, dtype=mt.float64).reshape(2, 3, 2), normal((2, 3, 2))),
    OpCase("ReverseV2", lambda a: mt.rot90(a, 1, (0, 1)) ** 2, normal((2, 3)), name="rot90"),
    OpCase("Roll", lambda a: mt.roll(a, (1, -2), (0, 1)) * WEIGHTS, normal((2, 3))),
    OpCase("Roll", lambda a: mt.roll(a, 4) * WEIGHTS, normal((2, 3)), name="flattened"),
    OpCase("Unfold", lambda a: a.unfold(1, 3, 1) ** 2, normal((2, 5))),
    OpCase("Unfold", lambda a: a.unfold(0, 1, 3).sin(), normal((5, 2)), name="overrun"),
    OpCase("AsStrided", lambda a: a.as_strided((3, 2), (2, 1), 1) ** 2, normal((2, 4)), name="overlapping windows"),
    OpCase("AsStrided", lambda a: a.t().as_strided((2, 2), (1, 4)).sin(), normal((2, 4)), name="transposed"),
    OpCase("Transpose", lambda a: a.unfold(0, 2, 3).sin(), normal((7, 2)), name="unfold-apart"),
    OpCase("UnfoldGrad", lambda g: execute("UnfoldGrad", (g,), {"shape": (2, 5), "dim": 1, "size": 3, "step": 1}) ** 2,
           normal((2, 3, 3))),
    OpCase("TensorScatterAdd", lambda a, u: a.scatter_add(1, ROWS, u) ** 2, normal((2, 3), (2, 3))),
    OpCase("TensorScatterAdd", lambda a, u: a.index_add(0, mt.tensor([1, 0, 1]), u, alpha=2.0) ** 2,
           normal((2, 3), (3, 3)), name="index_add"),
    OpCase("TensorScatterAdd", lambda a, v: a.index_put((mt.tensor([0, 0]), mt.tensor([1, 1])), v, accumulate=True) ** 2,
           normal((2, 3), (2,)), name="index_put-accumulate"),
    OpCase("TensorScatterAdd", lambda a, u: a.put(mt.tensor([5, -1, 0]), u, accumulate=True) ** 2,
           normal((2, 3), (3,)), name="put-accumulate"),
    OpCase("ScatterReduce", scatter_reduce("sum"), normal((2, 3), (2, 3)), name="sum"),
    OpCase("ScatterReduce", scatter_reduce("sum", include_self=False), normal((2, 3), (2, 3)), name="sum-without-self"),
    OpCase("ScatterReduce", scatter_reduce("mean"), normal((2, 3), (2, 3)), name="mean"),
    OpCase("ScatterReduce", scatter_reduce("mean", include_self=False), normal((2, 3), (2, 3)), name="mean-without-self"),
    OpCase("ScatterReduce", scatter_reduce("amax"), apart((2, 3), (2, 3)), name="amax"),
    OpCase("ScatterReduce", scatter_reduce("amin", include_self=False), apart((2, 3), (2, 3)), name="amin-without-self"),
    OpCase("ScatterReduce", scatter_reduce("prod"), normal((2, 3), (2, 3)), name="prod"),
    OpCase("ScatterReduce", scatter_reduce("prod"), with_zeros, name="prod-zeros"),
    OpCase("ScatterReduce", scatter_reduce("prod", include_self=False), with_zeros, name="prod-zeros-without-self"),
    OpCase("ScatterReduce", lambda a, u: a.index_reduce(0, mt.tensor([2, 0, 2]), u, "mean") ** 2,
           normal((3, 2), (3, 2)), name="index_reduce"),
    OpCase("ScatterReduce", lambda a, u: a.scatter(1, ROWS, u, reduce="multiply") * WEIGHTS,
           normal((2, 3), (2, 3)), name="scatter-multiply"),
    # functions composed from the array ops, checked through the op they run
    OpCase("GatherNd", lambda a: mt.gather(a, 1, ROWS) ** 2, normal((2, 3)), name="gather"),
    OpCase("GatherNd", lambda a: mt.take_along_dim(a, mt.tensor([[2], [-1]]), 1) * a, normal((2, 3)),
           name="take_along_dim"),
    OpCase("GatherNd", lambda a: mt.take(a, mt.tensor([[5, 0], [0, -2]])) ** 2, normal((2, 3)), name="take"),
    OpCase("GatherNd", lambda a: mt.index_select(a, 1, mt.tensor([2, 2, 0])) ** 2, normal((2, 3)), name="index_select"),
    OpCase("GatherNd", lambda a: mt.masked_select(a, mt.tensor([True, False, True])) ** 2, normal((2, 3)),
           name="masked_select"),
    OpCase("GatherNd", lambda a: a.repeat_interleave(mt.tensor([2, 0, 1]), dim=1) ** 2, normal((2, 3)),
           name="repeat_interleave"),
    OpCase("GatherNd", lambda a: mt.combinations(a, 2, with_replacement=True).prod(dim=1), normal((3,)),
           name="combinations"),
    OpCase("TensorScatterUpdate", lambda a, u: a.scatter(1, mt.tensor([[0, 2], [2, 1]]), u) * WEIGHTS, normal((2, 3), (2, 3)),
           name="scatter"),
    OpCase("TensorScatterUpdate", lambda a, v: a.index_fill(1, mt.tensor([0, 2]), v) * WEIGHTS, normal((2, 3), ()),
           name="index_fill"),
    OpCase("TensorScatterUpdate", lambda a, u: a.index_copy(0, mt.tensor([1]), u) * WEIGHTS, normal((2, 3), (1, 3)),
           name="index_copy"),
    OpCase("TensorScatterUpdate", lambda a, s: a.masked_scatter(mt.tensor([True, False, True]), s) * WEIGHTS,
           normal((2, 3), (5,)), name="masked_scatter"),
    OpCase("BroadcastTo", lambda a: a.repeat(2, 1, 2) ** 2, normal((2, 3)), name="repeat"),
    OpCase("BroadcastTo", lambda a, b: mt.stack(mt.meshgrid(a, b, indexing="xy")).prod(dim=0), normal((3,), (2,)),
           name="meshgrid"),
    OpCase("Pack", lambda a, b: mt.cartesian_prod(a, b).prod(dim=1), normal((3,), (2,)), name="cartesian_prod"),
    OpCase("ConcatV2", lambda a, b: mt.block_diag(a, b, a[0]) ** 2, normal((2, 2), (1, 3)), name="block_diag"),
    OpCase("ConcatV2", lambda a, b: mt.column_stack([a, b]) ** 2, normal((3,), (3, 2)), name="column_stack"),
    OpCase("StridedSlice", lambda a: sum(p.sum() * (i + 1) for i, p in enumerate(mt.split(a, [1, 3], 1))),
           normal((2, 4)), name="split"),
    OpCase("StridedSlice", lambda a: mt.stack(mt.tensor_split(a, 3, dim=1)[::-1]).sin(), normal((2, 3)),
           name="tensor_split"),
    OpCase("StridedSlice", lambda a: a.narrow(0, 1, 2) * a.select(1, -1)[None, 1:], normal((3, 2)), name="narrow-select"),
    OpCase("Transpose", lambda a: a.movedim((0, 1), (2, 0)) * mt.arange(24.0, dtype=mt.float64).reshape(3, 4, 2),
           normal((2, 3, 4)), name="movedim"),
    OpCase("Transpose", lambda a: (a * 1).t_().unsqueeze_(1).squeeze_(1) ** 2 * WEIGHTS.t(), normal((2, 3)),
           name="in-place-shape-changes"),
]
