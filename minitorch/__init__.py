"""minitorch: a PyTorch-like deep-learning framework on numpy, with TensorFlow
eager's tape autodiff. See docs/ARCHITECTURE.md for the map of the engine.

    import minitorch as mt
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad          # tensor([2., 4.])
"""
from math import e, inf, nan, pi  # PyTorch's constants: torch.e, torch.inf, torch.nan, torch.pi

from . import threads  # first, before numpy loads OpenBLAS (threads.OPENBLAS_THREAD_TIMEOUT)
from . import allocator  # glibc keeps freed array memory for the next training step
from . import nest
from . import dtypes
from . import special
from .creation import (
    arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace, ones, ones_like, rand,
    rand_like, randint, randn, randn_like, randperm, tensor, zeros, zeros_like,
)
from .dtypes import (
    bool_ as bool, double, float, float16, float32, float64, half, int, int8, int16, int32, int64, long, short, uint8,
)
from .dtypes import DType as dtype
from .ops import batch_norm_ops, conv_ops, loss_ops, pool_ops  # noqa: F401  (fills the op table)
from .ops.activation_ops import logit, relu, sigmoid
from .ops.arithmetic_ops import (
    abs, abs as absolute, add, add_n, addcdiv, addcmul, div, float_power, floor_divide, fmod, lerp, mul, neg,
    neg as negative, positive, pow, reciprocal, remainder, resolve_neg, rsub, square, sub,
)
from .ops.array_ops import (
    broadcast_to, cat, clone, flatten, permute, reshape, squeeze, stack, stop_gradient, transpose, unsqueeze,
)
from .ops.bitwise_ops import (
    bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, gcd, lcm,
)
from .ops.comparison_ops import (
    allclose, clamp, clamp_max, clamp_min, eq, equal, fmax, fmin, ge, ge as greater_equal, gt, gt as greater, isclose,
    isfinite, isinf, isnan, isneginf, isposinf, isreal, le, le as less_equal, logical_and, logical_not, logical_or,
    logical_xor, lt, lt as less, masked_fill, maximum, minimum, nan_to_num, ne, ne as not_equal, where,
)
from .ops.exponential_ops import exp, exp2, expm1, frexp, ldexp, log, log1p, log2, log10, logaddexp, logaddexp2, rsqrt, sqrt
from .ops.reduction_ops import (
    all, amax, amin, any, argmax, argmin, log_softmax, logsumexp, max, mean, min, prod, softmax, std, sum, var,
)
from .ops.rounding_ops import (
    ceil, copysign, floor, frac, heaviside, nextafter, round, sign, sign as sgn, signbit, trunc, trunc as fix,
)
from .ops.special_ops import (
    digamma, erf, erfc, erfinv, i0, igamma, igammac, lgamma, mvlgamma, polygamma, xlogy,
)
from .ops.trigonometric_ops import (
    acos, acos as arccos, acosh, acosh as arccosh, asin, asin as arcsin, asinh, asinh as arcsinh, atan, atan as arctan,
    atan2, atan2 as arctan2, atanh, atanh as arctanh, cos, cosh, deg2rad, hypot, rad2deg, sin, sinc, sinh, tan, tanh,
)
from .tensor import Tensor

# ----- reductions, scans, sorting, statistics, products, linear algebra -----
from . import linalg
from .linalg import (
    cholesky_solve, inverse, logdet, matrix_exp, pinverse, torch_cholesky as cholesky, torch_det as det, torch_qr as qr,
    torch_slogdet as slogdet,
    torch_svd as svd,
)
from .ops import return_types
from .ops.matrix_ops import diag, diag_embed, diagflat, diagonal, trace, tril, tril_indices, triu, triu_indices
from .ops.norm_ops import cdist, dist, frobenius_norm, norm, norm_except_dim, nuclear_norm, pdist, renorm
from .ops.product_ops import (
    addbmm, addmm, addmv, addr, baddbmm, bmm, chain_matmul, cross, dot, einsum, inner, kron, matmul, matrix_power, mm,
    mv, outer, outer as ger, tensordot, vander, vdot,
)
from .ops.scan_ops import finite_gradient as gradient
from .ops.scan_ops import (
    cummax, cummin, cumprod, cumsum, cumulative_trapezoid, diff, logcumsumexp, trapezoid, trapezoid as trapz,
)
from .ops.sort_ops import (
    argsort, kthvalue, median, mode, msort, nanmedian, nanquantile, quantile, sort, topk, unique, unique_consecutive,
)
from .ops.statistics_ops import (
    aminmax, bincount, corrcoef, count_nonzero, cov, histc, histogram, histogramdd, nanmean, nansum, std_mean, var_mean,
)

# ----- shapes, joining and splitting, indexing -----
from .ops.in_place_twins import (  # the in-place twins PyTorch has at the top level (TOP_LEVEL there)
    abs_, acos_, acosh_, addmv_, arccos_, arccosh_, arcsin_, arcsinh_, arctan_, arctanh_, asin_, asinh_, atan_, atanh_,
    ceil_, clamp_, clamp_max_, clamp_min_, clip_, cos_, cosh_, deg2rad_, erf_, erfc_, exp2_, exp_, expm1_, fix_, floor_,
    frac_, gcd_, i0_, index_put_, lcm_, ldexp_, log10_, log1p_, log2_, log_, logit_, nan_to_num_, neg_, negative_,
    rad2deg_, reciprocal_, relu_, round_, rsqrt_, sigmoid_, sin_, sinc_, sinh_, sqrt_, square_, tan_, tanh_, trunc_,
    xlogy_,
)
from .ops.index_ops import (
    argwhere, bucketize, gather, index_select, isin, masked_select, nonzero, nonzero_static, searchsorted, take,
    take_along_dim, unravel_index,
)
from .ops.join_ops import (
    block_diag, broadcast_shapes, broadcast_tensors, cartesian_prod, chunk, chunk as unsafe_chunk, column_stack,
    combinations, dsplit, dstack, hsplit, hstack, meshgrid, split, split_with_sizes,
    split_with_sizes as unsafe_split_with_sizes, tensor_split, unbind, unsafe_split, vsplit, vstack, vstack as row_stack,
)
from .ops.scatter_ops import (
    index_add, index_copy, index_fill, index_put, index_reduce, masked_scatter, put, scatter, scatter_add,
    scatter_reduce,
)
from .ops.shape_ops import (
    adjoint, as_strided, atleast_1d, atleast_2d, atleast_3d, flip, fliplr, flipud, movedim, movedim as moveaxis, narrow, ravel,
    repeat_interleave, roll, rot90, select, swapaxes, swapdims, t, tile, unflatten,
)

# ----- devices, generators, random sampling, settings -----
from . import accelerator, backends, cpu, cuda, layouts, printing, random
from .creation import asarray, fill, logspace, randint_like, range, scalar_tensor
from .devices import DeviceError, device, get_default_device, set_default_device
from .engine.anomaly import is_anomaly_enabled
from .layouts import channels_last, contiguous_format, layout, memory_format, preserve_format, strided
from .ops.in_place_ops import fill_, zero_
from .ops.random_ops import bernoulli, binomial, multinomial, normal, poisson
from .printing import set_printoptions
from .random import (
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state, thread_safe_generator,
)
from .settings import (
    are_deterministic_algorithms_enabled, finfo, get_default_dtype, get_deterministic_debug_mode,
    get_device_module, get_float32_matmul_precision, iinfo, inference_mode, is_anomaly_check_nan_enabled,
    is_complex, is_deterministic_algorithms_warn_only_enabled, is_floating_point, is_vulkan_available, numel,
    set_anomaly_enabled, set_default_dtype, set_deterministic_debug_mode, set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .tensor import Size
from .threads import get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads

from .tensor_methods import detach_, get_device  # (importing tensor_methods binds Tensor's operators and methods)
from . import autograd, datasets, distributed, nn, optim, utils, viz
from . import amp
from .amp import autocast
from .aten_forms import (
    adaptive_max_pool1d, alpha_dropout, alpha_dropout_, batch_norm, binary_cross_entropy_with_logits, constant_pad_nd,
    convolution, cosine_embedding_loss, ctc_loss, dropout, dropout_, embedding, embedding_bag, embedding_renorm_,
    feature_alpha_dropout, feature_alpha_dropout_, feature_dropout, feature_dropout_, group_norm,
    hinge_embedding_loss, instance_norm, kl_div, layer_norm, margin_ranking_loss, max_pool1d, max_pool2d,
    poisson_nll_loss, rrelu, triplet_margin_loss,
)
from .autograd import (
    ForwardAccumulator, GradientTape, custom_gradient, enable_grad, is_grad_enabled, no_grad, set_grad_enabled,
    stop_recording,
)
from .errors import ShapeError
from .nn.functional import (  # the top-level forms whose signatures are nn.functional's
    adaptive_avg_pool1d, avg_pool1d, bilinear, celu, celu_, channel_shuffle, conv1d, conv2d, conv_transpose1d,
    conv_transpose2d, cosine_similarity, hardshrink, max_pool1d_with_indices, pairwise_distance, pixel_shuffle,
    pixel_unshuffle, prelu, rms_norm, rrelu_, selu, selu_, threshold, threshold_,
)
from .ops.writes import accepts_out
from .serialization import CheckpointError, load, save

globals().update(dtypes.UNSUPPORTED)  # PyTorch's other dtypes, by name: using one raises, saying why

threads.use_default_threads()  # numpy has loaded its OpenBLAS by now

clip = clamp
concat = concatenate = cat
divide = true_divide = div
multiply = mul
subtract = sub
detach = stop_gradient


# PyTorch's `out=` (`mt.add(a, b, out=c)`), given by one wrapper to the functions whose PyTorch forms take it
# (norm and tensordot, whose `out` PyTorch takes by position too, have it in their own signatures;
# hardshrink comes with it from nn.functional).
_with_out = {}  # one wrapper per function, so that aliases (asin, arcsin) stay one object
for _name in """
        abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin aminmax any arange arccos
        arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort asin asinh atan atan2 atanh baddbmm
        bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor bmm bucketize
        cat ceil chain_matmul cholesky cholesky_solve clamp clamp_max clamp_min clip column_stack concat concatenate
        copysign cos cosh cross cummax cummin cumprod cumsum deg2rad diag diff digamma div divide dot dstack empty eq
        erf erfc erfinv exp exp2 expm1 eye fix float_power floor floor_divide fmax fmin fmod frac frexp frobenius_norm
        full gather gcd ge ger greater greater_equal gt heaviside histc histogram hstack hypot i0 igamma
        igammac index_add index_copy index_reduce index_select inner inverse isin isneginf isposinf kron kthvalue lcm
        ldexp le lerp less less_equal lgamma linspace log log10 log1p log2 log_softmax logaddexp logaddexp2
        logcumsumexp logical_and logical_not logical_or logical_xor logit logspace logsumexp lt masked_select matmul
        matrix_power max maximum mean median min minimum mm mode msort mul multinomial multiply mv mvlgamma nan_to_num
        nanmean nanmedian nanquantile nansum ne neg negative nextafter nonzero nonzero_static normal not_equal
        nuclear_norm ones outer polygamma pow prod qr quantile rad2deg rand randint randn randperm range reciprocal
        remainder renorm round row_stack rsqrt scatter scatter_add scatter_reduce searchsorted sgn sigmoid sign signbit
        sin sinc sinh slogdet softmax sort sqrt square stack std sub subtract sum svd take take_along_dim tan tanh
        threshold topk tril triu true_divide trunc var vdot vstack where xlogy zeros
        """.split():
    globals()[_name] = _with_out.setdefault(id(globals()[_name]), accepts_out(globals()[_name]))
del _name, _with_out


def is_tensor(obj):
    """True for minitorch Tensors (and Parameters).

    >>> mt.is_tensor(mt.ones(2)), mt.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


__version__ = "0.1.0"
