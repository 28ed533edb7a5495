"""Cases for the elementwise ops (ops/arithmetic_ops.py, exponential_ops.py, trigonometric_ops.py,
rounding_ops.py, ...) and the special functions (ops/special_ops.py),
and for the pointwise functions composed of other ops (lerp, logit, addcmul, ...)."""
import numpy as np

import minitorch as mt

from . import OpCase
from .core import apart, normal, positive


def uniform(low, high, *shapes):
    return lambda rng: [rng.uniform(low, high, s) for s in shapes]


def away_from_zero(*shapes):
    """Values with |x| in [0.5, 2] and random signs."""
    return lambda rng: [rng.uniform(0.5, 2.0, s) * rng.choice([-1.0, 1.0], s) for s in shapes]


def untied(*shapes):
    """`apart` values, the inputs shifted from each other so that no two are equal."""
    make = apart(*shapes)
    return lambda rng: [values + 0.1 * i for i, values in enumerate(make(rng))]


def _with_zero(rng):
    return [np.array([0.0, -1.3, 0.7, 2.2])]


CASES = [
    # trigonometric and hyperbolic
    OpCase("Tan", mt.tan, uniform(-1.2, 1.2, (2, 3))),
    OpCase("Asin", mt.asin, uniform(-0.9, 0.9, (2, 3))),
    OpCase("Acos", mt.arccos, uniform(-0.9, 0.9, (2, 3))),
    OpCase("Atan", mt.atan, normal((2, 3))),
    OpCase("Sinh", mt.sinh, normal((2, 3))),
    OpCase("Cosh", mt.cosh, normal((2, 3))),
    OpCase("Asinh", mt.asinh, normal((2, 3))),
    OpCase("Acosh", mt.acosh, uniform(1.2, 3.0, (2, 3))),
    OpCase("Atanh", mt.atanh, uniform(-0.9, 0.9, (2, 3))),
    OpCase("Atan2", mt.atan2, normal((2, 3), (3,)), name="broadcast"),
    OpCase("Mul", mt.deg2rad, normal((3,)), name="deg2rad"),
    OpCase("Mul", mt.rad2deg, normal((3,)), name="rad2deg"),
    # exponentials, logarithms, powers
    OpCase("Exp2", mt.exp2, normal((2, 3))),
    OpCase("Expm1", mt.expm1, normal((2, 3))),
    OpCase("Log2", mt.log2, positive((2, 3))),
    OpCase("Log10", mt.log10, positive((2, 3))),
    OpCase("Rsqrt", mt.rsqrt, positive((2, 3))),
    OpCase("Reciprocal", mt.reciprocal, away_from_zero((2, 3))),
    OpCase("Sinc", mt.sinc, normal((2, 3))),
    OpCase("Sinc", mt.sinc, _with_zero, name="at-zero", second_order=False),
    OpCase("LogAddExp", mt.logaddexp, normal((2, 3), (3,))),
    OpCase("LogAddExp2", mt.logaddexp2, normal((2, 3), (2, 1))),
    OpCase("Hypot", mt.hypot, away_from_zero((2, 3), (2, 3))),
    OpCase("Pow", mt.float_power, positive((2, 3), (3,)), name="float_power"),
    OpCase("Pow", mt.ldexp, normal((2, 3), (3,)), name="ldexp"),
    OpCase("Frexp", lambda x: mt.frexp(x).mantissa * 3, normal((2, 3))),
    OpCase("Logit", mt.logit, uniform(0.1, 0.9, (2, 3))),
    OpCase("Logit", lambda x: mt.logit(x, eps=0.2), lambda rng: [np.array([0.05, 0.3, 0.5, 0.7, 0.95])], name="eps"),
    # rounding, remainders, signs, limits: the step functions' gradient is 0 (as PyTorch's)
    OpCase("Trunc", lambda x: mt.trunc(x) * x, uniform(-3.0, 3.0, (2, 3))),
    OpCase("Floor", lambda x: mt.floor(x) * x, uniform(-3.0, 3.0, (2, 3))),
    OpCase("Ceil", lambda x: mt.ceil(x) * x, uniform(-3.0, 3.0, (2, 3))),
    OpCase("Round", lambda x: mt.round(x, decimals=1) * x, uniform(-3.0, 3.0, (2, 3))),
    OpCase("Sign", lambda x: mt.sign(x) * x, away_from_zero((2, 3))),
    OpCase("FloorDiv", lambda x, y: mt.div(x, y, rounding_mode="floor") * x * y,
           lambda rng: [rng.uniform(-3.0, 3.0, (2, 3)), rng.uniform(1.2, 1.8, (2, 3))]),
    OpCase("TruncateDiv", lambda x, y: mt.div(x, y, rounding_mode="trunc") * x * y,
           lambda rng: [rng.uniform(-3.0, 3.0, (2, 3)), rng.uniform(1.2, 1.8, (2, 3))]),
    OpCase("Sub", mt.frac, uniform(-3.0, 3.0, (2, 3)), name="frac"),
    OpCase("TruncateMod", mt.fmod, lambda rng: [rng.uniform(3.3, 3.7, (2, 3)) * np.array([1.0, -1.0, 1.0]),
                                                rng.uniform(1.0, 1.05, (3,))]),
    OpCase("Copysign", mt.copysign, away_from_zero((2, 3), (2, 3))),
    OpCase("Fmax", mt.fmax, untied((2, 3), (3,))),
    OpCase("Fmin", mt.fmin, untied((2, 3), (2, 3))),
    OpCase("NanToNum", lambda x: mt.nan_to_num(x) * x, normal((2, 3))),
    OpCase("SelectV2", lambda x, low: mt.clamp_min(x, low), untied((2, 3), (3,)), name="clamp_min-tensor"),
    OpCase("SelectV2", lambda x, low, high: mt.clamp(x, low, high), untied((2, 4), (4,), (2, 1)), name="clamp-tensors"),
    OpCase("ClipByValue", lambda x: mt.clamp_max(x, 0.1), apart((2, 3)), name="clamp_max-number"),
    # combinations
    OpCase("Lerp", lambda a, b: mt.lerp(a, b, 0.3), normal((2, 3), (3,)), name="small-weight"),
    OpCase("Lerp", lambda a, b: mt.lerp(a, b, 0.8), normal((2, 3), (2, 3)), name="large-weight"),
    OpCase("Lerp", mt.lerp, lambda rng: [rng.standard_normal((2, 3)), rng.standard_normal((3,)),
                                        rng.uniform(0.0, 1.0, (2, 1))], name="tensor-weight"),
    OpCase("Mul", lambda a, b, c: mt.addcmul(a, b, c, value=0.5), normal((2, 3), (3,), (2, 1)), name="addcmul"),
    OpCase("RealDiv", lambda a, b, c: mt.addcdiv(a, b, c, value=2), lambda rng: [
        rng.standard_normal((2, 3)), rng.standard_normal((3,)), rng.uniform(0.5, 2.0, (2, 3))], name="addcdiv"),
    OpCase("Sub", lambda a, b: mt.rsub(a, b, alpha=2), normal((2, 3), (3,)), name="rsub"),
    # special functions
    OpCase("Erfc", mt.erfc, normal((2, 3))),
    OpCase("Erfinv", mt.erfinv, uniform(-0.9, 0.9, (2, 3))),
    OpCase("Xlogy", mt.xlogy, lambda rng: [rng.standard_normal((2, 3)), rng.uniform(0.5, 2.0, (3,))]),
    OpCase("Lgamma", mt.lgamma, uniform(0.5, 4.0, (2, 3))),
    OpCase("Digamma", mt.digamma, uniform(0.5, 4.0, (2, 3))),
    OpCase("Polygamma", lambda x: mt.polygamma(2, x), uniform(0.5, 4.0, (2, 3))),
    OpCase("Lgamma", lambda x: mt.mvlgamma(x, 3), uniform(1.5, 4.0, (2, 3)), name="mvlgamma"),
    OpCase("Igamma", mt.igamma, uniform(0.5, 3.0, (2, 3), (2, 3)), constants=(0,)),
    OpCase("Igammac", mt.igammac, uniform(0.5, 3.0, (3,), (2, 3)), constants=(0,)),
    OpCase("BesselI0", mt.i0, normal((2, 3))),
    OpCase("BesselI1", mt.special.i1, normal((2, 3))),
    OpCase("BesselI1", mt.special.i1, _with_zero, name="at-zero", second_order=False),
    OpCase("BesselI0e", mt.special.i0e, away_from_zero((2, 3))),
    OpCase("BesselI1e", mt.special.i1e, away_from_zero((2, 3))),
    OpCase("Erfcx", mt.special.erfcx, normal((2, 3))),
    OpCase("Ndtr", mt.special.ndtr, normal((2, 3))),
    OpCase("Ndtri", mt.special.ndtri, uniform(0.05, 0.95, (2, 3))),
    OpCase("LogNdtr", mt.special.log_ndtr, normal((2, 3))),
    OpCase("Entr", mt.special.entr, positive((2, 3))),
    OpCase("Xlog1py", mt.special.xlog1py, lambda rng: [rng.standard_normal((2, 3)), rng.uniform(-0.5, 2.0, (3,))]),
]
