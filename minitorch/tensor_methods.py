"""Tensor's operators and methods, bound onto the class from one table.

tensor.py is the value core and imports no op; the op functions live in
minitorch/ops/. This file sits above both and attaches each function to
Tensor as a method (JAX's `_set_array_base_attributes` in array_methods.py
does the same, and tinygrad's early `register` did). A method is the very
function it names, so `help(mt.Tensor.exp)` shows `mt.exp`'s documentation
and `x.exp()` is `mt.exp(x)`. Where to look for `x * y`: METHODS says
"__mul__" is `math_ops.mul`, which runs the "Mul" op (ops/math_ops.py).
"""
from . import dtypes
from .autograd.backward import backward as backward_of
from .engine.versions import bump
from .ops import array_ops, in_place_ops, math_ops, reduction_ops
from . import linalg  # surface: reductions/linalg
from .ops import matrix_ops, norm_ops, product_ops, scan_ops, sort_ops, statistics_ops  # surface: reductions/linalg
from .ops.in_place_ops import twin
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
    backward_of(self, gradient, retain_graph, create_graph, inputs)


def to(self, dtype=None, *args, **kwargs):
    """This tensor converted to `dtype` (runs the "Cast" op); a device name ("cpu") returns self.

    >>> mt.tensor([1.5, 2.5]).to(mt.int64)
    tensor([1, 2])
    >>> x = mt.ones(1); x.to("cpu") is x
    True
    """
    if dtype is None or isinstance(dtype, str) and dtype in ("cpu", "cuda"):
        return self  # one device: the CPU
    return math_ops.cast(self, dtype)


def type_(self, dtype):
    """This tensor converted to `dtype` (same as `.to(dtype)`).

    >>> mt.tensor([1, 2]).type(mt.float64)
    tensor([1., 2.], dtype=minitorch.float64)
    """
    return math_ops.cast(self, dtype)


def _conversion(name, dtype, example):
    def convert(self):
        return math_ops.cast(self, dtype)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"This tensor as {dtype.name} (runs the \"Cast\" op when the dtype differs).\n\n{example}"
    return convert


def cpu(self):
    """Self: minitorch has one device, the CPU.

    >>> x = mt.ones(1)
    >>> x.cpu() is x
    True
    """
    return self


def pos(self):
    """+x: the tensor itself."""
    return self


def t(self):
    """The transpose of a tensor with at most 2 dimensions. Runs the "Transpose" op.

    >>> mt.tensor([[1, 2, 3]]).t()
    tensor([[1],
            [2],
            [3]])
    """
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return array_ops.permute(self, *reversed(range(self.ndim)))


def view_as(self, other):
    """The same elements in `other`'s shape. Runs the "Reshape" op.

    >>> mt.arange(6).view_as(mt.zeros(3, 2)).shape
    (3, 2)
    """
    return array_ops.reshape(self, other.shape)


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
    return math_ops.where(condition, self, other)


def _transposed(self):
    """All dimensions reversed. Runs the "Transpose" op.

    >>> mt.zeros(2, 3, 4).T.shape
    (4, 3, 2)
    """
    return array_ops.permute(self, *reversed(range(self.ndim)))


def _matrix_transposed(self):
    """The last two dimensions swapped (a batch of transposed matrices). Runs the "Transpose" op.

    >>> mt.zeros(5, 2, 3).mT.shape
    (5, 3, 2)
    """
    return array_ops.transpose(self, -2, -1)


def _detached(self):
    """The same storage, detached from every tape (PyTorch's `.data`); assigning replaces the values.

    Writing into `p.data` changes `p` without recording anything (the manual
    SGD step `W.data += -0.1 * W.grad`); `p.data = other` gives p other's
    values (any shape), also unrecorded. Both bump p's version, so a gradient
    that saved p's old values refuses to run.

    >>> w = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> w.data
    tensor([1., 2.])
    >>> w.data -= 0.5
    >>> w
    tensor([0.5000, 1.5000], requires_grad=True)
    >>> w.data = mt.zeros(3)
    >>> w.shape
    (3,)
    """
    return array_ops.stop_gradient(self)


def _set_data(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
    if self._requires_grad and other._data.dtype.kind != "f":
        raise RuntimeError(f"data set to a tensor that requires gradients must be floating point, got {other.dtype}")
    self._data = other._data
    self._view_of = None
    bump(self)


# ----- the table: method name -> function -----

METHODS = {
    # arithmetic and its operators
    "add": math_ops.add, "__add__": math_ops.add, "__radd__": _reflected(math_ops.add),
    "sub": math_ops.sub, "__sub__": math_ops.sub, "__rsub__": _reflected(math_ops.sub),
    "mul": math_ops.mul, "__mul__": math_ops.mul, "__rmul__": _reflected(math_ops.mul),
    "div": math_ops.div, "__truediv__": math_ops.div, "__rtruediv__": _reflected(math_ops.div),
    "pow": math_ops.pow, "__pow__": math_ops.pow, "__rpow__": _reflected(math_ops.pow),
    "matmul": math_ops.matmul, "__matmul__": math_ops.matmul, "__rmatmul__": _reflected(math_ops.matmul),
    "neg": math_ops.neg, "__neg__": math_ops.neg, "__pos__": pos,
    "abs": math_ops.abs, "__abs__": math_ops.abs,
    # comparisons and logic
    "eq": math_ops.eq, "__eq__": math_ops.eq, "__ne__": math_ops.ne,
    "__lt__": math_ops.lt, "__le__": math_ops.le, "__gt__": math_ops.gt, "__ge__": math_ops.ge,
    "__and__": math_ops.bitwise_and, "__or__": math_ops.bitwise_or, "__xor__": math_ops.bitwise_xor,
    "__invert__": math_ops.bitwise_not, "isnan": math_ops.isnan,
    # elementwise functions
    "exp": math_ops.exp, "log": math_ops.log, "sqrt": math_ops.sqrt, "sin": math_ops.sin, "cos": math_ops.cos,
    "tanh": math_ops.tanh, "sigmoid": math_ops.sigmoid, "relu": math_ops.relu, "sign": math_ops.sign,
    "square": math_ops.square, "clamp": math_ops.clamp, "clip": math_ops.clamp,
    "maximum": math_ops.maximum, "minimum": math_ops.minimum,
    # reductions
    "sum": reduction_ops.sum, "mean": reduction_ops.mean, "prod": reduction_ops.prod,
    "max": reduction_ops.max, "min": reduction_ops.min, "amax": reduction_ops.amax, "amin": reduction_ops.amin,
    "argmax": reduction_ops.argmax, "argmin": reduction_ops.argmin, "all": reduction_ops.all, "any": reduction_ops.any,
    "var": reduction_ops.var, "std": reduction_ops.std, "logsumexp": reduction_ops.logsumexp,
    "softmax": reduction_ops.softmax, "log_softmax": reduction_ops.log_softmax,
    # shapes and indexing
    "reshape": array_ops.reshape, "view": array_ops.reshape, "view_as": view_as, "flatten": array_ops.flatten,
    "squeeze": array_ops.squeeze, "unsqueeze": array_ops.unsqueeze, "permute": array_ops.permute,
    "transpose": array_ops.transpose, "t": t, "expand": array_ops.expand, "expand_as": expand_as,
    "contiguous": array_ops.contiguous, "clone": array_ops.clone, "detach": array_ops.stop_gradient,
    "__getitem__": array_ops.getitem,
    "floor_divide": math_ops.floor_divide, "__floordiv__": math_ops.floor_divide,
    "__rfloordiv__": _reflected(math_ops.floor_divide),
    "remainder": math_ops.remainder, "__mod__": math_ops.remainder, "__rmod__": _reflected(math_ops.remainder),
    "bitwise_and": math_ops.bitwise_and, "bitwise_or": math_ops.bitwise_or, "bitwise_xor": math_ops.bitwise_xor,
    "bitwise_not": math_ops.bitwise_not, "__rand__": _reflected(math_ops.bitwise_and),
    "__ror__": _reflected(math_ops.bitwise_or), "__rxor__": _reflected(math_ops.bitwise_xor),
    "masked_fill": math_ops.masked_fill, "where": where,
    # in-place updates without an out-of-place twin here
    "__setitem__": in_place_ops.setitem, "zero_": in_place_ops.zero_, "fill_": in_place_ops.fill_,
    "copy_": in_place_ops.copy_, "uniform_": in_place_ops.uniform_, "normal_": in_place_ops.normal_,
    "bernoulli_": in_place_ops.bernoulli_, "masked_fill_": in_place_ops.masked_fill_,
    # conversions and autograd
    "to": to, "type": type_, "cpu": cpu, "backward": backward,
    "float": _conversion("float", dtypes.float32, ">>> mt.tensor([1, 2]).float()\ntensor([1., 2.])"),
    "double": _conversion("double", dtypes.float64, ">>> mt.tensor([1, 2]).double().dtype\nminitorch.float64"),
    "long": _conversion("long", dtypes.int64, ">>> mt.tensor([1.7, -1.7]).long()  # truncated toward zero\ntensor([ 1, -1])"),
    "int": _conversion("int", dtypes.int32, ">>> mt.tensor([1.7]).int()\ntensor([1], dtype=minitorch.int32)"),
    "bool": _conversion("bool", dtypes.bool_, ">>> mt.tensor([0.0, 2.0]).bool()\ntensor([False,  True])"),

    # ----- pointwise math, special functions, conversions (surface: pointwise) -----

    # ----- reductions, scans, sorting, statistics, linear algebra (surface: reductions/linalg) -----
    "cumsum": scan_ops.cumsum, "cumprod": scan_ops.cumprod, "logcumsumexp": scan_ops.logcumsumexp,
    "cummax": scan_ops.cummax, "cummin": scan_ops.cummin, "diff": scan_ops.diff,
    "sort": sort_ops.sort, "argsort": sort_ops.argsort, "msort": sort_ops.msort, "topk": sort_ops.topk,
    "kthvalue": sort_ops.kthvalue, "median": sort_ops.median, "nanmedian": sort_ops.nanmedian, "mode": sort_ops.mode,
    "quantile": sort_ops.quantile, "nanquantile": sort_ops.nanquantile, "unique": sort_ops.unique,
    "unique_consecutive": sort_ops.unique_consecutive,
    "nansum": statistics_ops.nansum, "nanmean": statistics_ops.nanmean, "aminmax": statistics_ops.aminmax,
    "count_nonzero": statistics_ops.count_nonzero, "cov": statistics_ops.cov, "corrcoef": statistics_ops.corrcoef,
    "bincount": statistics_ops.bincount, "histc": statistics_ops.histc, "histogram": statistics_ops.histogram,
    "norm": norm_ops.norm, "dist": norm_ops.dist, "renorm": norm_ops.renorm,
    "mm": product_ops.mm, "bmm": product_ops.bmm, "mv": product_ops.mv, "dot": product_ops.dot,
    "vdot": product_ops.vdot, "inner": product_ops.inner, "outer": product_ops.outer, "ger": product_ops.outer,
    "kron": product_ops.kron, "addmm": product_ops.addmm, "addbmm": product_ops.addbmm,
    "baddbmm": product_ops.baddbmm, "addmv": product_ops.addmv, "addmv_": product_ops.addmv_, "addr": product_ops.addr,
    "matrix_power": product_ops.matrix_power, "cross": product_ops.cross,
    "diag": matrix_ops.diag, "diag_embed": matrix_ops.diag_embed, "diagflat": matrix_ops.diagflat,
    "diagonal": matrix_ops.diagonal, "trace": matrix_ops.trace, "tril": matrix_ops.tril, "triu": matrix_ops.triu,
    "fill_diagonal_": matrix_ops.fill_diagonal_,
    "det": linalg.det, "logdet": linalg.logdet, "slogdet": linalg.slogdet, "inverse": linalg.inverse,
    "pinverse": linalg.pinverse, "cholesky": linalg.torch_cholesky, "cholesky_solve": linalg.cholesky_solve,
    "qr": linalg.torch_qr, "svd": linalg.torch_svd, "matrix_exp": linalg.matrix_exp,
    "symeig": linalg.symeig, "eig": linalg.eig, "lstsq": linalg.legacy_lstsq, "solve": linalg.legacy_solve,

    # ----- shapes, joining and splitting, indexing, scatter/gather (surface: shapes/indexing) -----

    # ----- devices, random sampling, the number protocol, misc (surface: core) -----
}

# In-place twins: method name -> (the method whose function it writes in place, the op whose
# numpy ufunc can write straight into the storage, or None).
IN_PLACE = {
    "add_": ("add", "Add"), "sub_": ("sub", "Sub"), "mul_": ("mul", "Mul"), "div_": ("div", "RealDiv"),
    "pow_": ("pow", "Pow"), "floor_divide_": ("floor_divide", "FloorDiv"), "remainder_": ("remainder", "FloorMod"),
    "neg_": ("neg", "Neg"), "abs_": ("abs", "Abs"), "exp_": ("exp", "Exp"), "log_": ("log", None),
    "sqrt_": ("sqrt", None), "sin_": ("sin", "Sin"), "cos_": ("cos", "Cos"), "tanh_": ("tanh", "Tanh"),
    "sigmoid_": ("sigmoid", "Sigmoid"), "relu_": ("relu", None), "sign_": ("sign", "Sign"),
    "square_": ("square", None), "clamp_": ("clamp", None), "clip_": ("clamp", None),
    "bitwise_and_": ("bitwise_and", "BitwiseAnd"), "bitwise_or_": ("bitwise_or", "BitwiseOr"),
    "bitwise_xor_": ("bitwise_xor", "BitwiseXor"), "bitwise_not_": ("bitwise_not", "Invert"),
    "masked_fill_": None,  # special (see in_place_ops), listed for the operators below

    # ----- surface: pointwise -----

    # ----- surface: reductions/linalg -----
    "cumsum_": ("cumsum", None), "cumprod_": ("cumprod", None), "tril_": ("tril", None), "triu_": ("triu", None),
    "addmm_": ("addmm", None), "addbmm_": ("addbmm", None), "baddbmm_": ("baddbmm", None),
    "addr_": ("addr", None), "renorm_": ("renorm", None),

    # ----- surface: shapes/indexing -----

    # ----- surface: core -----
}

# Python's augmented assignments, in place as in PyTorch (which has no in-place `@=`: it rebinds).
AUGMENTED = {
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_", "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_", "__ipow__": "pow_", "__iand__": "bitwise_and_", "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_",
}

PROPERTIES = {"T": (_transposed, None), "mT": (_matrix_transposed, None), "data": (_detached, _set_data)}


def bind():
    """Attaches every method, in-place twin, operator and property of the tables to Tensor
    (once, when minitorch is imported)."""
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    for name, made_from in IN_PLACE.items():
        if made_from is not None:
            method, op_name = made_from
            setattr(Tensor, name, twin(METHODS[method], name, op_name))
    for operator, name in AUGMENTED.items():
        setattr(Tensor, operator, getattr(Tensor, name))
    for name, (getter, setter) in PROPERTIES.items():
        setattr(Tensor, name, property(getter, setter, doc=getter.__doc__))


bind()
