"""Cases for the elementwise, matmul, reduction and array ops."""
import numpy as np

import minitorch as mt
from minitorch.engine.execute import execute

from . import OpCase


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


def positive(*shapes):
    return lambda rng: [rng.uniform(0.5, 2.0, s) for s in shapes]


def apart(*shapes):
    """Values pairwise far apart, so max/min/relu/abs are differentiable at them."""
    def make(rng):
        out = []
        for s in shapes:
            n = int(np.prod(s))
            values = (rng.permutation(n) - n / 2 + 0.5) * 0.37
            out.append(values.reshape(s))
        return out
    return make


CASES = [
    OpCase("Add", lambda a, b: a + b, normal((2, 3), (3,)), name="broadcast"),
    OpCase("Sub", lambda a, b: a - b, normal((2, 1), (1, 3))),
    OpCase("Mul", lambda a, b: a * b, normal((2, 3), (2, 3))),
    OpCase("RealDiv", lambda a, b: a / b, lambda rng: [rng.standard_normal((2, 3)), rng.uniform(0.5, 2, (3,))]),
    OpCase("Neg", lambda a: -a, normal((3,))),
    OpCase("Pow", lambda a, b: a ** b, positive((2, 3), (2, 3))),
    OpCase("Pow", lambda a: a ** 3, normal((4,)), name="scalar-exponent"),
    OpCase("AddN", lambda a, b, c: mt.add_n([a, b, c]), normal((2, 2), (2, 2), (2, 2))),
    OpCase("Cast", lambda a: (a.float() * 2).double(), normal((3,)), second_order=False, eps=1e-2),
    OpCase("Exp", mt.exp, normal((2, 3))),
    OpCase("Log", mt.log, positive((2, 3))),
    OpCase("Sqrt", mt.sqrt, positive((2, 3))),
    OpCase("Sin", mt.sin, normal((3,))),
    OpCase("Cos", mt.cos, normal((3,))),
    OpCase("Abs", mt.abs, apart((2, 3)), second_order=False),
    OpCase("Tanh", mt.tanh, normal((2, 3))),
    OpCase("TanhGrad", lambda y, g: execute("TanhGrad", (y, g)), normal((3,), (3,))),
    OpCase("Sigmoid", mt.sigmoid, normal((2, 3))),
    OpCase("SigmoidGrad", lambda y, g: execute("SigmoidGrad", (y, g)), normal((3,), (3,))),
    OpCase("Relu", mt.relu, apart((2, 3)), second_order=False),
    OpCase("ReluGrad", lambda g, y: execute("ReluGrad", (g, y)), apart((4,), (4,)), second_order=False),
    OpCase("Maximum", mt.maximum, apart((2, 3), (2, 3)), second_order=False),
    OpCase("Minimum", mt.minimum, apart((2, 3), (3,)), second_order=False),
    OpCase("SelectV2", lambda a, b: mt.where(a > 0, a * b, b), normal((2, 3), (2, 3))),
    OpCase("ClipByValue", lambda a: a.clamp(-0.5, 0.5), apart((2, 3)), second_order=False),
    OpCase("MatMul", lambda a, b: a @ b, normal((3, 4), (4, 2))),
    OpCase("MatMul", lambda a, b: a @ b, normal((2, 3, 4), (4,)), name="batched-vector"),
    OpCase("MatMul", lambda a, b: a @ b, normal((2, 1, 3, 4), (3, 4, 2)), name="broadcast-batch"),
    OpCase("Sum", lambda a: a.sum(dim=1), normal((2, 3, 2))),
    OpCase("Sum", lambda a: a.sum(), normal((2, 3)), name="all"),
    OpCase("Mean", lambda a: a.mean(dim=(0, 2), keepdim=True), normal((2, 3, 2))),
    OpCase("Prod", lambda a: a.prod(dim=0), positive((3, 2))),
    OpCase("Max", lambda a: a.amax(dim=1), apart((2, 4)), second_order=False),
    OpCase("Max", lambda a: a.max(), apart((2, 4)), name="all", second_order=False),
    OpCase("Min", lambda a: a.amin(dim=0, keepdim=True), apart((3, 2)), second_order=False),
    OpCase("LogSumExp", lambda a: a.logsumexp(dim=1), normal((2, 4))),
    OpCase("Softmax", lambda a: a.softmax(dim=-1), normal((2, 4))),
    OpCase("LogSoftmax", lambda a: a.log_softmax(dim=0), normal((3, 2))),
    OpCase("Mean", lambda a: a.var(dim=1), normal((2, 4)), name="var"),
    OpCase("Sqrt", lambda a: a.std(), normal((5,)), name="std"),
    OpCase("Reshape", lambda a: a.reshape(3, 2).exp(), normal((2, 3))),
    OpCase("Transpose", lambda a: a.permute(2, 0, 1) * mt.arange(3.0).reshape(3, 1, 1), normal((2, 2, 3))),
    OpCase("BroadcastTo", lambda a: a.expand(3, 2, 4).sin(), normal((2, 1))),
    OpCase("Identity", lambda a: a.clone() * a, normal((3,))),
    OpCase("StridedSlice", lambda a: a[1:, ::2, None, -1] * 2, normal((3, 4, 2))),
    OpCase("StridedSliceGrad", lambda g: execute("StridedSliceGrad", (g,), {"shape": (4, 3), "index": (slice(1, 3),)}) ** 2,
           normal((2, 3))),
    OpCase("GatherNd", lambda a: a[[0, 2, 2], 1:] ** 2, normal((3, 3)), name="repeated"),
    OpCase("GatherNd", lambda a: a[a > 0] ** 2, normal((3, 3)), name="mask"),
    OpCase("TensorScatterUpdate", lambda a, u: execute("TensorScatterUpdate", (a, u), {"index": (slice(0, 2), 1)}) ** 2,
           normal((3, 3), (2,)), name="basic"),
    OpCase("TensorScatterUpdate", lambda a, u: execute("TensorScatterUpdate", (a, u), {"index": (np.array([0, 2]),)}) ** 2,
           normal((3, 2), (2,)), name="advanced-broadcast"),
    OpCase("FloorMod", lambda a, b: mt.remainder(a, b) ** 2,
           lambda rng: [rng.uniform(3.3, 3.7, (2, 3)), rng.uniform(1.0, 1.05, (3,))]),
    OpCase("ScatterNd", lambda g: execute("ScatterNd", (g,), {"shape": (3,), "index": (np.array([0, 2, 2]),)}) ** 2,
           normal((3,))),
    OpCase("ConcatV2", lambda a, b: mt.cat([a, b, a], dim=1) ** 2, normal((2, 1), (2, 3))),
    OpCase("Pack", lambda a, b: mt.stack([a, b], dim=1) ** 2, normal((2, 3), (2, 3))),
]

CASES += [
    OpCase("MatMul", lambda a, b: execute("MatMul", (a, b), {"transpose_b": True}), normal((3, 4), (2, 4)), name="transpose_b"),
    OpCase("MatMul", lambda a, b: execute("MatMul", (a, b), {"transpose_a": True}), normal((4, 3), (4, 2)), name="transpose_a"),
    OpCase("MatMul", lambda a, b: execute("MatMul", (a, b), {"transpose_a": True, "transpose_b": True}),
           normal((2, 4, 3), (2, 4)), name="transpose_both"),
    OpCase("MatMul", lambda a, b: mt.matmul(a, b, transpose_b=True), normal((2, 3), (5, 3)), name="linear"),
]
