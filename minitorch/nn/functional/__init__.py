"""nn.functional: the stateless form of every layer and loss (import as F), one file per concept, as
PyTorch's documentation groups them:

    conv.py        convolutions, unfold and fold
    pool.py        poolings
    activation.py  non-linear activations, softmax and its relatives
    norm.py        normalizations
    linear.py      linear and bilinear
    dropout.py     dropouts
    embedding.py   embedding lookups and one_hot
    distance.py    distances between vectors
    loss.py        losses (their reductions: nn/_reduction.py)
    vision.py      resampling, pixel and channel shuffles, padding, sampling grids
    attention.py   attention
    overrides.py   the helpers for writing functions like these (__torch_function__)

Each function takes PyTorch's arguments and composes minitorch ops, or calls a fused op (conv2d,
pooling, batch_norm, softmax cross-entropy) where one exists for speed and numerical stability; the
layers of minitorch.nn are thin Modules over these functions. This file only hands the names on.
Where PyTorch's F.<name> and torch.<name> are one function (conv2d, pdist, relu_, ...), so are
minitorch's: the concept file takes it from the op file that defines it.

>>> F = mt.nn.functional
>>> F.relu(mt.tensor([-1.0, 2.0])), F.pdist is mt.pdist
(tensor([0., 2.]), True)
"""
from ...ops.array_ops import flatten  # noqa: F401  (minitorch's F.flatten is mt.flatten)
from ...tensor import Tensor  # noqa: F401  (PyTorch's F.Tensor is torch.Tensor)
from .activation import (  # noqa: F401
    celu, celu_, elu, elu_, gelu, glu, gumbel_softmax, hardshrink, hardsigmoid, hardswish, hardtanh, hardtanh_,
    leaky_relu, leaky_relu_, log_softmax, logsigmoid, mish, prelu, relu, relu6, relu_, rrelu, rrelu_, selu, selu_,
    sigmoid, silu, softmax, softmin, softplus, softshrink, softsign, tanh, tanhshrink, threshold, threshold_,
)
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .conv import conv1d, conv2d, conv_transpose1d, conv_transpose2d, fold, unfold  # noqa: F401
from .distance import cosine_similarity, pairwise_distance, pdist  # noqa: F401
from .dropout import alpha_dropout, dropout, dropout1d, dropout2d, feature_alpha_dropout  # noqa: F401
from .embedding import embedding, embedding_bag, one_hot  # noqa: F401
from .linear import bilinear, linear  # noqa: F401
from .loss import (  # noqa: F401
    binary_cross_entropy, binary_cross_entropy_with_logits, cosine_embedding_loss, cross_entropy, ctc_loss,
    gaussian_nll_loss, hinge_embedding_loss, huber_loss, kl_div, l1_loss, linear_cross_entropy, margin_ranking_loss,
    mse_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss, nll_loss, poisson_nll_loss,
    smooth_l1_loss, soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss,
)
from .norm import (  # noqa: F401
    batch_norm, group_norm, instance_norm, layer_norm, local_response_norm, normalize, rms_norm,
)
from .overrides import (  # noqa: F401
    assert_int_or_pair, boolean_dispatch, handle_torch_function, has_torch_function, has_torch_function_unary,
    has_torch_function_variadic,
)
from .pool import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d, adaptive_max_pool2d_with_indices, avg_pool1d, avg_pool2d, fractional_max_pool2d,
    fractional_max_pool2d_with_indices, lp_pool1d, lp_pool2d, max_pool1d, max_pool1d_with_indices, max_pool2d,
    max_pool2d_with_indices, max_unpool1d, max_unpool2d,
)
from .vision import (  # noqa: F401
    GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES, affine_grid, channel_shuffle, grid_sample,
    interpolate, pad, pixel_shuffle, pixel_unshuffle, upsample, upsample_bilinear, upsample_nearest,
)
