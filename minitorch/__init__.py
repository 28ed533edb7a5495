"""minitorch: a PyTorch-like deep-learning framework on numpy, with TensorFlow
eager's tape autodiff. See docs/ARCHITECTURE.md for the map of the engine.

    import minitorch as mt
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad          # tensor([2., 4.])
"""
from . import nest
from .tensor import Tensor
from .dtypes import bool_ as bool, double, float, float16, float32, float64, half, int8, int16, int32, int64, long, uint8
from .dtypes import DType as dtype
from .creation import (
    arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace, ones, ones_like, rand,
    rand_like, randint, randn, randn_like, randperm, tensor, zeros, zeros_like,
)
from .random import manual_seed, seed
from .ops.math_ops import (
    abs, add, add_n, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, ceil, clamp, cos, div, eq, exp, floor,
    floor_divide, ge, gt, isfinite, isinf, isnan, le, log, logical_and, logical_not, logical_or, logical_xor, lt,
    masked_fill, matmul, maximum, minimum, mul, ne, neg, pow, relu, remainder, round, sigmoid, sign, sin, sqrt, square,
    sub, tanh, where,
)
from .ops.reduction_ops import (
    all, amax, amin, any, argmax, argmin, log_softmax, logsumexp, max, mean, min, prod, softmax, std, sum, var,
)
from .ops.array_ops import (
    broadcast_to, cat, clone, flatten, permute, reshape, squeeze, stack, stop_gradient, transpose, unsqueeze,
)
from .ops import batch_norm_ops, conv_ops, loss_ops, pool_ops, special_ops  # noqa: F401  (fills the op table)

# ----- surface: pointwise math, special functions -----

# ----- surface: reductions, scans, sorting, statistics, linear algebra -----
from .ops import return_types
from .ops.scan_ops import (
    cummax, cummin, cumprod, cumsum, cumulative_trapezoid, diff, logcumsumexp, trapezoid, trapezoid as trapz,
)
from .ops.sort_ops import (
    argsort, kthvalue, median, mode, msort, nanmedian, nanquantile, quantile, sort, topk, unique, unique_consecutive,
)
from .ops.statistics_ops import (
    aminmax, bincount, corrcoef, count_nonzero, cov, histc, histogram, histogramdd, nanmean, nansum, std_mean, var_mean,
)
from .ops.norm_ops import cdist, dist, frobenius_norm, norm, norm_except_dim, nuclear_norm, pdist, renorm
from .ops.product_ops import (
    addbmm, addmm, addmv, addmv_, addr, baddbmm, bmm, chain_matmul, cross, dot, einsum, inner, kron, matrix_power, mm, mv,
    outer, outer as ger, tensordot, vander, vdot,
)
from .ops.matrix_ops import diag, diag_embed, diagflat, diagonal, trace, tril, tril_indices, triu, triu_indices
from . import linalg
from .linalg import (
    cholesky_solve, det, inverse, logdet, matrix_exp, pinverse, slogdet, torch_cholesky as cholesky, torch_qr as qr,
    torch_svd as svd,
)

# ----- surface: shapes, joining and splitting, indexing -----

# ----- surface: devices, generators, random sampling, misc -----

from . import tensor_methods  # noqa: F401  (binds Tensor's operators and methods)
from . import autograd, datasets, distributed, nn, optim, utils, viz
from .serialization import CheckpointError, load, save
from .autograd import (
    ForwardAccumulator, GradientTape, custom_gradient, enable_grad, is_grad_enabled, no_grad, set_grad_enabled,
    stop_recording,
)
from .errors import ShapeError

clip = clamp
concat = concatenate = cat
divide = true_divide = div
multiply = mul
subtract = sub
detach = stop_gradient


def is_tensor(obj):
    """True for minitorch Tensors (and Parameters).

    >>> mt.is_tensor(mt.ones(2)), mt.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


__version__ = "0.1.0"
