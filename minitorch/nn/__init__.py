"""minitorch.nn: modules, layers, losses, functional forms and initialisers, as torch.nn."""
from . import functional, init, parallel, utils
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv2D, Conv2d
from .dropout import Dropout
from .embedding import Embedding
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import (
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss,
)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .parallel import SyncBatchNorm
from .parameter import Parameter
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d

# ----- surface: convolution, pooling, padding, resampling, normalization, containers, lazy modules -----
from .container import ParameterDict, ParameterList
from .conv import Conv1d, ConvTranspose1d, ConvTranspose2d
from .flatten import Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .lazy import (
    LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d,
    LazyInstanceNorm1d, LazyInstanceNorm2d, LazyLinear, LazyModuleMixin,
)
from .parameter import Buffer, UninitializedBuffer, UninitializedParameter
from .linear import Bilinear
from .normalization import GroupNorm, LocalResponseNorm, RMSNorm
from .padding import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .pooling import (
    AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, FractionalMaxPool2d, LPPool1d, LPPool2d,
    MaxPool1d, MaxUnpool1d, MaxUnpool2d,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

# ----- surface: activations, losses, attention, recurrent, transformer, distances -----
from .activation import (
    CELU, ELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid, Mish, PReLU, ReLU6, RReLU, SiLU,
    Softmax2d, Softmin, Softplus, Softshrink, Softsign, Tanhshrink, Threshold,
)
from .dropout import AlphaDropout, Dropout1d, Dropout2d, FeatureAlphaDropout
from .distance import CosineSimilarity, PairwiseDistance
from .embedding import EmbeddingBag
from .attention import MultiheadAttention
from .transformer import (
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .loss import (
    CTCLoss, CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, KLDivLoss, LinearCrossEntropyLoss,
    LinearCrossEntropyOptions, MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
    NLLLoss2d, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
)
from . import modules, parameter  # PyTorch's paths: torch.nn.modules.*, torch.nn.parameter

SPATIAL_EXPORTS = [
    "ParameterList", "ParameterDict", "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "Unflatten", "Fold", "Unfold",
    "InstanceNorm1d", "InstanceNorm2d", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyModuleMixin", "UninitializedParameter", "UninitializedBuffer", "Bilinear", "GroupNorm", "LocalResponseNorm",
    "RMSNorm", "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "PixelShuffle", "PixelUnshuffle",
    "ChannelShuffle", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "FractionalMaxPool2d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
]

_ACTIVATIONS_LOSSES_ATTENTION = [
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer", "GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase",
    "CosineSimilarity", "PairwiseDistance", "EmbeddingBag", "CTCLoss", "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "KLDivLoss",
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions",
    "MarginRankingLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss2d",
    "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "AlphaDropout", "Dropout1d", "Dropout2d", "FeatureAlphaDropout",
    "CELU", "ELU", "GLU", "SELU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid", "Mish", "PReLU",
    "ReLU6", "RReLU", "SiLU", "Softmax2d", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanhshrink", "Threshold",
]

__all__ = [
    "functional", "init", "modules", "parallel", "parameter", "utils", "Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "Identity",
    "Linear", "Conv2d", "Conv2D", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "SyncBatchNorm", "MaxPool2d", "AvgPool2d",
    "AdaptiveAvgPool2d", "Dropout", "Flatten", "ReLU", "LeakyReLU", "GELU", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "Embedding", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
    "BCELoss", "BCEWithLogitsLoss",
] + SPATIAL_EXPORTS
__all__ += _ACTIVATIONS_LOSSES_ATTENTION  # the names of the block 'activations, losses, attention, ...'
