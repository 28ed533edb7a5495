"""minitorch.nn: modules, layers, losses, functional forms and initialisers, as torch.nn.

One import line per module (each named after its concept, as PyTorch's torch/nn/modules/*.py);
`modules` and `parameter` are PyTorch's paths (torch.nn.modules.*, torch.nn.parameter).
"""
from . import functional, init, modules, parallel, parameter, utils
from .activation import (
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU,
    RReLU, ReLU, ReLU6, SELU, SiLU, Sigmoid, Softmax, Softmax2d, Softmin, Softplus, Softshrink, Softsign, Tanh,
    Tanhshrink, Threshold,
)
from .attention import MultiheadAttention
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2D, Conv2d, ConvTranspose1d, ConvTranspose2d
from .distance import CosineSimilarity, PairwiseDistance
from .dropout import AlphaDropout, Dropout, Dropout1d, Dropout2d, FeatureAlphaDropout
from .embedding import Embedding, EmbeddingBag
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .instancenorm import InstanceNorm1d, InstanceNorm2d
from .lazy import (
    LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d, LazyConvTranspose1d, LazyConvTranspose2d,
    LazyInstanceNorm1d, LazyInstanceNorm2d, LazyLinear, LazyModuleMixin,
)
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss, BCEWithLogitsLoss, CTCLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss, HingeEmbeddingLoss,
    HuberLoss, KLDivLoss, L1Loss, LinearCrossEntropyLoss, LinearCrossEntropyOptions, MSELoss, MarginRankingLoss,
    MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d, PoissonNLLLoss, SmoothL1Loss,
    SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import (
    CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d,
    ReplicationPad2d, ZeroPad1d, ZeroPad2d,
)
from .parallel import SyncBatchNorm
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle
from .pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d,
    FractionalMaxPool2d, LPPool1d, LPPool2d, MaxPool1d, MaxPool2d, MaxUnpool1d, MaxUnpool2d,
)
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .transformer import (
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "functional", "init", "modules", "parallel", "parameter", "utils", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AlphaDropout", "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss",
    "BatchNorm1d", "BatchNorm2d", "Bilinear", "Buffer", "CELU", "CTCLoss", "ChannelShuffle", "CircularPad1d",
    "CircularPad2d", "ConstantPad1d", "ConstantPad2d", "Conv1d", "Conv2D", "Conv2d", "ConvTranspose1d",
    "ConvTranspose2d", "CosineEmbeddingLoss", "CosineSimilarity", "CrossEntropyLoss", "Dropout", "Dropout1d",
    "Dropout2d", "ELU", "Embedding", "EmbeddingBag", "FeatureAlphaDropout", "Flatten", "Fold", "FractionalMaxPool2d",
    "GELU", "GLU", "GRU", "GRUCell", "GaussianNLLLoss", "GroupNorm", "Hardshrink", "Hardsigmoid", "Hardswish",
    "Hardtanh", "HingeEmbeddingLoss", "HuberLoss", "Identity", "InstanceNorm1d", "InstanceNorm2d", "KLDivLoss",
    "L1Loss", "LPPool1d", "LPPool2d", "LSTM", "LSTMCell", "LayerNorm", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyLinear", "LazyModuleMixin", "LeakyReLU", "Linear", "LinearCrossEntropyLoss",
    "LinearCrossEntropyOptions", "LocalResponseNorm", "LogSigmoid", "LogSoftmax", "MSELoss", "MarginRankingLoss",
    "MaxPool1d", "MaxPool2d", "MaxUnpool1d", "MaxUnpool2d", "Mish", "Module", "ModuleDict", "ModuleList",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiheadAttention", "NLLLoss", "NLLLoss2d",
    "PReLU", "PairwiseDistance", "Parameter", "ParameterDict", "ParameterList", "PixelShuffle", "PixelUnshuffle",
    "PoissonNLLLoss", "RMSNorm", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "RReLU", "ReLU", "ReLU6",
    "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "SELU", "Sequential", "SiLU",
    "Sigmoid", "SmoothL1Loss", "SoftMarginLoss", "Softmax", "Softmax2d", "Softmin", "Softplus", "Softshrink",
    "Softsign", "SyncBatchNorm", "Tanh", "Tanhshrink", "Threshold", "Transformer", "TransformerDecoder",
    "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer", "TripletMarginLoss",
    "TripletMarginWithDistanceLoss", "Unflatten", "Unfold", "UninitializedBuffer", "UninitializedParameter", "Upsample",
    "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d",
]
