"""Tensor's operators and methods, bound onto the class from one table.

tensor.py is the value core and imports no op; the op functions live in
minitorch/ops/. This file sits above both and attaches each function to
Tensor as a method (JAX's `_set_array_base_attributes` in array_methods.py
does the same, and tinygrad's early `register` did). A method is the very
function it names, so `help(mt.Tensor.exp)` shows `mt.exp`'s documentation
and `x.exp()` is `mt.exp(x)`. Where to look for `x * y`: METHODS says
"__mul__" is `arithmetic_ops.mul`, which runs the "Mul" op (ops/arithmetic_ops.py).
"""
from . import core_methods, dtypes
from . import linalg
from .autograd.backward import backward as backward_of
from .engine.anomaly import untracked_write
from .engine.state import switches
from .engine.versions import counter_of, untracked_alias
from .ops import activation_ops, arithmetic_ops, bitwise_ops, coercion, comparison_ops, exponential_ops
from .ops import rounding_ops, special_ops, trigonometric_ops
from .ops import array_ops, in_place_ops, in_place_twins, random_ops, reduction_ops
from .ops import index_ops, join_ops, scatter_ops, shape_in_place_ops, shape_ops
from .ops import matrix_ops, norm_ops, product_ops, scan_ops, sort_ops, statistics_ops
from .tensor import Tensor


def _reflected(fn):
    """`other <op> self` for a binary function: Python's __radd__ and friends."""

    def reflected(self, other):
        return fn(other, self)

    reflected.__name__ = reflected.__qualname__ = f"r{fn.__name__}"
    reflected.__doc__ = f"`{fn.__name__}` with the operands swapped (other {fn.__name__} self)."
    return reflected


# ----- methods that exist only as methods -----

def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates d(self)/d(leaf) into `.grad` of every leaf that requires grad.

    A non-scalar tensor needs `gradient` (the vector in the vector-Jacobian
    product); `create_graph=True` records the backward pass for higher derivatives.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> (x ** 2).sum().backward()
    >>> x.grad
    tensor([2., 4.])
    """
    backward_of(self, gradient, retain_graph, create_graph, inputs=inputs)


# PyTorch's legacy tensor type names ("torch.FloatTensor"), which `Tensor.type()` speaks.
_TYPE_NAMES = {dtypes.float32: "FloatTensor", dtypes.float64: "DoubleTensor", dtypes.float16: "HalfTensor",
               dtypes.int64: "LongTensor", dtypes.int32: "IntTensor", dtypes.int16: "ShortTensor",
               dtypes.int8: "CharTensor", dtypes.uint8: "ByteTensor", dtypes.bool_: "BoolTensor"}
_TYPES_BY_NAME = {name: dtype for dtype, name in _TYPE_NAMES.items()}


def type_(self, dtype=None, non_blocking=False):
    """Without `dtype`, the type name ("minitorch.FloatTensor"); with one, this tensor converted to it.

    `dtype` is a dtype or a type name, "torch.LongTensor" or "minitorch.LongTensor"
    (non_blocking is accepted and means nothing on the CPU).

    >>> mt.tensor([1.0]).type()
    'minitorch.FloatTensor'
    >>> mt.tensor([1, 2]).type(mt.float64)
    tensor([1., 2.], dtype=minitorch.float64)
    >>> mt.tensor([1.5]).type('torch.LongTensor')
    tensor([1])
    """
    if dtype is None:
        return f"minitorch.{_TYPE_NAMES[self.dtype]}"
    if isinstance(dtype, str):
        module, _, name = dtype.rpartition(".")
        if module not in ("torch", "minitorch") or name not in _TYPES_BY_NAME:
            raise ValueError(f"type: invalid type {dtype!r}; expected one of "
                             f"{', '.join('minitorch.' + n for n in _TYPES_BY_NAME)} (or torch.*)")
        dtype = _TYPES_BY_NAME[name]
    return coercion.cast(self, dtype)


def _conversion(name, dtype, example, memory_format_by_position=False):
    # memory_format: PyTorch's layout hint, nothing to do for a numpy array (cfloat and cdouble take it by position)
    if memory_format_by_position:
        def convert(self, memory_format=None):
            return coercion.cast(self, dtype)
    else:
        def convert(self, *, memory_format=None):
            return coercion.cast(self, dtype)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"This tensor as {dtype.name} (runs the \"Cast\" op when the dtype differs).\n\n{example}"
    return convert


def type_as(self, other):
    """This tensor converted to `other`'s dtype. Runs the "Cast" op (nothing runs if the dtypes match).

    >>> mt.tensor([1.7, -1.7]).type_as(mt.tensor([1]))
    tensor([ 1, -1])
    """
    return coercion.cast(self, other.dtype)


def bfloat16(self):
    """Refused: numpy has no bfloat16, so minitorch cannot hold one honestly.

    >>> mt.ones(1).bfloat16()
    Traceback (most recent call last):
    ...
    TypeError: bfloat16 is not supported: numpy has no bfloat16 dtype. Use .half() (float16) or .float() (float32).
    """
    raise TypeError("bfloat16 is not supported: numpy has no bfloat16 dtype. Use .half() (float16) or .float() (float32).")


def pos(self):
    """+x: the tensor itself."""
    return self


def view_as(self, other):
    """The same storage in `other`'s shape (`view`: never a copy). Runs the "Reshape" op.

    >>> mt.arange(6).view_as(mt.zeros(3, 2)).shape
    minitorch.Size([3, 2])
    """
    return array_ops.view(self, other.shape)


def expand_as(self, other):
    """This tensor broadcast to `other`'s shape. Runs the "BroadcastTo" op.

    >>> mt.tensor([1, 2]).expand_as(mt.zeros(2, 2))
    tensor([[1, 2],
            [1, 2]])
    """
    return array_ops.broadcast_to(self, other.shape)


def where(self, condition, other):
    """self where `condition` holds, else `other` (see `mt.where`). Runs the "SelectV2" op.

    >>> mt.tensor([1.0, -2.0]).where(mt.tensor([True, False]), 0.0)
    tensor([1., 0.])
    """
    return comparison_ops.where(condition, self, other)


def _transposed(self):
    """All dimensions reversed. Runs the "Transpose" op.

    >>> mt.zeros(2, 3, 4).T.shape
    minitorch.Size([4, 3, 2])
    """
    return array_ops.permute(self, *reversed(range(self.ndim)))


def _detached(self):
    """The same storage, detached from every tape (PyTorch's `.data`); assigning replaces the values.

    Writing into `p.data` changes `p` without recording anything (the manual
    SGD step `W.data += -0.1 * W.grad`); `p.data = other` gives p other's
    values (any shape), also unrecorded. As in PyTorch, neither moves p's
    version: `.data` has a version counter of its own, and assigning keeps p's.
    So `w.data.mul_(2)` or `w.data = new` between forward and backward does not
    raise, and a gradient that saved w reads the new values (weight clipping,
    EMA updates in hooks rely on it). Under `mt.autograd.detect_anomaly()` such
    a write warns, naming the ops of a pending graph that saved the values.
    `detach()` is the tracked alias: a write through it moves p's version.

    >>> w = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> w.data
    tensor([1., 2.])
    >>> w.data -= 0.5
    >>> w
    tensor([0.5000, 1.5000], requires_grad=True)
    >>> w.data = mt.zeros(3)
    >>> w.shape
    minitorch.Size([3])
    """
    alias = array_ops.stop_gradient(self)
    untracked_alias(alias, self)
    return alias


def _set_data(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
    if self._requires_grad and other._data.dtype.kind != "f":
        raise RuntimeError(f"data set to a tensor that requires gradients must be floating point, got {other.dtype}")
    if switches.check_anomalies:
        untracked_write(counter_of(self), "x.data = y")
    self._data = other._data
    self._view_of = None  # the version stays (PyTorch's set_data): the change is not tracked


# ----- the table: method name -> function -----

METHODS = {
    # arithmetic and its operators
    "add": arithmetic_ops.add, "__add__": arithmetic_ops.add, "__radd__": _reflected(arithmetic_ops.add),
    "sub": arithmetic_ops.sub, "__sub__": arithmetic_ops.sub, "__rsub__": _reflected(arithmetic_ops.sub),
    "mul": arithmetic_ops.mul, "__mul__": arithmetic_ops.mul, "__rmul__": _reflected(arithmetic_ops.mul),
    "div": arithmetic_ops.div, "__truediv__": arithmetic_ops.div, "__rtruediv__": _reflected(arithmetic_ops.div),
    "pow": arithmetic_ops.pow, "__pow__": arithmetic_ops.pow, "__rpow__": _reflected(arithmetic_ops.pow),
    "matmul": product_ops.matmul, "__matmul__": product_ops.matmul, "__rmatmul__": _reflected(product_ops.matmul),
    "neg": arithmetic_ops.neg, "__neg__": arithmetic_ops.neg, "__pos__": pos,
    "abs": arithmetic_ops.abs, "__abs__": arithmetic_ops.abs,
    # comparisons and logic
    "eq": comparison_ops.eq, "__eq__": comparison_ops.eq, "__ne__": comparison_ops.ne,
    "__lt__": comparison_ops.lt, "__le__": comparison_ops.le, "__gt__": comparison_ops.gt, "__ge__": comparison_ops.ge,
    "__and__": bitwise_ops.bitwise_and, "__or__": bitwise_ops.bitwise_or, "__xor__": bitwise_ops.bitwise_xor,
    "__invert__": bitwise_ops.bitwise_not, "isnan": comparison_ops.isnan,
    # elementwise functions
    "exp": exponential_ops.exp, "log": exponential_ops.log, "sqrt": exponential_ops.sqrt, "sin": trigonometric_ops.sin, "cos": trigonometric_ops.cos,
    "tanh": trigonometric_ops.tanh, "sigmoid": activation_ops.sigmoid, "relu": activation_ops.relu, "sign": rounding_ops.sign,
    "square": arithmetic_ops.square, "clamp": comparison_ops.clamp, "clip": comparison_ops.clamp,
    "maximum": comparison_ops.maximum, "minimum": comparison_ops.minimum,
    # reductions
    "sum": reduction_ops.sum, "mean": reduction_ops.mean, "prod": reduction_ops.prod,
    "max": reduction_ops.max, "min": reduction_ops.min, "amax": reduction_ops.amax, "amin": reduction_ops.amin,
    "argmax": reduction_ops.argmax, "argmin": reduction_ops.argmin, "all": reduction_ops.all, "any": reduction_ops.any,
    "var": reduction_ops.var, "std": reduction_ops.std, "logsumexp": reduction_ops.logsumexp,
    "softmax": reduction_ops.softmax, "log_softmax": reduction_ops.log_softmax,
    # shapes and indexing
    "reshape": array_ops.reshape, "view": array_ops.view, "view_as": view_as, "flatten": array_ops.flatten,
    "squeeze": array_ops.squeeze, "unsqueeze": array_ops.unsqueeze, "permute": array_ops.permute,
    "transpose": array_ops.transpose, "t": shape_ops.t, "expand": array_ops.expand, "expand_as": expand_as,
    "contiguous": array_ops.contiguous, "clone": array_ops.clone, "detach": array_ops.stop_gradient,
    "__getitem__": array_ops.getitem,
    "floor_divide": arithmetic_ops.floor_divide, "__floordiv__": arithmetic_ops.floor_divide,
    "__rfloordiv__": _reflected(arithmetic_ops.floor_divide),
    "remainder": arithmetic_ops.remainder, "__mod__": arithmetic_ops.remainder, "__rmod__": _reflected(arithmetic_ops.remainder),
    "bitwise_and": bitwise_ops.bitwise_and, "bitwise_or": bitwise_ops.bitwise_or, "bitwise_xor": bitwise_ops.bitwise_xor,
    "bitwise_not": bitwise_ops.bitwise_not, "__rand__": _reflected(bitwise_ops.bitwise_and),
    "__ror__": _reflected(bitwise_ops.bitwise_or), "__rxor__": _reflected(bitwise_ops.bitwise_xor),
    "masked_fill": comparison_ops.masked_fill, "where": where,
    # in-place updates without an out-of-place twin here
    "__setitem__": in_place_ops.setitem, "zero_": in_place_ops.zero_, "fill_": in_place_ops.fill_,
    "copy_": in_place_ops.copy_, "uniform_": in_place_ops.uniform_, "normal_": in_place_ops.normal_,
    "bernoulli_": in_place_ops.bernoulli_, "masked_fill_": in_place_ops.masked_fill_,
    # conversions and autograd
    "type": type_, "backward": backward,
    "float": _conversion("float", dtypes.float32, ">>> mt.tensor([1, 2]).float()\ntensor([1., 2.])"),
    "double": _conversion("double", dtypes.float64, ">>> mt.tensor([1, 2]).double().dtype\nminitorch.float64"),
    "long": _conversion("long", dtypes.int64, ">>> mt.tensor([1.7, -1.7]).long()  # truncated toward zero\ntensor([ 1, -1])"),
    "int": _conversion("int", dtypes.int32, ">>> mt.tensor([1.7]).int()\ntensor([1], dtype=minitorch.int32)"),
    "bool": _conversion("bool", dtypes.bool_, ">>> mt.tensor([0.0, 2.0]).bool()\ntensor([False,  True])"),
    **{name: _conversion(name, dtypes.UNSUPPORTED[name], f">>> mt.ones(1).{name}()\nTraceback (most recent call last):\n"
                         f"...\nTypeError: minitorch has no {dtypes.UNSUPPORTED[name].name} dtype: "
                         f"{dtypes.UNSUPPORTED[name].reason}", name != "chalf") for name in ("cfloat", "cdouble", "chalf")},

    # ----- pointwise math, special functions, conversions (surface: pointwise) -----
    # trigonometry, exponentials, logarithms, special functions
    "tan": trigonometric_ops.tan, "asin": trigonometric_ops.asin, "arcsin": trigonometric_ops.asin, "acos": trigonometric_ops.acos,
    "arccos": trigonometric_ops.acos, "atan": trigonometric_ops.atan, "arctan": trigonometric_ops.atan, "sinh": trigonometric_ops.sinh,
    "cosh": trigonometric_ops.cosh, "asinh": trigonometric_ops.asinh, "arcsinh": trigonometric_ops.asinh,
    "acosh": trigonometric_ops.acosh, "arccosh": trigonometric_ops.acosh, "atanh": trigonometric_ops.atanh,
    "arctanh": trigonometric_ops.atanh, "atan2": trigonometric_ops.atan2, "arctan2": trigonometric_ops.atan2,
    "deg2rad": trigonometric_ops.deg2rad, "rad2deg": trigonometric_ops.rad2deg, "exp2": exponential_ops.exp2,
    "expm1": exponential_ops.expm1, "log2": exponential_ops.log2, "log10": exponential_ops.log10, "log1p": exponential_ops.log1p,
    "rsqrt": exponential_ops.rsqrt, "reciprocal": arithmetic_ops.reciprocal, "sinc": trigonometric_ops.sinc,
    "logaddexp": exponential_ops.logaddexp, "logaddexp2": exponential_ops.logaddexp2, "hypot": trigonometric_ops.hypot,
    "float_power": arithmetic_ops.float_power, "ldexp": exponential_ops.ldexp, "frexp": exponential_ops.frexp,
    "logit": activation_ops.logit, "xlogy": special_ops.xlogy, "erf": special_ops.erf, "erfc": special_ops.erfc,
    "erfinv": special_ops.erfinv, "lgamma": special_ops.lgamma, "digamma": special_ops.digamma,
    "polygamma": special_ops.polygamma_method, "mvlgamma": special_ops.mvlgamma, "igamma": special_ops.igamma,
    "igammac": special_ops.igammac, "i0": special_ops.i0,
    # rounding, signs, remainders, limits
    "floor": rounding_ops.floor, "ceil": rounding_ops.ceil, "round": rounding_ops.round, "trunc": rounding_ops.trunc,
    "fix": rounding_ops.trunc, "frac": rounding_ops.frac, "fmod": arithmetic_ops.fmod, "sgn": rounding_ops.sign,
    "signbit": rounding_ops.signbit, "copysign": rounding_ops.copysign, "heaviside": rounding_ops.heaviside,
    "nextafter": rounding_ops.nextafter, "fmax": comparison_ops.fmax, "fmin": comparison_ops.fmin,
    "nan_to_num": comparison_ops.nan_to_num, "clamp_min": comparison_ops.clamp_min, "clamp_max": comparison_ops.clamp_max,
    "positive": arithmetic_ops.positive, "resolve_neg": arithmetic_ops.resolve_neg, "negative": arithmetic_ops.neg, "absolute": arithmetic_ops.abs,
    "lerp": arithmetic_ops.lerp, "addcmul": arithmetic_ops.addcmul, "addcdiv": arithmetic_ops.addcdiv,
    "subtract": arithmetic_ops.sub, "multiply": arithmetic_ops.mul, "divide": arithmetic_ops.div, "true_divide": arithmetic_ops.div,
    # integers and bits
    "gcd": bitwise_ops.gcd, "lcm": bitwise_ops.lcm, "bitwise_left_shift": bitwise_ops.bitwise_left_shift,
    "bitwise_right_shift": bitwise_ops.bitwise_right_shift, "__lshift__": bitwise_ops.bitwise_left_shift,
    "__rshift__": bitwise_ops.bitwise_right_shift, "__rlshift__": _reflected(bitwise_ops.bitwise_left_shift),
    "__rrshift__": _reflected(bitwise_ops.bitwise_right_shift),
    # comparisons, tests, logic
    "ne": comparison_ops.ne, "lt": comparison_ops.lt, "le": comparison_ops.le, "gt": comparison_ops.gt, "ge": comparison_ops.ge,
    "greater": comparison_ops.gt, "greater_equal": comparison_ops.ge, "less": comparison_ops.lt, "less_equal": comparison_ops.le,
    "not_equal": comparison_ops.ne, "logical_and": comparison_ops.logical_and, "logical_or": comparison_ops.logical_or,
    "logical_xor": comparison_ops.logical_xor, "logical_not": comparison_ops.logical_not, "isfinite": comparison_ops.isfinite,
    "isinf": comparison_ops.isinf, "isposinf": comparison_ops.isposinf, "isneginf": comparison_ops.isneginf,
    "isreal": comparison_ops.isreal, "isclose": comparison_ops.isclose, "allclose": comparison_ops.allclose,
    "equal": comparison_ops.equal,
    # conversions and new tensors like this one
    "half": _conversion("half", dtypes.float16, ">>> mt.tensor([1.5]).half()\ntensor([1.5000], dtype=minitorch.float16)"),
    "byte": _conversion("byte", dtypes.uint8, ">>> mt.tensor([1.7, 255.0]).byte()\ntensor([  1, 255], dtype=minitorch.uint8)"),
    "char": _conversion("char", dtypes.int8, ">>> mt.tensor([1.7, -3.2]).char()\ntensor([ 1, -3], dtype=minitorch.int8)"),
    "short": _conversion("short", dtypes.int16, ">>> mt.tensor([1.7]).short()\ntensor([1], dtype=minitorch.int16)"),
    "bfloat16": bfloat16, "type_as": type_as,
    "hardshrink": activation_ops.hardshrink, "prelu": activation_ops.prelu,

    # ----- reductions, scans, sorting, statistics, linear algebra (surface: reductions/linalg) -----
    "sum_to_size": reduction_ops.sum_to_size, "cumsum": scan_ops.cumsum, "cumprod": scan_ops.cumprod, "logcumsumexp": scan_ops.logcumsumexp,
    "cummax": scan_ops.cummax, "cummin": scan_ops.cummin, "diff": scan_ops.diff,
    "sort": sort_ops.sort, "argsort": sort_ops.argsort, "msort": sort_ops.msort, "topk": sort_ops.topk,
    "kthvalue": sort_ops.kthvalue, "median": sort_ops.median, "nanmedian": sort_ops.nanmedian, "mode": sort_ops.mode,
    "quantile": sort_ops.quantile, "nanquantile": sort_ops.nanquantile, "unique": sort_ops.unique,
    "unique_consecutive": sort_ops.unique_consecutive,
    "nansum": statistics_ops.nansum, "nanmean": statistics_ops.nanmean, "aminmax": statistics_ops.aminmax,
    "count_nonzero": statistics_ops.count_nonzero, "cov": statistics_ops.cov, "corrcoef": statistics_ops.corrcoef,
    "bincount": statistics_ops.bincount, "histc": statistics_ops.histc, "histogram": statistics_ops.histogram,
    "norm": norm_ops.norm_method, "dist": norm_ops.dist, "renorm": norm_ops.renorm,
    "mm": product_ops.mm, "bmm": product_ops.bmm, "mv": product_ops.mv, "dot": product_ops.dot,
    "vdot": product_ops.vdot, "inner": product_ops.inner, "outer": product_ops.outer, "ger": product_ops.outer,
    "kron": product_ops.kron, "addmm": product_ops.addmm, "addbmm": product_ops.addbmm,
    "baddbmm": product_ops.baddbmm, "addmv": product_ops.addmv, "addr": product_ops.addr,
    "matrix_power": product_ops.matrix_power, "cross": product_ops.cross,
    "diag": matrix_ops.diag, "diag_embed": matrix_ops.diag_embed, "diagflat": matrix_ops.diagflat,
    "diagonal": matrix_ops.diagonal, "trace": matrix_ops.trace, "tril": matrix_ops.tril, "triu": matrix_ops.triu,
    "det": linalg.torch_det, "logdet": linalg.logdet, "slogdet": linalg.torch_slogdet, "inverse": linalg.inverse,
    "pinverse": linalg.pinverse, "cholesky": linalg.torch_cholesky, "cholesky_solve": linalg.cholesky_solve,
    "qr": linalg.torch_qr, "svd": linalg.torch_svd, "matrix_exp": linalg.matrix_exp,
    "symeig": linalg.symeig, "eig": linalg.legacy_eig, "lstsq": linalg.legacy_lstsq, "solve": linalg.legacy_solve,

    # ----- shapes, joining and splitting, indexing, scatter/gather (surface: shapes/indexing) -----
    "flip": shape_ops.flip, "fliplr": shape_ops.fliplr, "flipud": shape_ops.flipud, "roll": shape_ops.roll,
    "rot90": shape_ops.rot90, "repeat": shape_ops.repeat, "tile": shape_ops.tile,
    "repeat_interleave": shape_ops.repeat_interleave, "movedim": shape_ops.movedim, "moveaxis": shape_ops.movedim,
    "swapaxes": shape_ops.swapaxes, "swapdims": shape_ops.swapdims, "narrow": shape_ops.narrow,
    "select": shape_ops.select, "unfold": shape_ops.unfold, "unflatten": shape_ops.unflatten, "ravel": shape_ops.ravel,
    "reshape_as": shape_ops.reshape_as, "broadcast_to": array_ops.broadcast_to, "adjoint": shape_ops.adjoint,
    "stride": shape_ops.stride, "as_strided": shape_ops.as_strided, "storage_offset": shape_ops.offset_in_storage,
    "split": join_ops.unsafe_split, "split_with_sizes": join_ops.split_with_sizes, "chunk": join_ops.chunk,
    "unbind": join_ops.unbind, "tensor_split": join_ops.tensor_split, "hsplit": join_ops.hsplit,
    "vsplit": join_ops.vsplit, "dsplit": join_ops.dsplit, "unsafe_split": join_ops.unsafe_split,
    "unsafe_split_with_sizes": join_ops.split_with_sizes, "unsafe_chunk": join_ops.chunk,
    "gather": index_ops.gather, "take_along_dim": index_ops.take_along_dim, "take": index_ops.take,
    "index_select": index_ops.index_select, "masked_select": index_ops.masked_select, "nonzero": index_ops.nonzero,
    "nonzero_static": index_ops.nonzero_static, "argwhere": index_ops.argwhere,
    "scatter": scatter_ops.scatter, "scatter_add": scatter_ops.scatter_add, "scatter_reduce": scatter_ops.scatter_reduce,
    "index_add": scatter_ops.index_add, "index_copy": scatter_ops.index_copy, "index_fill": scatter_ops.index_fill,
    "index_put": scatter_ops.index_put, "index_reduce": scatter_ops.index_reduce,
    "masked_scatter": scatter_ops.masked_scatter, "put": scatter_ops.put,
    "squeeze_": shape_in_place_ops.squeeze_, "unsqueeze_": shape_in_place_ops.unsqueeze_, "t_": shape_in_place_ops.t_,
    "transpose_": shape_in_place_ops.transpose_, "swapaxes_": shape_in_place_ops.swapaxes_,
    "swapdims_": shape_in_place_ops.transpose_,

    # ----- devices, random sampling, the number protocol, misc (surface: core) -----
    "to": core_methods.to, "cpu": core_methods.cpu, "cuda": core_methods.cuda, "get_device": core_methods.get_device,
    "device": property(core_methods.device), "is_cuda": property(core_methods.is_cuda),
    "is_cpu": property(core_methods.is_cpu), "layout": property(core_methods.layout),
    "new_tensor": core_methods.new_tensor, "new_zeros": core_methods.new_zeros, "new_ones": core_methods.new_ones,
    "new_empty": core_methods.new_empty, "new_full": core_methods.new_full, "new": core_methods.new,
    "resize_": core_methods.resize_, "resize_as_": core_methods.resize_as_, "resize": core_methods.resize,
    "resize_as": core_methods.resize_as, "as_subclass": core_methods.as_subclass,
    "reinforce": core_methods.reinforce, "volatile": property(core_methods.volatile),
    "grad_dtype": property(core_methods.grad_dtype),
    "numpy": core_methods.numpy, "__reduce_ex__": core_methods.reduce_ex, "nelement": core_methods.nelement, "ndimension": core_methods.ndimension,
    "is_contiguous": core_methods.is_contiguous, "retains_grad": property(core_methods.retains_grad),
    "__format__": core_methods.format_, "__complex__": core_methods.complex_, "__round__": core_methods.round_,
    "multinomial": random_ops.multinomial_method, "bernoulli": random_ops.bernoulli_method,
    "random_": random_ops.random_, "exponential_": random_ops.exponential_, "geometric_": random_ops.geometric_,
    "log_normal_": random_ops.log_normal_, "cauchy_": random_ops.cauchy_,
}

# Python's augmented assignments, in place as in PyTorch (which has no in-place `@=`: it rebinds).
AUGMENTED = {
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_", "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_", "__ipow__": "pow_", "__iand__": "bitwise_and_", "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_", "__ilshift__": "bitwise_left_shift_", "__irshift__": "bitwise_right_shift_",
}

PROPERTIES = {"T": (_transposed, None), "mT": (shape_ops.matrix_transpose, None), "data": (_detached, _set_data),
              "H": (shape_ops.conjugate_transpose, None), "mH": (shape_ops.matrix_conjugate_transpose, None)}


def bind():
    """Attaches every method, in-place twin, operator and property of the tables to Tensor
    (once, when minitorch is imported)."""
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, fn in in_place_twins.IN_PLACE.items():
        setattr(Tensor, name, fn)
    for operator, name in AUGMENTED.items():
        setattr(Tensor, operator, getattr(Tensor, name))
    for name, (getter, setter) in PROPERTIES.items():
        setattr(Tensor, name, property(getter, setter, doc=getter.__doc__))


bind()
