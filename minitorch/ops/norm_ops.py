"""Norms and distances: vector norms (one op, "VectorNorm"), matrix norms, torch.norm, dist, cdist, renorm.

"VectorNorm" is an op rather than sqrt(sum(x^2)) because of the gradient at zero:
the composite's is 0/0, PyTorch's (and this op's) is 0 (norm_backward in
torch/csrc/autograd/FunctionsManual.cpp). Matrix norms are composites of it,
of the reductions and of the singular values.
"""
import math

import numpy as np

from ..engine.execute import execute
from ..errors import ShapeError
from .arithmetic_ops import abs
from .coercion import as_operand, cast
from .comparison_ops import where
from .dims import normalize_dims, numpy_names
from .reduction_ops import amax, amin
from .rounding_ops import sign
from .rows import TRANSPOSE, op
from .writes import write_out


def _vector_norm(x, ord, axis, keepdims):
    magnitude = np.abs(x)
    if ord == math.inf:
        return np.max(magnitude, axis=axis, keepdims=keepdims, initial=0)
    if ord == -math.inf:
        return np.min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        return np.count_nonzero(x, axis=axis, keepdims=keepdims).astype(x.dtype)
    if ord == 1:
        return np.add.reduce(magnitude, axis=axis, keepdims=keepdims)
    if ord == 2:
        return np.sqrt(np.add.reduce(magnitude * magnitude, axis=axis, keepdims=keepdims))
    return np.power(np.add.reduce(np.power(magnitude, ord), axis=axis, keepdims=keepdims), 1 / ord).astype(x.dtype)


def _vector_norm_grad(op, grad):
    """PyTorch's norm_backward: p = 0: no gradient; p = 1: sign(x) g; p = inf / -inf: sign(x) g
    shared evenly among the elements of largest / smallest magnitude; otherwise
    x |x|^(p-2) g / norm^(p-1); 0 where the norm is 0."""
    x, norm = op.inputs[0], op.outputs[0]
    ord, axis = op.attrs["ord"], op.attrs["axis"]
    if not op.attrs["keepdims"]:
        kept = tuple(1 if axis is None or d in axis else n for d, n in enumerate(x.shape))
        grad, norm = grad.reshape(kept), norm.reshape(kept)
    zero = as_operand(np.zeros((), x._data.dtype))
    if ord == 0:
        return x * 0
    if ord == 1:
        return sign(x) * grad
    if ord in (math.inf, -math.inf):
        chosen = cast(abs(x) == norm, x._data.dtype)
        return sign(x) * chosen * grad / chosen.sum(dim=axis, keepdim=True)
    nonzero = norm != 0
    scale = where(nonzero, grad / where(nonzero, norm, as_operand(np.ones((), x._data.dtype))) ** (ord - 1), zero)
    if ord == 2:
        return x * scale
    if ord < 1:
        shaped = where(x == 0, zero, sign(x) * where(x == 0, as_operand(np.ones((), x._data.dtype)), abs(x)) ** (ord - 1))
    elif ord < 2:
        shaped = sign(x) * abs(x) ** (ord - 1)
    else:
        shaped = x * abs(x) ** (ord - 2)
    return shaped * scale


op("VectorNorm", _vector_norm, _vector_norm_grad, needs="both", jvp=TRANSPOSE)


def _floating_norm_input(x, dtype, name):
    if dtype is not None:
        x = cast(x, dtype)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point tensor as input. Got {x.dtype}")
    return x


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """The `ord`-norm of `x` as a vector (of all elements, or over `dim`): (sum |x|^ord)^(1/ord), the
    largest (inf) or smallest (-inf) magnitude, or the count of nonzeros (0). Runs the "VectorNorm"
    op (its gradient at a zero vector is 0, as PyTorch's).

    >>> mt.linalg.vector_norm(mt.tensor([3.0, -4.0]))
    tensor(5.)
    >>> mt.linalg.vector_norm(mt.tensor([[3.0, -4.0], [1.0, 0.0]]), ord=1, dim=1)
    tensor([7., 1.])
    """
    dim, keepdim = numpy_names("linalg.vector_norm", dim, keepdim, axis, keepdims)
    input = _floating_norm_input(input, dtype, "linalg.vector_norm")
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        dim = None
    axis = normalize_dims(dim, input.ndim, "linalg.vector_norm")
    if ord < 0 and input.numel() == 0 or ord == -math.inf and any(input.shape[d] == 0 for d in (axis or range(input.ndim))):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor "
                           "because the operation does not have an identity")
    return execute("VectorNorm", (input,), {"ord": float(ord), "axis": axis, "keepdims": bool(keepdim)})


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A matrix norm over the two dimensions `dim`: 'fro' (Frobenius), 'nuc' (sum of singular values),
    2 / -2 (largest / smallest singular value), 1 / -1 (largest / smallest column sum of |x|),
    inf / -inf (largest / smallest row sum). Built from "VectorNorm", "Sum", "Max"/"Min" and "Svd".

    >>> mt.linalg.matrix_norm(mt.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    tensor(6.)
    """
    input = _floating_norm_input(input, dtype, "linalg.matrix_norm")
    dims = normalize_dims(dim, input.ndim, "linalg.matrix_norm") if input.ndim >= 2 else None
    if dims is None or len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple of different dimensions and the input at least "
                           f"2-D, got dim={dim} for shape {tuple(input.shape)}")
    row, col = dim[0] % input.ndim, dim[1] % input.ndim
    if ord == "fro":
        return vector_norm(input, 2, (row, col), keepdim)
    if ord in ("nuc", 2, -2):
        moved = input.permute(*[d for d in range(input.ndim) if d not in (row, col)], row, col)
        values = execute("Svd", (moved,), {"full_matrices": False})[1]
        result = values.sum(dim=-1) if ord == "nuc" else (amax if ord == 2 else amin)(values, -1)
        if keepdim:
            result = result.unsqueeze(min(row, col)).unsqueeze(max(row, col))
        return result
    if ord in (1, -1, math.inf, -math.inf):
        summed, extreme = (row, col) if ord in (1, -1) else (col, row)
        sums = abs(input).sum(dim=summed, keepdim=True)
        result = (amax if ord > 0 else amin)(sums, dim=extreme, keepdim=True)
        return result if keepdim else result.squeeze((row, col))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def linalg_norm(input, ord=None, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    """PyTorch's torch.linalg.norm: a vector norm (1-D input or one `dim`; with neither `ord` nor `dim`,
    the 2-norm of all elements) or a matrix norm (2-D input or two dims).

    >>> mt.linalg.norm(mt.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    >>> mt.linalg.norm(mt.tensor([[3.0, 0.0], [0.0, 4.0]]), ord=2)
    tensor(4.)
    """
    dim, keepdim = numpy_names("linalg.norm", dim, keepdim, axis, keepdims)
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or dim is None and ord is not None and input.ndim == 2:
        return matrix_norm(input, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if dim is None and ord is not None and input.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {input.ndim}D.")
    return vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """PyTorch's torch.norm (deprecated there for the linalg functions): the p-norm of all elements,
    or over `dim`; 'fro' is the 2-norm, 'nuc' the nuclear norm of a matrix.

    >>> mt.norm(mt.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    >>> mt.tensor([[3.0, 4.0], [1.0, 1.0]]).norm(p=1, dim=1)
    tensor([7., 2.])
    """
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        result = matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    elif p == "fro" or not isinstance(p, str):
        result = vector_norm(input, 2 if p == "fro" else p, dim, keepdim, dtype=dtype)
    else:
        raise RuntimeError(f"norm: unknown p={p!r}; use a number, 'fro' or 'nuc'")
    return result if out is None else write_out("norm", result, out)


def norm_method(input, p="fro", dim=None, keepdim=False, dtype=None):
    """`x.norm(...)`: torch.norm as a method, whose arguments have no `out`.

    >>> mt.tensor([3.0, 4.0]).norm()
    tensor(5.)
    """
    return norm(input, p, dim, keepdim, dtype=dtype)


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    """The Frobenius norm over `dim` (the 2-norm of the elements; deprecated in PyTorch).

    >>> mt.frobenius_norm(mt.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    """
    return vector_norm(input, 2, dim, keepdim)


def nuclear_norm(input, dim=(-2, -1), keepdim=False):
    """The nuclear norm (the sum of singular values) of the matrices in `dim` (deprecated in PyTorch).

    >>> mt.nuclear_norm(mt.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor(7.)
    """
    if isinstance(dim, bool):
        dim, keepdim = (-2, -1), dim
    return matrix_norm(input, "nuc", dim, keepdim)


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of `v` over every dimension but `dim` (kept, the others of size 1), or of all of
    it for dim = -1: what weight normalisation divides by. Runs "VectorNorm".

    >>> mt.norm_except_dim(mt.tensor([[3.0, 0.0], [0.0, 4.0]]), 2, 0)
    tensor([[3.],
            [4.]])
    """
    if dim == -1:
        return vector_norm(v, pow)
    return vector_norm(v, pow, [d for d in range(v.ndim) if d != dim % max(v.ndim, 1)], keepdim=True)


def pdist(input, p=2):
    """The p-norm distances between every pair of rows i < j of the 2-D `x`, in row-major order of the
    pairs (the upper triangle of cdist(x, x)): N (N - 1) / 2 values. Built from "GatherNd", "Sub" and
    "VectorNorm" (F.pdist is this function, as in PyTorch).

    >>> mt.pdist(mt.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])).tolist()
    [5.0, 10.0, 5.0]
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    first, second = np.triu_indices(input.shape[0], 1)
    return vector_norm(input[first] - input[second], p, -1)


def dist(input, other, p=2):
    """The p-norm of x - other (broadcast). Runs "Sub" and "VectorNorm".

    >>> mt.dist(mt.tensor([1.0, 2.0]), mt.tensor([4.0, 6.0]))
    tensor(5.)
    """
    return vector_norm(input - other, p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between each row of x1 (..., P, M) and each row of x2 (..., R, M):
    a (..., P, R) tensor. Built from "Sub" and "VectorNorm" (the difference of every pair; exact,
    and its gradient at zero distance is 0).

    >>> mt.cdist(mt.tensor([[0.0, 0.0], [1.0, 1.0]]), mt.tensor([[3.0, 4.0]]))
    tensor([[5.0000],
            [3.6056]])
    """
    if x1.ndim < 2 or x2.ndim < 2:
        raise ShapeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise ShapeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, -1)


def renorm(input, p, dim, maxnorm):
    """Each slice of `x` along `dim` whose p-norm exceeds `maxnorm` scaled down to norm `maxnorm`
    (as PyTorch: by maxnorm / (norm + 1e-7)). Built from "VectorNorm", "SelectV2" and "Mul".

    >>> mt.renorm(mt.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p={p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: non-negative maxnorm expected, got {maxnorm}")
    axis = normalize_dims(dim, input.ndim, "renorm")
    norms = vector_norm(input, p, [d for d in range(input.ndim) if d not in (axis or ())], keepdim=True)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), as_operand(np.ones((), input._data.dtype)))
    return input * factor
