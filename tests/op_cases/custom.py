"""Cases for the op behind user-written gradients, CustomGradient, through both its
doors (mt.custom_gradient and mt.autograd.Function). Its gradients are the user's,
written here with minitorch ops so that they are right, and differentiable again."""
import minitorch as mt

from . import OpCase
from .core import normal


@mt.custom_gradient
def _cube_times(x, y):
    """x^3 y, with its gradient written by hand."""
    def grad_fn(dy):
        return dy * 3 * x * x * y, dy * x ** 3
    return x ** 3 * y, grad_fn


class _SinExp(mt.autograd.Function):
    """(sin x, e^x) with a hand-written backward that reads a saved input and a saved output."""

    @staticmethod
    def forward(ctx, x):
        s, e = mt.sin(x), mt.exp(x)
        ctx.save_for_backward(x, e)
        return s, e

    @staticmethod
    def backward(ctx, grad_s, grad_e):
        x, e = ctx.saved_tensors
        return grad_s * mt.cos(x) + grad_e * e


CASES = [
    OpCase("CustomGradient", _cube_times, normal((2, 3), (3,))),
    OpCase("CustomGradient", lambda x: _SinExp.apply(x), normal((2, 2)), name="autograd-Function"),
]
