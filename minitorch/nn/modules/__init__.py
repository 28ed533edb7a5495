"""torch.nn.modules: PyTorch's module layout over minitorch.nn, so that imports such as
`from torch.nn.modules.loss import _Loss` or `from torch.nn.modules.utils import _pair` work with only
`torch` changed to `minitorch`. Each submodule names the minitorch file its classes live in.
"""
from . import (  # noqa: F401  (PyTorch's submodules)
    activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm, lazy,
    linear, linear_cross_entropy_options, loss, module, normalization, padding, pixelshuffle, pooling, rnn, sparse,
    transformer, upsampling, utils,
)
from .activation import (
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish,
    MultiheadAttention, PReLU, RReLU, ReLU, ReLU6, SELU, SiLU, Sigmoid, Softmax, Softmax2d, Softmin, Softplus,
    Softshrink, Softsign, Tanh, Tanhshrink, Threshold,
)
from .batchnorm import BatchNorm1d, BatchNorm2d, LazyBatchNorm1d, LazyBatchNorm2d, SyncBatchNorm
from .channelshuffle import ChannelShuffle
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (
    Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, LazyConv1d, LazyConv2d, LazyConvTranspose1d,
    LazyConvTranspose2d,
)
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, FeatureAlphaDropout
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d, LazyInstanceNorm1d, LazyInstanceNorm2d
from .lazy import LazyModuleMixin
from .linear import (
    Bilinear, Identity, LazyLinear, Linear, NonDynamicallyQuantizableLinear, NonDynamicallyQuantizableLinear,
)
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import (
    BCELoss, BCEWithLogitsLoss, CTCLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
    HuberLoss, KLDivLoss, L1Loss, LinearCrossEntropyLoss, MSELoss, MarginRankingLoss, MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d, PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss,
    TripletMarginLoss, TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
    FractionalMaxPool2d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d,
)
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import (
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d
