"""The public doors onto the engine (minitorch/engine/, which this package re-exports from).

    backward.py        the PyTorch door: backward(), grad()
    gradient_tape.py   the TensorFlow door: GradientTape
    custom.py          user-written gradients: custom_gradient, Function (one op, two doors)
    functional.py      jacobian, hessian, vjp, jvp, hvp, vhp
    gradcheck.py       finite-difference checks
    graph.py           what a tape holds, as a graph (behind mt.viz)
"""
from ..engine.anomaly import AnomalyError, detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ..engine.forwardprop import ForwardAccumulator
from ..engine.state import enable_grad, is_grad_enabled, no_grad, set_grad_enabled, stop_recording
from ..engine.trace import set_tracing, tracing
from . import functional
from .backward import backward, grad
from .custom import Function, custom_gradient
from .gradcheck import gradcheck, gradgradcheck
from .gradient_tape import GradientTape

__all__ = [
    "AnomalyError", "detect_anomaly", "is_anomaly_enabled", "set_detect_anomaly", "set_tracing", "tracing", "Function",
    "functional", "backward", "grad", "gradcheck", "gradgradcheck", "GradientTape", "enable_grad", "is_grad_enabled",
    "no_grad", "set_grad_enabled", "stop_recording", "ForwardAccumulator", "custom_gradient",
]
