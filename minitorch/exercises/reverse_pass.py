"""Checking a student's reverse pass: small programs run with minitorch's compute_gradient and with
the student's (engine/student_pass.py: reverse_pass_replaced), their gradients compared.

Each case is a program a user would write (backward(), autograd.grad, several
targets, second derivatives) and the hint that names what it tests: a tensor
used twice, broadcasting, an op with an output nobody used, a source the
targets do not depend on, a pass recorded for a second derivative.
"""
import dataclasses

import numpy as np

import minitorch as mt
from minitorch.engine.backprop import broadcast_axes
from minitorch.engine.student_pass import reverse_pass_replaced
from minitorch.ops.loss_ops import sparse_softmax_cross_entropy_with_logits

from .checks import FAIL, PASS, Verdict, CheckFailed, explain_difference, raised


@dataclasses.dataclass(frozen=True)
class PassCase:
    """`run()` returns gradients (Tensors or None), computed by whichever reverse pass is in place."""

    label: str
    run: object
    hint: str


def _leaf(values):
    return mt.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


def _chain_case():
    a, b, c, f = _leaf(2.0), _leaf(-3.0), _leaf(10.0), _leaf(-2.0)
    ((a * b + c) * f).backward()
    return [a.grad, b.grad, c.grad, f.grad]


def _used_twice():
    x = _leaf([0.5, -1.0, 2.0])
    (x * x + x).sum().backward()
    return [x.grad]


def _broadcast():
    w, b = _leaf([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1]]), _leaf([0.1, 0.2, 0.3])
    (mt.tanh(w * b) + b).sum().backward()
    return [w.grad, b.grad]


def _layer():
    rng = np.random.default_rng(0)
    x = mt.tensor(rng.standard_normal((4, 3)))
    weight, bias = _leaf(rng.standard_normal((2, 3))), _leaf(rng.standard_normal(2))
    mt.relu(mt.nn.functional.linear(x, weight, bias) + 0.5).mean().backward()
    return [weight.grad, bias.grad]


def _two_outputs():
    logits = _leaf([[1.0, 2.0, 0.5], [0.1, -1.0, 0.3]])
    loss, _ = sparse_softmax_cross_entropy_with_logits(logits, mt.tensor([2, 0]))
    loss.sum().backward()
    return [logits.grad]


def _sources():
    x, unused = _leaf([1.0, 2.0]), _leaf([3.0])
    h = mt.exp(x)
    loss = (h * h).sum()
    return list(mt.autograd.grad(loss, [unused, h], allow_unused=True))


def _several_targets():
    x = _leaf([1.0, -2.0])
    y1, y2 = x * 3, mt.sin(x)
    mt.autograd.backward([y1, y2], [mt.tensor([1.0, 0.5], dtype=mt.float64), mt.tensor([-1.0, 2.0], dtype=mt.float64)])
    return [x.grad]


def _second_order_pass():
    x = _leaf([0.5, -1.5, 2.0])
    (first,) = mt.autograd.grad((x ** 3 + x * x).sum(), x, create_graph=True)
    if not first.requires_grad:
        raise CheckFailed(Verdict(FAIL, "not differentiable twice: the gradients your pass returns are not on the tape "
                                    "(computed with numpy, .numpy(), .item() or .detach()), so create_graph=True "
                                    "cannot record them; use minitorch ops"))
    (second,) = mt.autograd.grad(first.sum(), x)
    return [first, second]


CASES = (
    PassCase("a chain: L = (a*b + c) * f", _chain_case,
             "walk from the target to the leaves: each op after every op that reads its outputs"),
    PassCase("x used twice: (x*x + x).sum()", _used_twice,
             "x reaches the output along several paths (x*x reads it twice, + x once): add up every gradient "
             "that reaches a tensor (accumulate) before its op's backward function runs"),
    PassCase("broadcasting: (tanh(w (2, 3) * b (3,)) + b).sum()", _broadcast,
             "a gradient can come back in the broadcast shape: sum it back to its input's shape"),
    PassCase("a layer: relu(F.linear(x, W, b) + 0.5).mean()", _layer,
             "gradients of W and b through MatMul, Add, Relu and Mean"),
    PassCase("an op with two outputs: cross-entropy (loss, backprop)", _two_outputs,
             "an output nothing sent a gradient to gets zeros of its shape (entry.output_info)"),
    PassCase("sources: autograd.grad(loss, [unused, h])", _sources,
             "return one gradient per source, in order; None for a source the targets do not depend on"),
    PassCase("several targets with given gradients", _several_targets,
             "start each target with its output gradient; two targets can share a leaf"),
    PassCase("second derivative of (x ** 3 + x * x).sum()", _second_order_pass,
             "with create_graph=True the pass itself is recorded: minitorch ops only"),
)


def check_pass(function, path=None):
    """The Verdict on `function` as the reverse pass."""
    for case in CASES:
        expected = case.run()
        try:
            with reverse_pass_replaced(function):
                got = case.run()
            _compare(case, got, expected)
        except CheckFailed as failure:
            return failure.verdict
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # the student's pass raised (sys.exit too), or returned too few/many gradients
            if str(error).startswith("the reverse pass "):
                return Verdict(FAIL, f"{str(error)[len('the reverse pass '):]} on {case.label} ({case.hint})")
            verdict = raised(error, path, "compute_gradient")
            if verdict.status == FAIL:
                verdict.message += f" on {case.label}"
            return verdict
    return Verdict(PASS, f"gives minitorch's gradients on {len(CASES)} programs (chains, tensors used twice, "
                         "broadcasting, side outputs, sources, several targets, second derivatives)")


def _compare(case, got, expected):
    if len(got) != len(expected):
        raise CheckFailed(Verdict(FAIL, f"{case.label}: {len(got)} gradients for {len(expected)} sources ({case.hint})"))
    for i, (mine, theirs) in enumerate(zip(got, expected)):
        where = f"source {i} of {case.label}"
        if theirs is None:
            if mine is not None:
                raise CheckFailed(Verdict(FAIL, f"{where}: a gradient for a source the targets do not depend on ({case.hint})"))
            continue
        if mine is None:
            raise CheckFailed(Verdict(FAIL, f"{where}: no gradient ({case.hint})"))
        mine, theirs = np.asarray(mine.detach()), np.asarray(theirs.detach())
        if mine.shape != theirs.shape:
            if broadcast_axes(mine.shape, theirs.shape):
                raise CheckFailed(Verdict(FAIL, f"forgot to un-broadcast: the gradient of {where} has shape {mine.shape}, "
                                            f"the tensor {theirs.shape} ({case.hint})"))
            raise CheckFailed(Verdict(FAIL, f"wrong shape: the gradient of {where} has shape {mine.shape}, "
                                        f"the tensor {theirs.shape}"))
        try:
            explain_difference(mine, theirs, where, reference="minitorch's pass gives")
        except CheckFailed as failure:
            failure.verdict.message += f" ({case.hint})"
            raise
