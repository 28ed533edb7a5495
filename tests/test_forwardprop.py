"""ForwardAccumulator: TensorFlow's forward-mode behaviours (tensorflow/python/eager/forwardprop.py)."""
import gc

import numpy as np
import pytest

import minitorch as mt
from minitorch.engine import state as tape_set


def f64(values):
    return mt.tensor(values, dtype=mt.float64)


def test_jvp_of_a_composite_function_matches_the_analytic_derivative():
    x, v = f64([0.3, -1.2, 2.0]), f64([1.0, 2.0, -0.5])
    with mt.ForwardAccumulator(x, v) as acc:
        y = mt.tanh(x * x).sum() + (x.exp() / (1 + x * x)).mean()
    xs, vs = x._data, v._data
    dtanh = (1 - np.tanh(xs ** 2) ** 2) * 2 * xs
    dfrac = (np.exp(xs) * (1 + xs ** 2) - np.exp(xs) * 2 * xs) / (1 + xs ** 2) ** 2 / 3
    assert acc.jvp(y).item() == pytest.approx(float(np.sum((dtanh + dfrac) * vs)), rel=1e-12)


def test_jvp_of_the_primal_is_its_tangent_and_unconnected_is_none_or_zero():
    x, other = f64([1.0, 2.0]), f64([3.0])
    with mt.ForwardAccumulator(x, f64([0.5, 0.25])) as acc:
        y = other * 2
    np.testing.assert_array_equal(acc.jvp(x)._data, [0.5, 0.25])
    assert acc.jvp(y) is None
    np.testing.assert_array_equal(acc.jvp(y, unconnected_gradients="zero")._data, [0.0])
    assert acc.jvp([x, y])[1] is None
    with pytest.raises(ValueError, match="unconnected_gradients"):
        acc.jvp(x, unconnected_gradients="ones")


def test_watching_a_primal_twice_adds_the_tangents():
    x = f64([1.0, 2.0])
    with mt.ForwardAccumulator([x, x], [f64([1.0, 0.0]), f64([0.0, 3.0])]) as acc:
        y = x * 2
    np.testing.assert_array_equal(acc.jvp(y)._data, [2.0, 6.0])


def test_reentering_an_active_accumulator_raises():
    acc = mt.ForwardAccumulator(f64([1.0]), f64([1.0]))
    with acc:
        with pytest.raises(ValueError, match="already recording"):
            acc.__enter__()
    assert acc not in tape_set.active_accumulators


def test_bad_primals_and_tangents_raise():
    with pytest.raises(ValueError, match="does not match"):
        mt.ForwardAccumulator(f64([1.0, 2.0]), f64([1.0]))
    with pytest.raises(ValueError, match="floating"):
        mt.ForwardAccumulator(mt.tensor([1, 2]), mt.tensor([1, 1]))
    with pytest.raises(ValueError, match="same structure"):
        mt.ForwardAccumulator([f64([1.0]), f64([2.0])], [f64([1.0])])


def test_stop_recording_and_no_grad_pause_the_accumulator():
    x = f64([1.0, 2.0])
    with mt.ForwardAccumulator(x, f64([1.0, 1.0])) as acc:
        with mt.stop_recording():
            paused = x * 3
        with mt.no_grad():
            paused_too = x * 3
        live = x * 3
    assert acc.jvp(paused) is None and acc.jvp(paused_too) is None
    np.testing.assert_array_equal(acc.jvp(live)._data, [3.0, 3.0])


def test_jvps_of_dead_tensors_are_released():
    x = f64([1.0, 2.0])
    with mt.ForwardAccumulator(x, f64([1.0, 1.0])) as acc:
        y = x.exp()
        y_id = y._id
        assert y_id in acc._jvps
        del y
        gc.collect()
        assert y_id not in acc._jvps
        z = (x * 2).sin()  # the intermediate x * 2 dies at once
        alive = set(acc._jvps)
    assert alive == {x._id, z._id}


def test_the_accumulator_ignores_the_ops_of_its_own_jvp_computation():
    x = f64([0.5, 1.5])
    with mt.ForwardAccumulator(x, f64([1.0, 1.0])) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = mt.sin(x)
        recorded = sorted(entry.op_type for entry in tape._tape.live_entries())
        tracked = set(acc._jvps)
    # Tangent of y is cos(x) * t: the tape saw those ops too, the accumulator kept only x and y.
    assert tracked == {x._id, y._id}
    assert recorded.count("Sin") == 1 and "Cos" in recorded


def test_nested_accumulators_give_second_derivatives_and_inner_ones_ignore_outer_work():
    x = f64([0.7, -0.4])
    v1, v2 = f64([1.0, 2.0]), f64([-1.0, 0.5])
    with mt.ForwardAccumulator(x, v1) as outer:
        with mt.ForwardAccumulator(x, v2) as inner:
            y = (x ** 3).sum() * mt.sin(x[0])
            inner_ids = set(inner._jvps)
        directional = inner.jvp(y)  # gradient . v2, computed while the outer accumulator watched
    second = outer.jvp(directional)
    # The inner accumulator never saw the outer one's tangent ops: it tracks only the primal ops.
    assert len(inner_ids) < len(outer._jvps)
    hessian = mt.autograd.functional.hessian(lambda t: (t ** 3).sum() * mt.sin(t[0]), x)
    assert second.item() == pytest.approx(float(v1._data @ hessian._data @ v2._data), rel=1e-12)


def test_forward_over_reverse_equals_reverse_over_reverse_and_reverse_over_forward():
    x, v = f64([0.3, 1.1, -0.8]), f64([1.0, -2.0, 0.5])

    def f(t):
        return (mt.tanh(t) * t.exp()).sum() + (t[0] * t[1] * t[2]).sigmoid()

    with mt.ForwardAccumulator(x, v) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    forward_over_reverse = acc.jvp(g)._data

    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    reverse_over_reverse = outer.gradient(g, x, output_gradients=v)._data

    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.ForwardAccumulator(x, v) as acc:
            y = f(x)
        directional = acc.jvp(y)
    reverse_over_forward = outer.gradient(directional, x)._data

    np.testing.assert_allclose(forward_over_reverse, reverse_over_reverse, rtol=1e-12)
    np.testing.assert_allclose(reverse_over_forward, reverse_over_reverse, rtol=1e-12)


def test_accumulator_and_the_pytorch_door_together():
    w = f64([[0.5, -1.0], [2.0, 0.25]]).requires_grad_()
    x = f64([1.0, 2.0])
    with mt.ForwardAccumulator(x, f64([1.0, 0.0])) as acc:
        y = mt.tanh(w @ x).sum()
    tangent = acc.jvp(y)  # d y / d x_0, itself a function of w
    assert tangent.requires_grad
    tangent.backward()
    h = np.tanh(w._data @ x._data)
    expected = np.zeros((2, 2))
    # d/dw [sum_i (1 - h_i^2) w_i0]
    for i in range(2):
        expected[i, 0] += 1 - h[i] ** 2
        expected[i, :] += -2 * h[i] * (1 - h[i] ** 2) * w._data[i, 0] * x._data
    np.testing.assert_allclose(w.grad._data, expected, rtol=1e-12)


def test_multi_output_and_integer_inputs_pass_through():
    x = f64([[1.0, 5.0], [3.0, 2.0]])
    with mt.ForwardAccumulator(x, f64([[1.0, 2.0], [3.0, 4.0]])) as acc:
        values, indices = x.max(dim=1)
        picked = x[mt.tensor([1, 0])]
    np.testing.assert_array_equal(acc.jvp(values)._data, [2.0, 3.0])
    assert acc.jvp(indices) is None
    np.testing.assert_array_equal(acc.jvp(picked)._data, [[3.0, 4.0], [1.0, 2.0]])
