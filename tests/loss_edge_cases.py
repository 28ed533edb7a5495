"""Every loss of nn.functional at the edges of its domain (issue 27): all-ignored targets,
probabilities 0 and 1, zero weights, empty batches, hinges and kinks, impossible alignments.

A case is (loss name, positional arguments, keyword arguments). An argument built with `x(...)`
is a floating tensor of the dtype under test that needs a gradient, `c(...)` a floating tensor
that does not, `i(...)` an int64 tensor; anything else is passed as it is. Used by
tests/test_loss_edges.py, which runs each case on minitorch and on PyTorch (a case PyTorch refuses
must be refused with the same kind of exception).
"""
import numpy as np

inf, nan = float("inf"), float("nan")


class Arg:
    def __init__(self, data, kind):
        self.data, self.kind = data, kind

    def __repr__(self):
        if isinstance(self.data, np.ndarray):
            return f"{self.kind}(nothing{self.data.shape})"
        return f"{self.kind}({self.data})"


def x(data):
    """A floating leaf that needs a gradient."""
    return Arg(data, "x")


def c(data):
    """A floating constant."""
    return Arg(data, "c")


def i(data):
    """An int64 constant."""
    return Arg(data, "i")


def nothing(*shape):
    """An array of that shape holding no element (a batch of 0)."""
    return np.zeros(shape)


LOGITS = [[0.5, 1.0, -2.0], [0.1, 0.2, 0.3]]
ALL = ("mean", "sum", "none")

CASES = []


def case(name, *args, **kwargs):
    CASES.append((name, args, kwargs))


for r in ALL:
    # ----- class indices: all ignored, zero class weights, empty batches -----
    case("cross_entropy", x(LOGITS), i([-100, -100]), reduction=r)
    case("cross_entropy", x(LOGITS), i([2, 2]), ignore_index=2, reduction=r)
    case("cross_entropy", x(LOGITS), i([1, -100]), reduction=r)
    case("cross_entropy", x(LOGITS), i([1, 1]), weight=c([1.0, 0.0, 2.0]), reduction=r)
    case("cross_entropy", x(LOGITS), i([1, -100]), weight=c([1.0, 0.0, 2.0]), reduction=r)
    case("cross_entropy", x(LOGITS), i([-100, -100]), label_smoothing=0.2, reduction=r)
    case("cross_entropy", x(LOGITS), i([-100, -100]), weight=c([1.0, 0.5, 2.0]), label_smoothing=0.2, reduction=r)
    case("cross_entropy", x(LOGITS), i([1, 1]), weight=c([1.0, 0.0, 2.0]), label_smoothing=0.2, reduction=r)
    case("cross_entropy", x([[[0.5, 1.0], [0.0, -1.0]], [[2.0, 0.1], [0.3, 0.4]]]), i([[-100, -100], [-100, -100]]), reduction=r)
    case("cross_entropy", x([0.5, 1.0, -2.0]), i(-100), reduction=r)
    case("cross_entropy", x(nothing(0, 3)), i([]), reduction=r)
    case("cross_entropy", x(nothing(0, 3)), i([]), label_smoothing=0.1, reduction=r)
    case("cross_entropy", x([[-inf, 1.0, 0.0]]), i([0]), reduction=r)
    case("cross_entropy", x([[-inf, 1.0, 0.0]]), i([1]), reduction=r)
    # ----- probability targets: zero rows, one-hot rows, empty batches -----
    case("cross_entropy", x(LOGITS), c([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), reduction=r)
    case("cross_entropy", x(LOGITS), x([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), reduction=r)
    case("cross_entropy", x(LOGITS), c([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), weight=c([0.0, 0.0, 0.0]), reduction=r)
    case("cross_entropy", x(nothing(0, 3)), c(nothing(0, 3)), reduction=r)
    case("nll_loss", x([[-0.5, -1.0, -2.0], [-0.1, -3.0, -inf]]), i([-100, -100]), reduction=r)
    case("nll_loss", x([[-0.5, -1.0, -2.0], [-0.1, -3.0, -inf]]), i([1, 2]), weight=c([1.0, 0.0, 0.0]), reduction=r)
    case("nll_loss", x([[-0.5, -1.0, -2.0], [-0.1, -3.0, -inf]]), i([0, 2]), reduction=r)
    case("nll_loss", x([[[-0.5, -1.0], [-2.0, -0.1]]]), i([[-100, -100]]), weight=c([1.0, 2.0]), reduction=r)
    case("nll_loss", x([-0.5, -1.0, -2.0]), i(-100), reduction=r)
    case("nll_loss", x(nothing(0, 3)), i([]), reduction=r)
    case("nll_loss", x(nothing(0, 3)), i([]), weight=c([1.0, 2.0, 3.0]), reduction=r)
    case("linear_cross_entropy", x([[1.0, 2.0], [0.5, -1.0]]), x([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), i([-100, -100]),
         reduction=r)
    # ----- probabilities 0 and 1 -----
    case("binary_cross_entropy", x([0.0, 1.0, 1.0, 0.0, 0.5]), c([1.0, 0.0, 1.0, 0.0, 0.5]), reduction=r)
    case("binary_cross_entropy", x([0.0, 1.0, 0.0, 1.0]), c([0.5, 0.5, 0.25, 1.0]), reduction=r)
    case("binary_cross_entropy", x([0.0, 1.0, 0.3]), x([1.0, 0.0, 0.5]), reduction=r)
    case("binary_cross_entropy", x([0.0, 1.0, 0.3]), c([1.0, 0.0, 0.5]), weight=c([0.0, 0.0, 0.0]), reduction=r)
    case("binary_cross_entropy", x([1e-30, 1.0 - 1e-7, 1e-7]), c([1.0, 0.0, 1.0]), reduction=r)
    case("binary_cross_entropy", x(nothing(0)), c(nothing(0)), reduction=r)
    case("binary_cross_entropy_with_logits", x([100.0, -100.0, 0.0, 1e4, -1e4]), x([0.0, 1.0, 0.5, 0.0, 1.0]), reduction=r)
    case("binary_cross_entropy_with_logits", x([inf, -inf, inf, -inf]), c([1.0, 0.0, 0.0, 1.0]), reduction=r)
    case("binary_cross_entropy_with_logits", x([100.0, -100.0, 0.0]), c([0.0, 1.0, 0.5]), weight=c([0.0, 0.0, 0.0]),
         pos_weight=c([0.0, 0.0, 0.0]), reduction=r)
    case("binary_cross_entropy_with_logits", x([100.0, -100.0, 0.0]), c([0.0, 1.0, 0.5]), pos_weight=c([0.0, 2.0, 1.0]),
         reduction=r)
    case("binary_cross_entropy_with_logits", x([inf, -inf, 0.0]), x([0.5, 0.5, 1.0]), pos_weight=c([0.0, 2.0, 0.0]),
         reduction=r)
    case("binary_cross_entropy_with_logits", x(nothing(0, 2)), c(nothing(0, 2)), pos_weight=c([1.0, 2.0]), reduction=r)
    case("multilabel_soft_margin_loss", x([[100.0, -100.0], [0.0, 1e4]]), c([[0.0, 1.0], [1.0, 1.0]]), reduction=r)
    case("multilabel_soft_margin_loss", x([[1.0, -1.0]]), c([[0.0, 1.0]]), weight=c([0.0, 0.0]), reduction=r)
    case("multilabel_soft_margin_loss", x([[inf, -inf], [-inf, inf]]), c([[1.0, 0.0], [1.0, 0.0]]), reduction=r)
    case("multilabel_soft_margin_loss", x(nothing(0, 2)), c(nothing(0, 2)), reduction=r)
    case("soft_margin_loss", x([100.0, -100.0, 0.0, 1e4]), c([-1.0, 1.0, 1.0, -1.0]), reduction=r)
    case("soft_margin_loss", x([inf, -inf]), c([1.0, 1.0]), reduction=r)
    case("soft_margin_loss", x(nothing(0)), c(nothing(0)), reduction=r)
    # ----- likelihoods -----
    case("kl_div", x([-1.0, -inf, -2.0, 0.0]), x([0.0, 0.0, 0.5, 1.0]), reduction=r)
    case("kl_div", x([-1.0, -inf, -2.0]), x([-inf, -inf, -0.5]), log_target=True, reduction=r)
    case("kl_div", x(nothing(0, 2)), c(nothing(0, 2)), reduction=r)
    case("poisson_nll_loss", x([0.0, 0.0, 2.0, 1.0]), x([0.0, 1.0, 0.0, 3.0]), log_input=False, full=True, reduction=r)
    case("poisson_nll_loss", x([-100.0, 100.0, 0.0]), x([0.0, 1.0, 1.0]), full=True, reduction=r)
    case("poisson_nll_loss", x(nothing(0)), c(nothing(0)), reduction=r)
    case("gaussian_nll_loss", x([1.0, 2.0, 0.0]), x([1.0, 0.0, 0.0]), x([0.0, 0.0, 1e-7]), reduction=r)
    case("gaussian_nll_loss", x(nothing(0, 2)), c(nothing(0, 2)), c(nothing(0, 2)), reduction=r)
    # ----- regression: kinks and empty batches -----
    case("mse_loss", x([1.0, 2.0]), x([1.0, 3.0]), reduction=r)
    case("mse_loss", x(nothing(0)), c(nothing(0)), reduction=r)
    case("l1_loss", x([1.0, 2.0, 0.0]), x([1.0, 3.0, 0.0]), reduction=r)
    case("l1_loss", x([inf, inf, -inf]), x([inf, 1.0, 0.0]), reduction=r)
    case("l1_loss", x(nothing(0, 3)), c(nothing(0, 3)), reduction=r)
    case("smooth_l1_loss", x([1.0, 2.0, 0.0, 0.5]), x([1.0, 3.0, 0.5, 0.0]), beta=0.5, reduction=r)
    case("smooth_l1_loss", x([1.0, 2.0]), x([1.0, 3.0]), beta=0.0, reduction=r)
    case("smooth_l1_loss", x([inf, inf, 0.0]), x([inf, 1.0, 0.0]), reduction=r)
    case("smooth_l1_loss", x(nothing(0)), c(nothing(0)), reduction=r)
    case("huber_loss", x([1.0, 2.0, 0.0, 0.5]), x([1.0, 3.0, 0.5, 0.0]), delta=0.5, reduction=r)
    case("huber_loss", x([inf, inf, 0.0]), x([inf, 1.0, 0.0]), reduction=r)
    case("huber_loss", x(nothing(0)), c(nothing(0)), reduction=r)
    # ----- margins: at the hinge, zero weights, nothing listed, empty batches -----
    case("margin_ranking_loss", x([1.0, 0.5, 0.0]), x([0.5, 0.5, 1.0]), c([1.0, 1.0, -1.0]), margin=0.5, reduction=r)
    case("margin_ranking_loss", x(nothing(0)), c(nothing(0)), c(nothing(0)), reduction=r)
    case("hinge_embedding_loss", x([1.0, 0.5, 0.0, 2.0]), c([-1.0, 1.0, -1.0, -1.0]), reduction=r)
    case("hinge_embedding_loss", x(nothing(0)), c(nothing(0)), reduction=r)
    case("cosine_embedding_loss", x([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]), x([[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]),
         i([1, -1, -1]), reduction=r)
    case("cosine_embedding_loss", x([[1.0, 0.0]]), x([[1.0, 1.0]]), i([-1]), margin=0.7071067811865476, reduction=r)
    case("cosine_embedding_loss", x(nothing(0, 2)), c(nothing(0, 2)), i([]), reduction=r)
    case("multi_margin_loss", x([[0.1, 0.2, 1.1], [0.5, 0.5, 0.5]]), i([2, 0]), reduction=r)
    case("multi_margin_loss", x([[0.1, 0.2, 1.1], [0.5, 0.5, 0.5]]), i([2, 0]), p=2, weight=c([0.0, 1.0, 0.0]),
         reduction=r)
    case("multilabel_margin_loss", x([[0.1, 0.2, 0.4], [0.5, 0.5, 1.5]]), i([[-1, 0, 1], [2, -1, 0]]), reduction=r)
    case("multilabel_margin_loss", x([[0.1, 0.2, 0.4], [0.5, 0.5, 1.5]]), i([[0, 1, 2], [2, 1, 0]]), reduction=r)
    case("triplet_margin_loss", x([[1.0, 2.0], [0.0, 0.0]]), x([[1.0, 2.0], [0.0, 0.0]]), x([[1.0, 2.0], [1.0, 0.0]]),
         reduction=r)
    case("triplet_margin_loss", x([[1.0, 2.0]]), x([[1.0, 2.0]]), x([[1.0, 2.0]]), eps=0.0, swap=True, reduction=r)
    case("triplet_margin_loss", x(nothing(0, 2)), c(nothing(0, 2)), c(nothing(0, 2)), reduction=r)
    case("triplet_margin_with_distance_loss", x([[1.0, 2.0], [0.0, 0.0]]), x([[1.0, 2.0], [0.0, 0.0]]),
         x([[1.0, 2.0], [1.0, 0.0]]), swap=True, reduction=r)
    case("triplet_margin_with_distance_loss", x(nothing(0, 2)), c(nothing(0, 2)), c(nothing(0, 2)), reduction=r)
    # ----- sequences: impossible alignments, empty targets, empty inputs -----
    for zero_infinity in (False, True):
        ctc_log_probs = x([[[-1.0, -0.5, -2.0]], [[-0.7, -1.5, -1.0]]])
        case("ctc_loss", ctc_log_probs, i([[1, 2, 1]]), [2], [3], zero_infinity=zero_infinity, reduction=r)
        case("ctc_loss", ctc_log_probs, i([[1, 1]]), [2], [2], zero_infinity=zero_infinity, reduction=r)
        case("ctc_loss", ctc_log_probs, i([[1]]), [2], [0], zero_infinity=zero_infinity, reduction=r)
        case("ctc_loss", ctc_log_probs, i([[1]]), [0], [0], zero_infinity=zero_infinity, reduction=r)
        case("ctc_loss", ctc_log_probs, i([[1]]), [0], [1], zero_infinity=zero_infinity, reduction=r)
        case("ctc_loss", x(nothing(2, 0, 3)), i(nothing(0, 0)), [], [], zero_infinity=zero_infinity, reduction=r)  # refused

# PyTorch's multi_margin_loss and multilabel_margin_loss of an empty batch return uninitialised
# memory for 'mean' and 'sum' (aten's CPU kernels allocate the result and never fill it): only 'none'.
case("multi_margin_loss", x(nothing(0, 3)), i([]), reduction="none")
case("multilabel_margin_loss", x(nothing(0, 3)), i(nothing(0, 3)), reduction="none")
case("kl_div", x([[-1.0, -2.0]]), x([[0.0, 1.0]]), reduction="batchmean")
case("kl_div", x(nothing(0, 2)), c(nothing(0, 2)), reduction="batchmean")
