"""Data types and PyTorch's type-promotion rules.

A minitorch dtype is a thin name over a numpy dtype, so that `repr` reads like
PyTorch's (`minitorch.float32`) while the data stays a plain numpy array.
"""
import builtins

import numpy as np


class DType:
    """A tensor's data type (`mt.float32`, `mt.int64`, ...): a PyTorch-style name over a numpy dtype.

    >>> mt.tensor([1.0]).dtype
    minitorch.float32
    >>> mt.float64.is_floating_point, mt.float64 == np.float64
    (True, True)
    """
    __slots__ = ("name", "numpy", "is_floating_point", "category")

    def __init__(self, name, numpy_dtype, category):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.is_floating_point = category == 2
        self.category = category  # 0 bool, 1 integer, 2 floating: PyTorch's promotion order

    def __repr__(self):
        return f"minitorch.{self.name}"

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.numpy == other.numpy
        try:
            return self.numpy == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.numpy)


float32 = DType("float32", np.float32, 2)
float64 = DType("float64", np.float64, 2)
float16 = DType("float16", np.float16, 2)
int64 = DType("int64", np.int64, 1)
int32 = DType("int32", np.int32, 1)
int16 = DType("int16", np.int16, 1)
int8 = DType("int8", np.int8, 1)
uint8 = DType("uint8", np.uint8, 1)
bool_ = DType("bool", np.bool_, 0)

float = float32
double = float64
long = int64
int = int32
short = int16
half = float16


class UnsupportedDType(DType):
    """A PyTorch dtype minitorch cannot hold (complex, bfloat16, wide unsigned, float8, quantized, sub-byte):
    it has its name, so code that names it imports, and using it raises a TypeError that says why.

    >>> mt.cfloat
    minitorch.complex64
    >>> mt.zeros(2, dtype=mt.cfloat)
    Traceback (most recent call last):
    ...
    TypeError: minitorch has no complex64 dtype: complex numbers are out of scope (real float16/32/64 only)
    """
    __slots__ = ("reason",)

    def __init__(self, name, reason):
        self.name, self.reason = name, reason
        self.numpy, self.is_floating_point, self.category = None, False, None

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)


def _unsupported(reason, *names):
    return {name: UnsupportedDType(name, reason) for name in names}


UNSUPPORTED = {
    **_unsupported("complex numbers are out of scope (real float16/32/64 only)", "complex32", "complex64", "complex128"),
    **_unsupported("numpy has no bfloat16 (use float16 or float32)", "bfloat16"),
    **_unsupported("of the unsigned integers only uint8 is supported (PyTorch's wider ones barely promote either)",
                   "uint16", "uint32", "uint64"),
    **_unsupported("8-bit and 4-bit floats are out of scope", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                   "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2"),
    **_unsupported("quantized tensors are out of scope", "qint8", "qint32", "quint8", "quint2x4", "quint4x2"),
    **_unsupported("sub-byte and bit dtypes are out of scope", "bit", "bits1x8", "bits2x4", "bits4x2", "bits8",
                   "bits16", "int1", "int2", "int3", "int4", "int5", "int6", "int7", "uint1", "uint2", "uint3",
                   "uint4", "uint5", "uint6", "uint7"),
}
UNSUPPORTED.update(cfloat=UNSUPPORTED["complex64"], cdouble=UNSUPPORTED["complex128"], chalf=UNSUPPORTED["complex32"])

_BY_NUMPY = {d.numpy: d for d in (float32, float64, float16, int64, int32, int16, int8, uint8, bool_)}

default_float = float32


def from_numpy_dtype(np_dtype):
    """The minitorch dtype of a numpy dtype (raises TypeError for unsupported ones).

    >>> mt.dtypes.from_numpy_dtype(np.dtype(np.int32))
    minitorch.int32
    """
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(f"minitorch does not support numpy dtype {np_dtype}") from None


def to_numpy_dtype(dtype):
    """The numpy dtype for a minitorch dtype, a numpy dtype, a Python type or a string.

    >>> mt.dtypes.to_numpy_dtype(mt.float16), mt.dtypes.to_numpy_dtype(float)
    (dtype('float16'), dtype('float32'))
    """
    if isinstance(dtype, DType):
        if dtype.numpy is None:
            raise TypeError(f"minitorch has no {dtype.name} dtype: {dtype.reason}")
        return dtype.numpy
    if dtype is builtins.float:
        return float32.numpy
    if dtype is builtins.int:
        return int64.numpy
    if dtype is builtins.bool:
        return bool_.numpy
    np_dtype = np.dtype(dtype)
    from_numpy_dtype(np_dtype)
    return np_dtype


def category(np_dtype):
    """0 for bool, 1 for integer, 2 for floating dtypes: PyTorch's promotion order.

    >>> mt.dtypes.category(np.dtype(np.int8)), mt.dtypes.category(np.dtype(np.float64))
    (1, 2)
    """
    kind = np_dtype.kind
    return 2 if kind == "f" else 0 if kind == "b" else 1


def promote(a, b):
    """PyTorch's result dtype for an elementwise op on numpy arrays `a` and `b`.

    Higher category (bool < int < float) wins; within one category a tensor with
    dimensions beats a zero-dimensional one, which is how PyTorch keeps
    `float32_tensor * float64_scalar_tensor` in float32.

    >>> mt.dtypes.promote(np.zeros(2, np.float32), np.array(1.0))
    dtype('float32')
    >>> mt.dtypes.promote(np.zeros(2, np.int64), np.zeros(2, np.float16))
    dtype('float16')
    """
    da, db = a.dtype, b.dtype
    if da is db:
        return da
    ca, cb = category(da), category(db)
    if ca != cb:
        return da if ca > cb else db
    a_dims, b_dims = a.ndim > 0, b.ndim > 0
    if a_dims != b_dims:
        return da if a_dims else db
    return np.promote_types(da, db)
