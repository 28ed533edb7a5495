"""The autodiff engine. Read in data-flow order:

execute.py -> record.py -> tape.py -> backprop.py, with tape_set.py holding
the global set of tapes, gradient_tape.py the TensorFlow door and
autograd_tape.py the PyTorch door.
"""
from .autograd_tape import backward, grad
from .gradcheck import gradcheck, gradgradcheck
from .gradient_tape import GradientTape
from . import functional
from .function import Function
from .tape_set import enable_grad, is_grad_enabled, no_grad, set_grad_enabled, stop_recording

__all__ = ["Function", "functional", "backward", "grad", "gradcheck", "gradgradcheck", "GradientTape", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled", "stop_recording"]
