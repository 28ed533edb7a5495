"""torch.nn.modules.activation: PyTorch's path to these classes, for `from torch.nn.modules.activation import ...`.

They live in nn/activation.py, nn/attention.py.
"""
from ..activation import (
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish,
    PReLU, RReLU, ReLU, ReLU6, SELU, SiLU, Sigmoid, Softmax, Softmax2d, Softmin, Softplus, Softshrink, Softsign,
    Tanh, Tanhshrink, Threshold,
)
from ..attention import MultiheadAttention
