"""The in-place twins, in one table: `x.exp_()` writes `mt.exp(x)` into x, and `mt.exp_(x)` is the same
function. Each twin is made once, by `in_place_ops.twin`, from the function it writes in place;
tensor_methods.py binds them all as Tensor methods, and minitorch/__init__.py takes the ones PyTorch
also has at the top level (TOP_LEVEL) from here. (nn.functional's twins, F.elu_ and friends, are
nn.functional's own: nn/functional/activation.py and dropout.py.)

A row names the function and, where the function is one op whose kernel is a numpy ufunc that
computes the same thing in the tensor's dtype, that op: an update no tape records then runs the
ufunc with `out=` straight into the storage, with no temporary (None where the ufunc would compute
something else, as np.reciprocal does for integers, where the kernel is no ufunc, or where the
function is a composition).
"""
import numpy as np

from .activation_ops import logit, relu, sigmoid
from .arithmetic_ops import (
    abs, add, addcdiv, addcmul, div, float_power, floor_divide, fmod, lerp, mul, neg, pow, reciprocal, remainder,
    square, sub,
)
from .bitwise_ops import bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, gcd, lcm
from .comparison_ops import (
    clamp, clamp_max, clamp_min, eq, ge, gt, le, logical_and, logical_not, logical_or, logical_xor, lt, nan_to_num, ne,
)
from .exponential_ops import exp, exp2, expm1, ldexp, log, log1p, log2, log10, rsqrt, sqrt
from .in_place_ops import twin
from .matrix_ops import filled_diagonal, tril, triu
from .norm_ops import renorm
from .product_ops import addbmm, addmm, addmv, addr, baddbmm
from .rounding_ops import ceil, copysign, floor, frac, heaviside, nextafter, round, sign, trunc
from .scan_ops import cumprod, cumsum
from .scatter_ops import (
    index_add, index_copy, index_fill, index_put, index_reduce, masked_scatter, put, scatter, scatter_add, scatter_reduce,
)
from .special_ops import digamma, erf, erfc, erfinv, i0, igamma, igammac, lgamma, mvlgamma, polygamma_method, xlogy
from .trigonometric_ops import (
    acos, acosh, asin, asinh, atan, atan2, atanh, cos, cosh, deg2rad, hypot, rad2deg, sin, sinc, sinh, tan, tanh,
)

# name: (the function it writes in place, the op whose ufunc kernel writes straight into the storage, or None)
TWINS = {
    # arithmetic
    "add_": (add, "Add"), "sub_": (sub, "Sub"), "mul_": (mul, "Mul"), "div_": (div, "RealDiv"), "pow_": (pow, "Pow"),
    "floor_divide_": (floor_divide, None), "remainder_": (remainder, None), "fmod_": (fmod, None),
    "neg_": (neg, "Neg"), "abs_": (abs, "Abs"), "square_": (square, None), "reciprocal_": (reciprocal, None),
    "lerp_": (lerp, None), "addcmul_": (addcmul, None), "addcdiv_": (addcdiv, None),
    # exponentials, logarithms, roots
    "exp_": (exp, "Exp"), "exp2_": (exp2, "Exp2"), "expm1_": (expm1, "Expm1"), "log_": (log, None),
    "log2_": (log2, "Log2"), "log10_": (log10, "Log10"), "log1p_": (log1p, None), "sqrt_": (sqrt, None),
    "rsqrt_": (rsqrt, None), "ldexp_": (ldexp, None),
    # trigonometric and hyperbolic functions
    "sin_": (sin, "Sin"), "cos_": (cos, "Cos"), "tan_": (tan, "Tan"), "asin_": (asin, "Asin"), "acos_": (acos, "Acos"),
    "atan_": (atan, "Atan"), "atan2_": (atan2, "Atan2"), "sinh_": (sinh, "Sinh"), "cosh_": (cosh, "Cosh"),
    "tanh_": (tanh, "Tanh"), "asinh_": (asinh, "Asinh"), "acosh_": (acosh, "Acosh"), "atanh_": (atanh, "Atanh"),
    "sinc_": (sinc, None), "hypot_": (hypot, "Hypot"), "deg2rad_": (deg2rad, None), "rad2deg_": (rad2deg, None),
    # rounding and signs
    "floor_": (floor, "Floor"), "ceil_": (ceil, "Ceil"), "round_": (round, None), "trunc_": (trunc, "Trunc"),
    "frac_": (frac, None), "sign_": (sign, None), "copysign_": (copysign, "Copysign"), "heaviside_": (heaviside, None),
    "nextafter_": (nextafter, "NextAfter"),
    # comparisons and logic (the bool result written as 0 and 1 in the tensor's dtype), limits
    "eq_": (eq, "Equal"), "ne_": (ne, "NotEqual"), "lt_": (lt, "Less"), "le_": (le, "LessEqual"), "gt_": (gt, "Greater"),
    "ge_": (ge, "GreaterEqual"), "logical_and_": (logical_and, "LogicalAnd"), "logical_or_": (logical_or, "LogicalOr"),
    "logical_xor_": (logical_xor, "LogicalXor"), "logical_not_": (logical_not, "LogicalNot"),
    "clamp_": (clamp, None), "clamp_min_": (clamp_min, None), "clamp_max_": (clamp_max, None),
    "nan_to_num_": (nan_to_num, None),
    # integers and bits
    "bitwise_and_": (bitwise_and, None), "bitwise_or_": (bitwise_or, None), "bitwise_xor_": (bitwise_xor, None),
    "bitwise_not_": (bitwise_not, None), "bitwise_left_shift_": (bitwise_left_shift, "LeftShift"),
    "bitwise_right_shift_": (bitwise_right_shift, "RightShift"), "gcd_": (gcd, "Gcd"), "lcm_": (lcm, "Lcm"),
    # activations
    "relu_": (relu, None), "sigmoid_": (sigmoid, "Sigmoid"), "logit_": (logit, None),
    # special functions
    "erf_": (erf, None), "erfc_": (erfc, None), "erfinv_": (erfinv, None), "xlogy_": (xlogy, None),
    "lgamma_": (lgamma, None), "digamma_": (digamma, None), "polygamma_": (polygamma_method, None),
    "mvlgamma_": (mvlgamma, None), "igamma_": (igamma, None), "igammac_": (igammac, None), "i0_": (i0, None),
    # scans, matrices, products, norms
    "cumsum_": (cumsum, None), "cumprod_": (cumprod, None), "tril_": (tril, None), "triu_": (triu, None),
    "fill_diagonal_": (filled_diagonal, None), "addmm_": (addmm, None), "addbmm_": (addbmm, None),
    "baddbmm_": (baddbmm, None), "addmv_": (addmv, None), "addr_": (addr, None), "renorm_": (renorm, None),
    # scatters
    "scatter_": (scatter, None), "scatter_add_": (scatter_add, None), "scatter_reduce_": (scatter_reduce, None),
    "index_add_": (index_add, None), "index_copy_": (index_copy, None), "index_fill_": (index_fill, None),
    "index_put_": (index_put, None), "index_reduce_": (index_reduce, None), "masked_scatter_": (masked_scatter, None),
    "put_": (put, None),
}

# PyTorch's other names for them: the same functions.
ALIASES = {
    "absolute_": "abs_", "negative_": "neg_", "subtract_": "sub_", "multiply_": "mul_", "divide_": "div_",
    "true_divide_": "div_", "arcsin_": "asin_", "arccos_": "acos_", "arctan_": "atan_", "arctan2_": "atan2_",
    "arcsinh_": "asinh_", "arccosh_": "acosh_", "arctanh_": "atanh_", "fix_": "trunc_", "sgn_": "sign_",
    "clip_": "clamp_", "greater_": "gt_", "greater_equal_": "ge_", "less_": "lt_", "less_equal_": "le_",
    "not_equal_": "ne_",
}

# The ones PyTorch also has at the top level (torch.exp_(x)): mt.<name> is the same twin.
TOP_LEVEL = frozenset("""
    abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ ceil_
    clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ exp_ expm1_ fix_ floor_ frac_ gcd_ i0_
    index_put_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_
    round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_
    """.split())

IN_PLACE = {name: twin(function, name, op_name) for name, (function, op_name) in TWINS.items()}
IN_PLACE.update({alias: IN_PLACE[name] for alias, name in ALIASES.items()})

_float_power = twin(float_power, "float_power_")


def float_power_(self, exponent):
    """In place: self ** exponent, for a float64 self only (the result of float_power is float64, as in PyTorch).

    >>> x = mt.tensor([2.0, 3.0], dtype=mt.float64)
    >>> x.float_power_(2) is x, x
    (True, tensor([4., 9.], dtype=minitorch.float64))
    """
    if self._data.dtype != np.float64:
        raise TypeError(f"float_power_: the base has dtype {self.dtype}, but the operation's result requires dtype "
                        "float64 (use float_power, or .double() first)")
    return _float_power(self, exponent)


IN_PLACE["float_power_"] = float_power_
globals().update(IN_PLACE)  # each twin is a name of this module too: `from .ops.in_place_twins import exp_`
