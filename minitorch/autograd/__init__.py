"""The autodiff engine. Read in data-flow order:

execute.py -> record.py -> tape.py -> backprop.py, with tape_set.py holding
the global set of tapes, gradient_tape.py the TensorFlow door and
autograd_tape.py the PyTorch door.
"""
from .autograd_tape import backward, grad
from .gradient_tape import GradientTape
from .tape_set import enable_grad, is_grad_enabled, no_grad, set_grad_enabled, stop_recording

__all__ = ["backward", "grad", "GradientTape", "enable_grad", "is_grad_enabled", "no_grad", "set_grad_enabled", "stop_recording"]
