"""Seeing the engine work: tracing transcripts, tensor hooks, anomaly detection."""
import io

import numpy as np
import pytest

import minitorch as mt

# These tests make nan and inf on purpose (0/0, the gradient of sqrt at 0); the numpy kernels then
# warn "invalid value / divide by zero encountered". Expected here, so not printed in the test output;
# ignored rather than required, since PyTorch prints no such warning and minitorch may stop too.
expects_numpy_nan_warnings = pytest.mark.filterwarnings(
    "ignore:(invalid value|divide by zero) encountered in:RuntimeWarning")


def test_trace_of_a_small_expression_matches_the_transcript():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    w = mt.tensor([3.0, 4.0], requires_grad=True)
    out = io.StringIO()
    with mt.autograd.tracing(out):
        y = (x * w + x).sum()
        y.backward()
    tape = mt.engine.autograd_tape.AUTOGRAD_TAPE.serial
    assert out.getvalue().splitlines() == [
        f"record   Mul          t0(2,) t1(2,) -> t2(2,)  tape {tape}  keeps inputs",
        f"record   Add          t2(2,) t0(2,) -> t3(2,)  tape {tape}  keeps nothing",
        f"record   Sum          t3(2,) -> t4()  tape {tape}  keeps nothing",
        "backward Sum          grad of t4 = 1 -> t3(2,) = [1, 1]",
        "backward Add          grad of t3 = [1, 1] -> t2(2,) = [1, 1], t0(2,) = [1, 1]",
        "backward Mul          grad of t2 = [1, 1] -> t0(2,) = [3, 4], t1(2,) = [1, 2]",
        "sum      2 gradients of t0",  # x feeds Mul and Add: its two gradients are summed last
    ]


def test_tracing_is_off_by_default_and_prints_nothing(capsys):
    x = mt.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    assert capsys.readouterr().out == ""


def test_hook_can_replace_the_gradient_and_be_removed():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (x * x).sum().backward()
    assert seen == [[2.0, 4.0]] and x.grad.tolist() == [20.0, 40.0]
    handle.remove()
    x.grad = None
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0] and len(seen) == 1


def test_hooks_on_intermediates_fire_in_reverse_order_and_flow_on():
    x = mt.tensor(2.0, requires_grad=True)
    order = []
    a = x * 3
    b = a * a
    a.register_hook(lambda g: order.append("a"))
    b.register_hook(lambda g: order.append("b") or g * 0.5)
    b.backward()
    assert order == ["b", "a"]
    assert x.grad.item() == pytest.approx(0.5 * 2 * 6 * 3)


def test_retain_grad_keeps_a_non_leaf_gradient_after_the_other_hooks():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: g * 2)
    (y * y).sum().backward()
    assert y.grad.tolist() == [12.0, 24.0] and x.grad.tolist() == [36.0, 72.0]


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mt.ones(2).register_hook(lambda g: g)


def test_anomaly_names_log_of_zero_and_the_users_line():
    with pytest.raises(mt.autograd.AnomalyError, match=r"'Log' returned inf") as info:
        with mt.autograd.detect_anomaly():
            mt.log(mt.tensor([0.0, 1.0]))
    assert "test_trace_hooks_anomaly.py" in str(info.value)


@expects_numpy_nan_warnings
def test_anomaly_names_zero_over_zero():
    with pytest.raises(mt.autograd.AnomalyError, match=r"'RealDiv' returned nan"):
        with mt.autograd.detect_anomaly():
            mt.tensor([0.0]) / mt.tensor([0.0])


@expects_numpy_nan_warnings
def test_anomaly_in_backward_names_the_forward_op_and_where_it_was_made():
    a = mt.tensor([0.0, 1.0], requires_grad=True)
    with pytest.raises(mt.autograd.AnomalyError, match=r"SqrtBackward") as info:
        with mt.autograd.detect_anomaly():
            b = mt.sqrt(a).sum()  # the line the error must point at
            b.backward()
    assert "b = mt.sqrt(a).sum()" in str(info.value)


@expects_numpy_nan_warnings
def test_without_anomaly_detection_nan_passes_silently():
    y = mt.tensor([0.0]) / mt.tensor([0.0])
    assert np.isnan(y.item()) and not mt.autograd.is_anomaly_enabled()
