"""torch.nn.modules.loss: PyTorch's path to these classes, for `from torch.nn.modules.loss import ...`.

They live in nn/loss.py.
"""
from ..loss import (
    BCELoss, BCEWithLogitsLoss, CTCLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
    HuberLoss, KLDivLoss, L1Loss, LinearCrossEntropyLoss, MSELoss, MarginRankingLoss, MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss,
    TripletMarginLoss, TripletMarginWithDistanceLoss, _Loss, _WeightedLoss,
)
