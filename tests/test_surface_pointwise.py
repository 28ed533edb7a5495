"""The pointwise surface against PyTorch: values, dtypes, shapes, errors, gradients, in-place twins.

Each row names a function and its arguments; the same row is run as `mt.name(...)`,
as the method `x.name(...)` and as the in-place twin `x.name_(...)`, against torch.
Gradients are compared with PyTorch's at awkward points (zeros, ties, NaN, +-inf)
where finite differences (tests/op_cases/pointwise.py) cannot look.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

# The inputs hold nan, +-inf and values outside the functions' domains on purpose: numpy's kernels
# then warn, and pytest shows what minitorch's filter hides from users (test_no_warnings_reach_users).
pytestmark = pytest.mark.filterwarnings("ignore:(invalid value|divide by zero|overflow) encountered in:RuntimeWarning")

SPECIAL = np.array([-2.5, -1.0, -0.5, -0.0, 0.0, 0.3, 0.5, 1.0, 2.0, 3.7, np.inf, -np.inf, np.nan])
INTEGERS = np.array([-7, -3, -1, 0, 1, 2, 5, 12])


def _inputs(kind):
    if kind == "float32":
        return SPECIAL.astype(np.float32)
    if kind == "float64":
        return np.random.default_rng(1).standard_normal(7) * 2
    if kind == "int64":
        return INTEGERS.copy()
    if kind == "bool":
        return np.array([True, False, True])
    raise ValueError(kind)


def _pair(value):
    """(minitorch value, torch value) for a numpy array or a plain Python value."""
    if isinstance(value, np.ndarray):
        return mt.tensor(value), torch.tensor(value)
    return value, value


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def assert_same(ours, theirs, rtol=1e-5, atol=1e-6):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, mt.Tensor), f"expected a tensor, got {type(ours).__name__}"
        assert _dtype_name(ours.dtype) == _dtype_name(theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape)
        expected = theirs.detach().numpy()
        got = np.asarray(ours.detach().numpy())
        if expected.dtype.kind in "biu":
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    elif isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_same(o, t, rtol, atol)
    else:
        assert ours == theirs and type(ours) is type(theirs)


def _run(module, name, args, kwargs):
    try:
        return getattr(module, name)(*args, **kwargs), None
    except Exception as error:  # noqa: BLE001  (any error: compared with torch's below)
        return None, error


def check_parity(name, args, kwargs=None, rtol=1e-5, atol=1e-6, method=True):
    """mt.name(*args) against torch.name(*args); then, if torch has it, args[0].name(*args[1:])."""
    kwargs = kwargs or {}
    pairs = [_pair(a) for a in args]
    ours_args, torch_args = [p[0] for p in pairs], [p[1] for p in pairs]
    theirs, torch_error = _run(torch, name, torch_args, kwargs)
    ours, our_error = _run(mt, name, ours_args, kwargs)
    if torch_error is not None:
        assert our_error is not None, f"torch.{name} raises ({torch_error}) but mt.{name} returns {ours}"
        return
    assert our_error is None, f"mt.{name} raised {our_error!r}; torch gives {theirs}"
    assert_same(ours, theirs, rtol, atol)
    if method and hasattr(torch.Tensor, name) and isinstance(torch_args[0], torch.Tensor):
        assert_same(getattr(ours_args[0], name)(*ours_args[1:], **kwargs), getattr(torch_args[0], name)(*torch_args[1:], **kwargs),
                    rtol, atol)


UNARY = [
    "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh", "cosh", "asinh", "arcsinh", "acosh",
    "arccosh", "atanh", "arctanh", "deg2rad", "rad2deg", "exp2", "expm1", "log2", "log10", "log1p", "rsqrt",
    "reciprocal", "sinc", "erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "logit", "trunc", "fix", "frac",
    "signbit", "sgn", "isposinf", "isneginf", "isreal", "isfinite", "isinf", "nan_to_num", "negative", "absolute",
    "floor", "ceil", "round", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "abs", "neg", "sign",
]


@pytest.mark.parametrize("kind", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_torch(name, kind):
    rtol = 1e-4 if name in ("digamma", "lgamma", "tan", "sinc") and kind == "float32" else 1e-5
    check_parity(name, [_inputs(kind)], rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("name", ["positive", "negative", "signbit", "isposinf", "isreal", "sign", "sgn"])
def test_unary_functions_on_bools_match_torch(name):
    check_parity(name, [_inputs("bool")])


BINARY = [
    "atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign", "fmod", "remainder", "fmax",
    "fmin", "float_power", "ldexp", "igamma", "igammac", "nextafter", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "ne", "lt", "le", "gt", "ge", "isclose", "subtract", "multiply", "divide",
    "true_divide", "rsub", "maximum", "minimum", "logical_and", "logical_or", "logical_xor",
]
# Where PyTorch's CPU kernels are missing for integers, minitorch promotes them to float32 as the
# other floating functions do (the result is the same math, not a silent change of meaning).
PROMOTES_INTEGERS = {"hypot", "logaddexp", "logaddexp2", "igamma", "igammac"}


@pytest.mark.parametrize("name", BINARY + ["pow"])
def test_binary_functions_match_torch_on_floats(name):
    rng = np.random.default_rng(0)
    x = SPECIAL.astype(np.float32)
    y = rng.permutation(SPECIAL).astype(np.float32)
    check_parity(name, [x, y], atol=1e-5)
    check_parity(name, [x.astype(np.float64).reshape(13, 1)[:4], np.abs(y[:5]).astype(np.float64)])  # broadcast


@pytest.mark.parametrize("name", BINARY + ["gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "heaviside"])
def test_binary_functions_match_torch_on_integers(name):
    x = INTEGERS
    y = np.array([3, -2, 4, 0, 7, -1, 2, 5])
    if name in ("fmod", "remainder"):
        y = np.where(y == 0, 3, y)
    if name in ("bitwise_left_shift", "bitwise_right_shift"):
        y = np.abs(y) * 9
    if name in PROMOTES_INTEGERS:
        assert mt.tensor(x).dtype == mt.int64 and getattr(mt, name)(mt.tensor(x), mt.tensor(y)).dtype == mt.float32
        return
    check_parity(name, [x, y])


@pytest.mark.parametrize("name", ["atan2", "hypot", "xlogy", "copysign", "fmod", "remainder", "fmax", "float_power",
                                  "ldexp", "greater", "less_equal", "not_equal", "subtract", "multiply", "divide",
                                  "rsub", "clamp_min", "clamp_max", "logaddexp"])
@pytest.mark.parametrize("number", [2, -1.5])
def test_binary_functions_with_a_number_match_torch(name, number):
    x = SPECIAL.astype(np.float32)
    if name in ("ldexp",):
        return check_parity(name, [x, np.array([number]).astype(np.int64 if isinstance(number, int) else np.float32)])
    theirs, torch_error = _run(torch, name, [torch.tensor(x), number], {})
    if torch_error is not None:  # torch wants a tensor (hypot, xlogy, copysign ...): a 0-d one then
        number = np.array(number, dtype=np.float32)
    check_parity(name, [x, number], atol=1e-5)
    check_parity(name, [INTEGERS, number], atol=1e-5)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
@pytest.mark.parametrize("kinds", [("float32", "float32"), ("int64", "int64"), ("int64", "float"), ("float64", "int")])
def test_div_with_rounding_modes_matches_torch(mode, kinds):
    x = {"float32": SPECIAL.astype(np.float32), "int64": INTEGERS, "float64": np.linspace(-7.5, 7.5, 8)}[kinds[0]]
    y = {"float32": np.roll(SPECIAL, 3).astype(np.float32), "int64": np.array([3, -2, 4, 5, 7, -1, 2, -5]),
         "float": -2.5, "int": 3}[kinds[1]]
    check_parity("div", [x, y], {"rounding_mode": mode})
    check_parity("divide", [x, y], {"rounding_mode": mode})


def test_div_refuses_an_unknown_rounding_mode_and_integer_division_by_zero():
    with pytest.raises(ValueError, match="rounding_mode"):
        mt.div(mt.ones(2), 2, rounding_mode="round")
    for call in (lambda m, x, y: m.div(x, y, rounding_mode="trunc"), lambda m, x, y: m.div(x, y, rounding_mode="floor"),
                 lambda m, x, y: m.fmod(x, y), lambda m, x, y: m.remainder(x, y), lambda m, x, y: m.floor_divide(x, y),
                 lambda m, x, y: x % y, lambda m, x, y: x // y):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call(mt, mt.tensor([4, 5]), mt.tensor([2, 0]))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call(torch, torch.tensor([4, 5]), torch.tensor([2, 0]))
    x = mt.tensor([4, 5])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        x.remainder_(0)
    assert x.tolist() == [4, 5]
    assert mt.fmod(mt.tensor([1.0, -1.0]), 0).isnan().all()  # floats divide by zero as IEEE says


@pytest.mark.parametrize("decimals", [0, 1, 3, -1, -2])
def test_round_with_decimals_matches_torch(decimals):
    x = np.random.default_rng(2).uniform(-2000, 2000, 50).astype(np.float32)
    check_parity("round", [x], {"decimals": decimals})
    check_parity("round", [x.astype(np.float64)], {"decimals": decimals})
    check_parity("round", [np.array([0.5, 1.5, 2.5, -0.5, 0.25, 0.35]).astype(np.float32)], {"decimals": decimals})
    with pytest.raises(TypeError, match="decimals"):
        mt.round(mt.tensor([1, 2]), decimals=1)


def test_ternary_functions_match_torch():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    c = rng.uniform(0.5, 2, (2, 1)).astype(np.float32)
    for weight in (0.0, 0.3, 0.5, 1.0, 1.7, -0.2):
        check_parity("lerp", [a, b, weight])
    check_parity("lerp", [a, b, rng.uniform(-0.5, 1.5, (2, 3)).astype(np.float32)])
    for value in (1, 0.5, -2):
        check_parity("addcmul", [a, b, c], {"value": value})
        check_parity("addcdiv", [a, b, c], {"value": value})
    check_parity("addcmul", [INTEGERS, INTEGERS, INTEGERS], {"value": 3})
    check_parity("clamp", [SPECIAL.astype(np.float32), np.float32(-1) * np.ones(13, np.float32), np.ones(13, np.float32)])
    check_parity("clamp", [INTEGERS, -1.5, 2.5])
    check_parity("clamp", [INTEGERS, -1, 2])


def test_ternary_functions_refuse_what_torch_refuses():
    f, d = mt.ones(2), mt.ones(2, dtype=mt.float64)
    with pytest.raises(TypeError, match="lerp"):
        mt.lerp(f, d, 0.5)
    with pytest.raises(NotImplementedError, match="lerp"):  # PyTorch's class (a RuntimeError)
        mt.lerp(mt.tensor([1, 2]), mt.tensor([1, 2]), 0.5)
    with pytest.raises(TypeError, match="integer division"):
        mt.addcdiv(f, mt.tensor([1, 2]), mt.tensor([1, 2]))
    with pytest.raises(TypeError, match="value 0.5"):
        mt.addcmul(mt.tensor([1, 2]), mt.tensor([1, 2]), mt.tensor([1, 2]), value=0.5)
    for call in (lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5),
                 lambda m: m.addcdiv(m.ones(2), m.tensor([1, 2]), m.tensor([1, 2]))):
        with pytest.raises(RuntimeError):
            call(torch)


def test_functions_with_extra_arguments_match_torch():
    x = SPECIAL.astype(np.float32)
    check_parity("nan_to_num", [x], {"nan": 1.5, "posinf": 100.0, "neginf": -7.0})
    check_parity("nan_to_num", [x.astype(np.float16)])
    check_parity("logit", [np.linspace(-0.5, 1.5, 9).astype(np.float32)], {"eps": 0.1})
    check_parity("isclose", [x, x + np.float32(1e-6)])
    check_parity("isclose", [x, x], {"equal_nan": True})
    check_parity("isclose", [x, x * np.float32(1.01)], {"rtol": 0.02, "atol": 0.0})
    check_parity("isclose", [INTEGERS, INTEGERS + 1], {"atol": 1.0})
    check_parity("allclose", [x[:10], x[:10] + np.float32(1e-7)])
    check_parity("allclose", [x, x], {"equal_nan": True})
    check_parity("allclose", [x, x])
    check_parity("equal", [INTEGERS, INTEGERS.astype(np.float32)])
    check_parity("equal", [INTEGERS, INTEGERS[:3]])
    check_parity("equal", [x, x])
    check_parity("frexp", [x[np.isfinite(x)]])
    check_parity("frexp", [np.array([1e-40, 3e38, -5.0], dtype=np.float32)])
    for n in (0, 1, 2, 3):
        check_parity("polygamma", [n, np.array([0.5, 1.0, 2.5, 7.0, -0.5], np.float32)], rtol=1e-4, method=False)
        assert_same(mt.tensor([0.5, 3.0]).polygamma(n), torch.tensor([0.5, 3.0]).polygamma(n), rtol=1e-4)
    for p in (1, 2, 4):
        check_parity("mvlgamma", [np.array([2.0, 3.5, 10.0], np.float32), p], rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m: m.frexp(m.tensor([1, 2])), lambda m: m.gcd(m.ones(2), m.ones(2)), lambda m: m.lcm(m.tensor([1]), m.ones(1)),
    lambda m: m.bitwise_left_shift(m.ones(2), 1), lambda m: m.tensor([1.0]) >> 1, lambda m: m.frac(m.tensor([1, 2])),
    lambda m: m.heaviside(m.ones(2), m.tensor(0.5, dtype=m.float64)), lambda m: m.nextafter(m.tensor([1]), m.tensor([2])),
    lambda m: m.isclose(m.ones(2), m.ones(2, dtype=m.float64)), lambda m: m.allclose(m.tensor([1]), m.ones(1)),
    lambda m: m.polygamma(-1, m.ones(2)), lambda m: m.mvlgamma(m.tensor([2.5]), 0), lambda m: m.positive(m.tensor([True])),
    lambda m: m.ones(2).float_power_(2), lambda m: m.tensor([4]).sqrt_(), lambda m: m.tensor([4]).reciprocal_(),
    lambda m: m.tensor([4]).atan2_(m.ones(1)), lambda m: m.tensor([1, 2]).lerp_(m.tensor([1, 2]), 0.5),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception):  # noqa: B017  (torch's classes differ; what matters is both refuse)
        call(torch)
    with pytest.raises((TypeError, ValueError, RuntimeError)):
        call(mt)


# ----- in-place twins -----

IN_PLACE = [  # (method, arguments after self, input kind)
    ("acos_", (), "float32"), ("arccos_", (), "float32"), ("asin_", (), "float32"), ("arcsin_", (), "float32"),
    ("atan_", (), "float32"), ("arctan_", (), "float32"), ("acosh_", (), "float32"), ("arccosh_", (), "float32"),
    ("asinh_", (), "float32"), ("arcsinh_", (), "float32"), ("atanh_", (), "float32"), ("arctanh_", (), "float32"),
    ("cosh_", (), "float32"), ("sinh_", (), "float32"), ("tan_", (), "float32"), ("deg2rad_", (), "float32"),
    ("rad2deg_", (), "float32"), ("exp2_", (), "float32"), ("expm1_", (), "float32"), ("log2_", (), "float32"),
    ("log10_", (), "float32"), ("log1p_", (), "float32"), ("rsqrt_", (), "float32"), ("reciprocal_", (), "float32"),
    ("sinc_", (), "float32"), ("erf_", (), "float32"), ("erfc_", (), "float32"), ("erfinv_", (), "float32"),
    ("lgamma_", (), "float64"), ("digamma_", (), "float64"), ("i0_", (), "float32"), ("logit_", (0.1,), "float32"),
    ("trunc_", (), "float32"), ("fix_", (), "float32"), ("frac_", (), "float32"), ("floor_", (), "float32"),
    ("ceil_", (), "float32"), ("round_", (), "float32"), ("sgn_", (), "float32"), ("negative_", (), "float32"),
    ("absolute_", (), "int64"), ("nan_to_num_", (), "float32"), ("clamp_min_", (0.5,), "float32"),
    ("clamp_max_", (2,), "int64"), ("polygamma_", (1,), "float64"), ("mvlgamma_", (1,), "float64"),
    ("atan2_", ("t",), "float32"), ("arctan2_", ("t",), "float32"), ("hypot_", ("t",), "float32"),
    ("float_power_", (2,), "float64"), ("ldexp_", ("t",), "float32"), ("fmod_", (1.5,), "float32"),
    ("copysign_", (-1.0,), "float32"), ("heaviside_", ("t",), "float32"), ("nextafter_", ("t",), "float32"),
    ("xlogy_", (2.0,), "float32"), ("igamma_", ("t",), "float64"), ("igammac_", ("t",), "float64"),
    ("lerp_", ("t", 0.25), "float32"), ("addcmul_", ("t", "t"), "float32"), ("addcdiv_", ("t", "t"), "float32"),
    ("gcd_", ("t",), "int64"), ("lcm_", ("t",), "int64"), ("bitwise_left_shift_", (2,), "int64"),
    ("bitwise_right_shift_", (1,), "int64"), ("subtract_", (1.5,), "float32"), ("multiply_", (2,), "int64"),
    ("divide_", (4.0,), "float32"), ("true_divide_", (4.0,), "float32"), ("eq_", (0.5,), "float32"),
    ("ne_", (0.5,), "float32"), ("lt_", (0.5,), "float32"), ("le_", (0,), "int64"), ("gt_", (0,), "int64"),
    ("ge_", (0.5,), "float32"), ("greater_", (0.5,), "float32"), ("greater_equal_", (0.5,), "float32"),
    ("less_", (0.5,), "float32"), ("less_equal_", (0.5,), "float32"), ("not_equal_", (0.5,), "float32"),
    ("logical_and_", ("t",), "float32"), ("logical_or_", ("t",), "int64"), ("logical_xor_", ("t",), "float32"),
    ("logical_not_", (), "int64"),
]


def _in_place_args(args, x):
    """'t' stands for a tensor like x (other values, same dtype and shape)."""
    out = []
    for a in args:
        if a == "t":
            a = np.roll(np.abs(x) if x.dtype.kind == "f" else x, 2) + (1 if x.dtype.kind != "f" else 0.5)
        out.append(a)
    return out


@pytest.mark.parametrize("name, args, kind", IN_PLACE, ids=[row[0] for row in IN_PLACE])
def test_in_place_twins_write_into_the_same_tensor_as_torch(name, args, kind):
    x = _inputs(kind)
    args = _in_place_args(args, x)
    ours_args, torch_args = zip(*(_pair(a) for a in [x] + args))
    ours, theirs = ours_args[0].clone(), torch_args[0].clone()
    result = getattr(ours, name)(*ours_args[1:])
    getattr(theirs, name)(*torch_args[1:])
    assert result is ours
    assert_same(ours, theirs, rtol=1e-4, atol=1e-5)
    if hasattr(torch, name):  # PyTorch's functional spelling, torch.acos_(x)
        again = ours_args[0].clone()
        assert getattr(mt, name)(again, *ours_args[1:]) is again
        assert_same(again, theirs, rtol=1e-4, atol=1e-5)


def test_every_in_place_function_of_torch_in_this_area_exists_in_minitorch():
    names = {name for name, _, _ in IN_PLACE} | {"abs_", "exp_", "log_", "sqrt_", "square_", "sin_", "cos_", "tanh_",
                                                 "sigmoid_", "relu_", "clamp_", "clip_", "neg_"}
    missing = sorted(n for n in names if hasattr(torch, n) and not hasattr(mt, n))
    assert missing == []
    for name in ("abs_", "exp_", "sqrt_", "sigmoid_", "clamp_", "neg_"):
        x = mt.tensor([0.25, 4.0])
        args = (0.5,) if name == "clamp_" else ()
        assert getattr(mt, name)(x, *args) is x
        assert_same(x, getattr(torch, name)(torch.tensor([0.25, 4.0]), *args))


def test_in_place_twins_refuse_results_that_do_not_fit():
    for name, args in (("acos_", ()), ("exp2_", ()), ("reciprocal_", ()), ("hypot_", (mt.tensor([1, 2]),)),
                       ("xlogy_", (2,)), ("logit_", ()), ("frac_", ())):
        x = mt.tensor([1, 2])
        with pytest.raises((RuntimeError, TypeError)):
            getattr(x, name)(*args)
        assert x.tolist() == [1, 2]
    with pytest.raises(TypeError, match="float_power_"):
        mt.ones(2).float_power_(2)


@pytest.mark.parametrize("name, args", [("asin_", ()), ("atan2_", ("t",)), ("lerp_", ("t", 0.3)), ("logit_", ()),
                                         ("addcmul_", ("t", "t")), ("clamp_min_", (0.4,)), ("xlogy_", (3.0,)),
                                         ("erfinv_", ()), ("frac_", ()), ("polygamma_", (1,)), ("nan_to_num_", ())])
def test_in_place_twins_are_recorded_for_autograd_as_in_torch(name, args):
    x = np.array([0.2, 0.45, 0.7, 0.9])
    args = _in_place_args(args, x)
    grads = []
    for m in (mt, torch):
        leaf = m.tensor(x, requires_grad=True)
        y = leaf * 1.0
        getattr(y, name)(*[m.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        (y * m.tensor([1.0, -2.0, 3.0, 0.5], dtype=m.float64)).sum().backward()
        grads.append(leaf.grad)
    assert_same(grads[0], grads[1], rtol=1e-7, atol=1e-10)


def test_shift_operators_match_torch():
    x = INTEGERS
    for ours, theirs in ((lambda t: t << 2, None), (lambda t: t >> 1, None), (lambda t: 3 << t.abs(), None),
                         (lambda t: 64 >> t.abs(), None)):
        assert_same(ours(mt.tensor(x)), ours(torch.tensor(x)))
    a, b = mt.tensor(x), torch.tensor(x)
    a <<= 3
    b <<= 3
    assert_same(a, b)
    a >>= 2
    b >>= 2
    assert_same(a, b)


# ----- gradients at the points where finite differences cannot look -----

GRADIENT_CASES = [  # (function name, extra arguments, inputs)
    ("sinc", (), [-1.0, 0.0, 0.5, 2.0]),
    ("frac", (), [-1.5, 0.0, 0.5, 2.0]),
    ("trunc", (), [-1.5, 0.0, 0.5, 2.0]),
    ("round", (), [-1.5, 0.0, 0.5, 2.0]),
    ("nan_to_num", (), [np.nan, np.inf, -np.inf, 2.0]),
    ("logit", (), [0.0, 0.5, 1.0, 0.3]),
    ("logit", (0.2,), [0.1, 0.2, 0.8, 0.9]),
    ("xlogy", ("other",), [0.0, 1.0, 0.0, 2.0]),
    ("copysign", ("other",), [0.0, -1.0, 0.0, 2.0]),
    ("fmax", ("other",), [np.nan, 1.0, 3.0, 0.5]),
    ("fmin", ("other",), [np.nan, 1.0, 3.0, 0.5]),
    ("hypot", ("other",), [0.0, 3.0, -1.0, 0.5]),
    ("atan2", ("other",), [0.0, 3.0, -1.0, 0.5]),
    ("fmod", ("other",), [5.5, -5.5, 1.0, 0.5]),
    ("float_power", ("other",), [0.0, 3.0, 1.0, 0.5]),
    ("logaddexp", ("other",), [-np.inf, 3.0, 1.0, 0.5]),
    ("clamp_min", ("other",), [0.0, 3.0, 1.0, 0.5]),
    ("clamp_max", ("other",), [0.0, 3.0, 1.0, 0.5]),
    ("lerp", ("other", "other"), [0.0, 3.0, 1.0, 0.5]),
    ("rsqrt", (), [0.0, 4.0, 1.0, 0.5]),
    ("acosh", (), [1.0, 4.0, 1.5, 0.5]),
    ("i0", (), [0.0, 4.0, -1.5, 0.5]),
    ("igamma", ("first",), [0.5, 4.0, 1.5, 0.5]),  # differentiable in x only
    ("floor", (), [-1.5, 0.0, 0.5, 2.0]),
    ("sign", (), [-1.5, 0.0, np.nan, 2.0]),
    ("abs", (), [-1.5, 0.0, np.nan, 2.0]),
    ("erfinv", (), [0.0, 1.0, -0.5, 0.5]),
]
OTHER = [1.0, 3.0, 0.0, -np.inf]


@pytest.mark.parametrize("name, extra, values", GRADIENT_CASES, ids=[f"{c[0]}{len(c[1])}" for c in GRADIENT_CASES])
def test_gradients_match_torch_at_special_points(name, extra, values):
    grads = []
    for m in (mt, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        others = [m.tensor(OTHER if i == 0 else [0.2, 0.5, 0.9, 0.1], dtype=m.float64, requires_grad=e == "other")
                  if e in ("other", "first") else e for i, e in enumerate(extra)]
        arguments = [others[0], x] if extra == ("first",) else [x] + others
        if name == "fmax" or name == "fmin":
            arguments[1] = m.tensor([1.0, np.nan, 3.0, 0.5], dtype=m.float64, requires_grad=True)
        out = getattr(m, name)(*arguments)
        (out * m.tensor([1.0, -2.0, 3.0, 0.5], dtype=m.float64)).sum().backward()
        grads.append([t.grad for t in arguments if isinstance(t, (mt.Tensor, torch.Tensor)) and t.requires_grad])
    for ours, theirs in zip(*grads):
        if theirs is None:
            assert ours is None or not np.any(ours.numpy())
        else:
            assert ours is not None
            assert_same(ours, theirs, rtol=1e-7, atol=1e-10)


def test_igamma_refuses_a_gradient_in_its_first_argument_as_torch_does():
    for m in (mt, torch):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError):
            m.igamma(a, m.tensor([1.0, 2.0])).sum().backward()


def test_second_derivatives_match_torch():
    values = [0.3, 1.2, 2.5]
    for name in ("tan", "asinh", "lgamma", "digamma", "erfinv", "sinc", "rsqrt", "expm1", "i0", "logit"):
        grads = []
        for m in (mt, torch):
            x = m.tensor([v / 3 if name in ("erfinv", "logit") else v for v in values], dtype=m.float64, requires_grad=True)
            (first,) = m.autograd.grad(getattr(m, name)(x).sum(), x, create_graph=True)
            (second,) = m.autograd.grad(first.sum(), x)
            grads.append(second)
        assert_same(grads[0], grads[1], rtol=1e-6, atol=1e-9)


# ----- conversions and new tensors -----

@pytest.mark.parametrize("name", ["half", "byte", "char", "short", "float", "double", "long", "int", "bool"])
def test_conversion_methods_match_torch(name):
    x = np.array([1.7, -2.2, 0.0, 200.5], np.float32)
    if name == "byte":
        x = np.abs(x)  # negative floats to uint8 are undefined behaviour in C, and differ between libraries
    assert_same(getattr(mt.tensor(x), name)(), getattr(torch.tensor(x), name)())


def test_type_as_ndimension_nelement_match_torch():
    x = np.array([[1.7, -2.2, 0.0]], np.float32)
    assert_same(mt.tensor(x).type_as(mt.tensor([1])), torch.tensor(x).type_as(torch.tensor([1])))
    assert mt.tensor(x).ndimension() == torch.tensor(x).ndimension() == 2
    assert mt.tensor(x).nelement() == torch.tensor(x).nelement() == 3
    with pytest.raises(TypeError, match="bfloat16"):
        mt.tensor(x).bfloat16()


def test_new_tensors_match_torch():
    f, i = np.array([1.5, 2.5], np.float32), np.array([1, 2])
    for data in (f, i):
        a, b = mt.tensor(data), torch.tensor(data)
        assert_same(a.new_tensor([1, 2]), b.new_tensor([1, 2]))
        assert_same(a.new_tensor([1.7], dtype=mt.int64), b.new_tensor([1.7], dtype=torch.int64))
        assert_same(a.new_zeros(2, 3), b.new_zeros(2, 3))
        assert_same(a.new_zeros((2,)), b.new_zeros((2,)))
        assert_same(a.new_ones([3]), b.new_ones([3]))
        assert_same(a.new_ones(2, dtype=mt.float64), b.new_ones(2, dtype=torch.float64))
        assert_same(a.new_full((2, 2), 1.5), b.new_full((2, 2), 1.5))
        assert tuple(a.new_empty(4).shape) == tuple(b.new_empty(4).shape) and a.new_empty(4).dtype == a.dtype
    copied = mt.tensor(f, requires_grad=True)
    fresh = copied.new_tensor(copied)
    assert not fresh.requires_grad and fresh.tolist() == copied.tolist()
    fresh.add_(1)
    assert copied.tolist() == [1.5, 2.5]  # a copy, not a view
    assert mt.zeros(1).new_ones(2, requires_grad=True).requires_grad


def test_methods_are_the_functions_and_aliases_are_one_object():
    # mt.asin is the method's function with PyTorch's out= around it (one wrapper for both names)
    assert mt.Tensor.arcsin is mt.Tensor.asin is mt.asin.__wrapped__ and mt.asin is mt.arcsin
    assert mt.Tensor.fix is mt.trunc.__wrapped__ and mt.trunc is mt.fix
    assert mt.Tensor.arccos_ is mt.Tensor.acos_ is mt.acos_ is mt.arccos_
    assert mt.greater is mt.gt and mt.less_equal is mt.le and mt.not_equal is mt.ne
    assert mt.negative is mt.neg and mt.absolute is mt.abs and mt.sgn is mt.sign
    assert "arcsine" in mt.Tensor.arcsin.__doc__


# ----- mt.special -----

SPECIAL_UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "digamma", "entr", "erf", "erfc", "erfcx",
                 "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "logit",
                 "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "ndtr", "ndtri",
                 "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "sinc", "spherical_bessel_j0"]


@pytest.mark.parametrize("name", SPECIAL_UNARY)
@pytest.mark.parametrize("kind", ["float32", "float64"])
def test_special_functions_match_torch_special(name, kind):
    x = _inputs(kind)
    if kind == "float64":
        x = np.concatenate([x, np.abs(x) * 0.1, np.abs(x) * 10])
    expected = getattr(torch.special, name)(torch.tensor(x))
    assert_same(getattr(mt.special, name)(mt.tensor(x)), expected, rtol=2e-4 if kind == "float32" else 1e-6, atol=1e-6)


def test_special_functions_of_two_arguments_and_reductions_match_torch_special():
    rng = np.random.default_rng(4)
    x, y = rng.uniform(0.1, 4.0, 6), rng.uniform(0.5, 3.0, 6)
    for name in ("xlogy", "xlog1py", "gammainc", "gammaincc", "zeta"):
        assert_same(getattr(mt.special, name)(mt.tensor(x), mt.tensor(y)), getattr(torch.special, name)(torch.tensor(x), torch.tensor(y)))
    assert_same(mt.special.zeta(mt.tensor(x + 1), 1.0), torch.special.zeta(torch.tensor(x + 1), 1.0))
    assert_same(mt.special.xlog1py(mt.tensor([0.0, 2.0]), mt.tensor([np.nan, -1.0])),
                torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([np.nan, -1.0])))
    assert_same(mt.special.multigammaln(mt.tensor(x + 2), 3), torch.special.multigammaln(torch.tensor(x + 2), 3))
    assert_same(mt.special.polygamma(2, mt.tensor(x)), torch.special.polygamma(2, torch.tensor(x)))
    for name in ("softmax", "log_softmax", "logsumexp"):
        assert_same(getattr(mt.special, name)(mt.tensor(x.reshape(2, 3)), 1), getattr(torch.special, name)(torch.tensor(x.reshape(2, 3)), 1))
    assert sorted(mt.special.__all__) == sorted(n for n in mt.special.__all__ if hasattr(torch.special, n))


@pytest.mark.parametrize("name", ["entr", "erfcx", "i0e", "i1", "i1e", "log_ndtr", "ndtr", "ndtri", "xlog1py"])
def test_special_gradients_match_torch_special(name):
    values = [0.0, 0.3, 0.9, 2.5] if name != "ndtri" else [0.01, 0.3, 0.5, 0.9]
    grads = []
    for m in (mt, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        args = (x, m.tensor([0.5, 1.0, -0.5, 2.0], dtype=m.float64, requires_grad=True)) if name == "xlog1py" else (x,)
        (getattr(m.special, name)(*args) * m.tensor([1.0, -2.0, 3.0, 0.5], dtype=m.float64)).sum().backward()
        grads.append([a.grad for a in args])
    for ours, theirs in zip(*grads):
        assert_same(ours, theirs, rtol=1e-7, atol=1e-10)


def test_special_functions_without_gradients_in_torch_have_none_here():
    for name in ("bessel_j0", "bessel_y1", "modified_bessel_k0", "airy_ai", "spherical_bessel_j0"):
        out = getattr(mt.special, name)(mt.tensor([0.5, 1.0], requires_grad=True))
        assert not out.requires_grad


# ----- silence, as in PyTorch -----

CHILD = r"""
import json, sys, warnings
import numpy as np
import minitorch as mt
x = mt.tensor(np.array(json.loads(sys.argv[1]), np.float32))
y = mt.tensor(np.asarray(x)[::-1].copy())
calls = [lambda name=name: getattr(mt, name)(x) for name in sys.argv[2].split()]
calls += [lambda name=name: getattr(mt, name)(x, y) for name in sys.argv[3].split()]
calls += [lambda name=name: getattr(mt.special, name)(x) for name in sys.argv[4].split()]
calls += [lambda: mt.lerp(x, y, y), lambda: mt.polygamma(2, x), lambda: mt.mvlgamma(x, 3), lambda: mt.frexp(x),
          lambda: mt.div(x, y, rounding_mode="trunc"), lambda: mt.round(x, decimals=2), lambda: mt.heaviside(x, y)]
x64 = mt.tensor(np.asarray(x).astype(np.float64), requires_grad=True)
calls += [lambda name=name: getattr(mt, name)(x64).sum().backward() for name in sys.argv[2].split()
          if getattr(mt, name)(x64).requires_grad]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", append=True)  # behind minitorch's filter: it still applies
    for call in calls:
        call()
print(json.dumps([str(w.message) for w in caught]))
"""


def test_no_warnings_reach_users_for_nan_inf_and_out_of_domain_inputs():
    """PyTorch computes nan and inf silently; so must every kernel here (numpy's own Python code,
    like np.sinc's, would warn from numpy's frames, which minitorch's filter does not cover)."""
    binary = [n for n in BINARY if n not in ("isclose",)] + ["isclose", "allclose", "equal"]
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(SPECIAL.tolist()), " ".join(UNARY), " ".join(binary),
                          " ".join(SPECIAL_UNARY)], capture_output=True, text=True, timeout=300, check=True,
                         env={**os.environ, "PYTHONWARNINGS": "default"})
    assert json.loads(out.stdout) == []
