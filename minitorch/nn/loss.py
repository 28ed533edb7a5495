"""Loss modules (CrossEntropyLoss, NLLLoss, MSELoss, ...): PyTorch's classes over the functional losses."""
import dataclasses
import math
import warnings

from .. import dtypes
from . import functional as F
from ._reduction import checked_reduction, legacy_reduction
from .distance import PairwiseDistance
from .linear import Linear
from .module import Module


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = checked_reduction(size_average, reduce, reduction, type(self).__name__)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        # A buffer, as in PyTorch: it follows .to(dtype) and shows in the state_dict.
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """Softmax cross-entropy of logits with class indices or class probabilities.

    >>> loss_fn = mt.nn.CrossEntropyLoss(label_smoothing=0.1)
    >>> loss_fn(mt.randn(4, 10, requires_grad=True), mt.tensor([1, 0, 4, 9])).backward()
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class targets under log-probabilities (see functional.nll_loss).

    >>> mt.nn.NLLLoss()(mt.tensor([[-0.25, -2.0]]), mt.tensor([0])).item()
    0.25
    """
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error, as a module (see functional.mse_loss).

    >>> mt.nn.MSELoss()(mt.tensor([0.0, 2.0]), mt.tensor([0.0, 0.0])).item()
    2.0
    """
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """The mean (or sum, or none) of |input - target|, as a module.

    >>> mt.nn.L1Loss()(mt.tensor([1.0, 4.0]), mt.tensor([2.0, 2.0]))
    tensor(1.5000)
    """
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target), reduced, as a module.

    >>> mt.nn.SmoothL1Loss()(mt.tensor([0.5, 3.0]), mt.zeros(2))
    tensor(1.3125)
    """
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (d = input - target), reduced, as a module.

    >>> mt.nn.HuberLoss(delta=2.0)(mt.tensor([0.5, 3.0]), mt.zeros(2))
    tensor(2.0625)
    """
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy on probabilities, -[y log(x) + (1 - y) log(1 - x)], reduced, as a module.

    >>> mt.nn.BCELoss()(mt.tensor([0.8, 0.4]), mt.tensor([1.0, 0.0]))
    tensor(0.3670)
    """
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy on logits (sigmoid folded in, numerically stable), reduced, as a module.

    >>> mt.nn.BCEWithLogitsLoss()(mt.tensor([0.0, 0.0]), mt.tensor([1.0, 0.0]))
    tensor(0.6931)
    """
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """NLLLoss under its old name for (N, C, H, W) inputs (PyTorch keeps it as an alias).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     loss_fn = mt.nn.NLLLoss2d()  # deprecated, as in PyTorch: a FutureWarning
    >>> caught[0].category.__name__
    'FutureWarning'
    >>> loss_fn(mt.tensor([-0.5, -1.5]).reshape(1, 2, 1, 1), mt.tensor([[[1]]]))
    tensor(1.5000)
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement and see "
            "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class KLDivLoss(_Loss):
    """Pointwise KL divergence of a target distribution from log-probabilities (see F.kl_div).

    >>> mt.nn.KLDivLoss(reduction="batchmean")(mt.tensor([[0.25, 0.75]]).log(), mt.tensor([[0.5, 0.5]]))
    tensor(0.1438)
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        Module.__init__(self)  # 'batchmean' is checked by F.kl_div, as in PyTorch
        self.reduction = legacy_reduction(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood (see F.poisson_nll_loss).

    >>> mt.nn.PoissonNLLLoss()(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 2.0]))
    tensor(0.8591)
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood with predicted variances (see F.gaussian_nll_loss).

    >>> mt.nn.GaussianNLLLoss()(mt.tensor([0.0, 1.0]), mt.tensor([1.0, 1.0]), mt.tensor([1.0, 2.0]))
    tensor(0.4233)
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class _MarginLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """max(0, -y (x1 - x2) + margin) (see F.margin_ranking_loss).

    >>> mt.nn.MarginRankingLoss(0.1)(mt.tensor([1.0, 0.2]), mt.tensor([0.5, 0.5]), mt.tensor([1.0, 1.0]))
    tensor(0.2000)
    """

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """x where y = 1, max(0, margin - x) where y = -1 (see F.hinge_embedding_loss).

    >>> mt.nn.HingeEmbeddingLoss()(mt.tensor([0.3, 0.3]), mt.tensor([1.0, -1.0]))
    tensor(0.5000)
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1 (see F.cosine_embedding_loss).

    >>> mt.nn.CosineEmbeddingLoss()(mt.tensor([[1.0, 0.0]]), mt.tensor([[1.0, 1.0]]), mt.tensor([1]))
    tensor(0.2929)
    """

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """log(1 + exp(-y x)) (see F.soft_margin_loss).

    >>> mt.nn.SoftMarginLoss()(mt.tensor([0.0]), mt.tensor([1.0]))
    tensor(0.6931)
    """

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss (see F.multi_margin_loss).

    >>> mt.nn.MultiMarginLoss()(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([3]))
    tensor(0.3250)
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.ndim}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss (see F.multilabel_margin_loss).

    >>> mt.nn.MultiLabelMarginLoss()(mt.tensor([[0.1, 0.2, 0.4, 0.8]]), mt.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """The mean binary logistic loss over classes (see F.multilabel_soft_margin_loss).

    >>> mt.nn.MultiLabelSoftMarginLoss()(mt.tensor([[0.0, 2.0]]), mt.tensor([[1.0, 0.0]]))
    tensor(1.4100)
    """

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """max(0, d(a, p) - d(a, n) + margin) with the p-norm distance (see F.triplet_margin_loss).

    >>> loss = mt.nn.TripletMarginLoss(margin=2.5, eps=0.0)
    >>> loss(mt.tensor([[0.0, 0.0]]), mt.tensor([[0.0, 1.0]]), mt.tensor([[3.0, 0.0]]))
    tensor(0.5000)
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, d(a, p) - d(a, n) + margin) with any distance (default: PairwiseDistance()).

    >>> mt.nn.TripletMarginWithDistanceLoss(margin=0.5)
    TripletMarginWithDistanceLoss(
      (distance_function): PairwiseDistance()
    )
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss (see F.ctc_loss).

    >>> mt.nn.CTCLoss()(mt.full((2, 1, 2), 0.5).log(), mt.tensor([[1]]), [2], [1])
    tensor(0.2877)
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """PyTorch's settings for its chunked linear_cross_entropy, checked as PyTorch checks them.

    minitorch accepts them and runs the reference path (same values, logits held in memory).

    >>> mt.nn.LinearCrossEntropyOptions(batch_chunk_size=256)
    LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=256, chunking_method='auto', acc_policy='auto', acc_dtype=None)
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise ValueError(f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")


class LinearCrossEntropyLoss(_WeightedLoss):
    """A Linear layer (in_features -> num_classes x out_features) followed by cross-entropy (see F.linear_cross_entropy).

    >>> loss_fn = mt.nn.LinearCrossEntropyLoss(4, 3, bias=True)
    >>> tuple(loss_fn(mt.randn(5, 4), mt.tensor([0, 2, 1, 1, 0])).shape)
    ()
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if not 0.0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        # Stored flat, as PyTorch's (Linear has no multi-dimensional weights); reshaped in forward.
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        weight = self.linear.weight.reshape(self.num_classes, *self.out_features, self.linear.in_features)
        bias = None if self.linear.bias is None else self.linear.bias.reshape(self.num_classes, *self.out_features)
        return F.linear_cross_entropy(input, weight, target, linear_bias=bias, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")
