"""Dtype coercion, in one place: how values become operands of one dtype before an op runs.

* `as_operand`: a Python number, a list or a numpy array as a Tensor. A number next to a
  tensor takes that tensor's dtype when it is of the same or a lower category (PyTorch's
  'wrapped numbers': `x * 2` stays float32);
* `promote_pair`: two operands promoted to one dtype, as PyTorch promotes them (`dtypes.promote`);
* `floating`, `floating_pair`: integers and bools as float32, PyTorch's default, for the ops
  whose result is floating point; `require_floating` refuses them where PyTorch does;
* `cast`, and the "Cast" op that every conversion runs; the conversions a tensor asks for by name
  (`x.type(...)`, `x.type_as(y)`, `x.float()` and friends, made by `conversion`);
* the public functions of the elementwise ops, made from their rows: each coerces its operands
  as above, then runs the op (`unary`, `floating_unary`, `binary`, `floating_binary`, `with_alpha`).
"""
import numpy as np

from .. import dtypes
from ..engine.execute import execute
from ..tensor import Tensor
from .rows import linear, op

_scalar_cache = {}  # (type, value, dtype) -> the 0-d tensor of a Python number: `x * 2` makes no new array


def as_operand(value, like=None, dtype=None):
    """`value` as a Tensor an op can take. A Python number next to a tensor
    `like` takes that tensor's dtype when it is of the same or a lower
    category (PyTorch's 'wrapped numbers': `x * 2` stays float32); numpy
    arrays are wrapped without a copy; tensors pass through (cast to `dtype`)."""
    if isinstance(value, Tensor):
        if dtype is None or value._data.dtype == dtypes.to_numpy_dtype(dtype):
            return value
        return execute("Cast", (value,), {"dtype": dtypes.to_numpy_dtype(dtype)})
    if dtype is None and like is not None and isinstance(value, (int, float, bool)):
        ref = like._data.dtype
        kind = 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2
        np_dtype = ref if kind <= dtypes.category(ref) else (np.dtype(np.int64) if kind == 1 else dtypes.default_float.numpy)
        key = (type(value), value, np_dtype)
        t = _scalar_cache.get(key)
        if t is None:
            if len(_scalar_cache) > 4096:
                _scalar_cache.clear()
            t = _scalar_cache[key] = Tensor._make(np.array(value, dtype=np_dtype))
        return t
    if isinstance(value, np.ndarray) and dtype is None:
        return Tensor._make(value)
    return Tensor._from_data(value, dtype=dtype)


def promote_pair(a, b):
    """Tensors of one dtype, following PyTorch's promotion (Python numbers are 'weak')."""
    if not isinstance(a, Tensor):
        a = as_operand(a, like=b)
    elif not isinstance(b, Tensor):
        b = as_operand(b, like=a)
    da, db = a._data.dtype, b._data.dtype
    if da is not db and da != db:
        target = dtypes.promote(a._data, b._data)
        if da != target:
            a = cast(a, target)
        if db != target:
            b = cast(b, target)
    return a, b


def floating(x):
    """`x` as a floating tensor (integers and bools become float32, PyTorch's default)."""
    x = as_operand(x)
    if x._data.dtype.kind != "f":
        x = cast(x, dtypes.default_float)
    return x


def floating_pair(a, b):
    """Two operands promoted to one floating dtype: true division of integers gives floats (float32, as PyTorch)."""
    a, b = promote_pair(a, b)
    if a._data.dtype.kind != "f":
        a, b = cast(a, dtypes.default_float), cast(b, dtypes.default_float)
    return a, b


def require_floating(input, name):
    """PyTorch's refusal of an integer or bool input to a function defined on floating point only."""
    if not input.is_floating_point():
        raise NotImplementedError(f'"{name}" not implemented for {input.dtype}: it needs a floating point input')


def cast(x, dtype):
    """A tensor with `x`'s values converted to `dtype`. Runs the "Cast" op (nothing runs if the dtype already matches).

    >>> mt.ops.coercion.cast(mt.tensor([1.7, -1.7]), mt.int64)
    tensor([ 1, -1])
    """
    np_dtype = dtypes.to_numpy_dtype(dtype)
    if x._data.dtype == np_dtype:
        return x
    return execute("Cast", (x,), {"dtype": np_dtype})


def _cast(x, dtype):
    return x.astype(dtype)


def _cast_grad(op, grad):
    """d cast(x) = dx (the tape casts the gradient back to the input's dtype)."""
    return grad


op("Cast", _cast, _cast_grad, needs="nothing", jvp=linear)


# ----- the conversions a tensor asks for by name (Tensor methods) -----

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
    return cast(self, dtype)


def conversion(name, dtype, example, memory_format_by_position=False):
    """The method `name` that converts a tensor to `dtype` (x.float(), x.long(), ...), with `example` as its
    doc example. memory_format is PyTorch's layout hint, nothing to do for a numpy array (cfloat and cdouble
    take it by position)."""
    if memory_format_by_position:
        def convert(self, memory_format=None):
            return cast(self, dtype)
    else:
        def convert(self, *, memory_format=None):
            return cast(self, dtype)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"This tensor as {dtype.name} (runs the \"Cast\" op when the dtype differs).\n\n{example}"
    return convert


CONVERSIONS = {  # the methods that convert a tensor to a dtype they name
    "float": conversion("float", dtypes.float32, ">>> mt.tensor([1, 2]).float()\ntensor([1., 2.])"),
    "double": conversion("double", dtypes.float64, ">>> mt.tensor([1, 2]).double().dtype\nminitorch.float64"),
    "half": conversion("half", dtypes.float16, ">>> mt.tensor([1.5]).half()\ntensor([1.5000], dtype=minitorch.float16)"),
    "long": conversion("long", dtypes.int64, ">>> mt.tensor([1.7, -1.7]).long()  # truncated toward zero\ntensor([ 1, -1])"),
    "int": conversion("int", dtypes.int32, ">>> mt.tensor([1.7]).int()\ntensor([1], dtype=minitorch.int32)"),
    "short": conversion("short", dtypes.int16, ">>> mt.tensor([1.7]).short()\ntensor([1], dtype=minitorch.int16)"),
    "char": conversion("char", dtypes.int8, ">>> mt.tensor([1.7, -3.2]).char()\ntensor([ 1, -3], dtype=minitorch.int8)"),
    "byte": conversion("byte", dtypes.uint8, ">>> mt.tensor([1.7, 255.0]).byte()\ntensor([  1, 255], dtype=minitorch.uint8)"),
    "bool": conversion("bool", dtypes.bool_, ">>> mt.tensor([0.0, 2.0]).bool()\ntensor([False,  True])"),
    **{name: conversion(name, dtypes.UNSUPPORTED[name], f">>> mt.ones(1).{name}()\nTraceback (most recent call last):\n"
                        f"...\nTypeError: minitorch has no {dtypes.UNSUPPORTED[name].name} dtype: "
                        f"{dtypes.UNSUPPORTED[name].reason}", name != "chalf") for name in ("cfloat", "cdouble", "chalf")},
}


def type_as(self, other):
    """This tensor converted to `other`'s dtype. Runs the "Cast" op (nothing runs if the dtypes match).

    >>> mt.tensor([1.7, -1.7]).type_as(mt.tensor([1]))
    tensor([ 1, -1])
    """
    return cast(self, other.dtype)


def bfloat16(self):
    """Refused: numpy has no bfloat16, so minitorch cannot hold one honestly.

    >>> mt.ones(1).bfloat16()
    Traceback (most recent call last):
    ...
    TypeError: bfloat16 is not supported: numpy has no bfloat16 dtype. Use .half() (float16) or .float() (float32).
    """
    raise TypeError("bfloat16 is not supported: numpy has no bfloat16 dtype. Use .half() (float16) or .float() (float32).")


# ----- the public functions of elementwise ops, made from their rows -----

def _named(function, name, doc):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def unary(row, name, doc):
    """`name(input)`: the op of `row` on one operand of any dtype (a number or an array becomes a tensor)."""
    op_name = row.name

    def function(input):
        return execute(op_name, (as_operand(input),))

    return _named(function, name, doc)


def floating_unary(row, name, doc):
    """`name(input)`: the op of `row`, whose result is floating point, on one operand (integers and bools
    are promoted to float32 first, as in PyTorch)."""
    op_name = row.name

    def function(input):
        try:
            if input._data.dtype.kind == "f":
                return execute(op_name, (input,))  # the common case, kept short: tensor methods come here
        except AttributeError:  # a number or an array, not a tensor
            pass
        return execute(op_name, (floating(input),))

    return _named(function, name, doc)


_KIND_NAMES = {"iub": "integer and bool tensors", "f": "floating-point tensors"}


def binary(row, name, doc, kinds=None):
    """`name(input, other)`: the op of `row` on two broadcasting operands promoted to one dtype, as PyTorch
    does (Python numbers are 'weak'). `kinds`: the numpy dtype kinds it accepts ("iub": integers and bools,
    "f": floating), where PyTorch refuses the others."""
    op_name = row.name

    def function(input, other):
        if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype is other._data.dtype:
            return execute(op_name, (input, other))  # the common case, kept short: this is the hot path
        return execute(op_name, promote_pair(input, other))

    if kinds is None:
        return _named(function, name, doc)

    def checked(input, other):
        for t in (input, other):
            if isinstance(t, Tensor) and t._data.dtype.kind not in kinds:
                raise NotImplementedError(f"{name}: not implemented for {t.dtype} ({_KIND_NAMES[kinds]} only)")
        return function(input, other)

    return _named(checked, name, doc)


def floating_binary(row, name, doc):
    """`name(input, other)`: the op of `row`, whose result is floating point, on two broadcasting operands
    promoted to one floating dtype."""
    op_name = row.name

    def function(input, other):
        return execute(op_name, floating_pair(input, other))

    return _named(function, name, doc)


def with_alpha(row, name, doc):
    """add/sub: `name(input, other, *, alpha=1)` is the op of `row` on input and alpha * other."""
    op_name = row.name

    def function(input, other, *, alpha=1):
        if alpha != 1:
            other = other * alpha
        if isinstance(input, Tensor) and isinstance(other, Tensor) and input._data.dtype is other._data.dtype:
            return execute(op_name, (input, other))
        return execute(op_name, promote_pair(input, other))

    return _named(function, name, doc)
