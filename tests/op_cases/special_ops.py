"""Cases for the special-function ops (Erf, Log1p)."""
import minitorch as mt
from minitorch.ops import exponential_ops, special_ops

from . import OpCase

CASES = [
    OpCase("Erf", special_ops.erf, lambda rng: [rng.standard_normal((2, 3))]),
    OpCase("Log1p", exponential_ops.log1p, lambda rng: [rng.uniform(-0.5, 2.0, (2, 3))]),
    OpCase("Erf", lambda x: special_ops.erf(x * mt.tensor(0.5, dtype=mt.float64)).sum(), lambda rng: [rng.standard_normal((4,))],
           name="scaled-sum"),
]
