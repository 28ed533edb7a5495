"""The autodiff engine. Read in data-flow order:

execute.py -> record.py -> tape.py -> backprop.py, with tape_set.py holding
the global set of tapes, gradient_tape.py the TensorFlow door and
autograd_tape.py the PyTorch door.
"""
from .anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .autograd_tape import backward, grad
from .trace import set_tracing, tracing
from .gradcheck import gradcheck, gradgradcheck
from .gradient_tape import GradientTape
from . import functional
from .function import Function
from .tape_set import enable_grad, is_grad_enabled, no_grad, set_grad_enabled, stop_recording

__all__ = ["AnomalyError", "detect_anomaly", "is_anomaly_enabled", "set_detect_anomaly", "set_tracing", "tracing", "Function", "functional", "backward", "grad", "gradcheck", "gradgradcheck", "GradientTape", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled", "stop_recording"]
