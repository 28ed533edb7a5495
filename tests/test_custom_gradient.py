"""mt.custom_gradient and mt.autograd.Function: recorded like built-in ops, errors named."""
import numpy as np
import pytest

import minitorch as mt


def f64(values, requires_grad=False):
    return mt.tensor(values, dtype=mt.float64, requires_grad=requires_grad)


@mt.custom_gradient
def log1pexp(x):
    e = mt.exp(x)

    def grad_fn(dy):
        return dy * (1 - 1 / (1 + e))

    return mt.log(1 + e), grad_fn


def test_custom_gradient_is_used_by_tapes_and_backward():
    x = f64([0.0, 2.0, 100.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    g = tape.gradient(y, x)._data
    np.testing.assert_allclose(g, 1 / (1 + np.exp(-x._data)), rtol=1e-12)  # stable at 100, unlike the naive grad
    xr = f64([0.5, -1.0], requires_grad=True)
    log1pexp(xr).sum().backward()
    np.testing.assert_allclose(xr.grad._data, 1 / (1 + np.exp(-xr._data)), rtol=1e-12)


def test_second_derivative_flows_through_grad_fn():
    x = f64([0.5, -1.0], requires_grad=True)
    (g,) = mt.autograd.grad(log1pexp(x).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x)
    s = 1 / (1 + np.exp(-x._data))
    np.testing.assert_allclose(h._data, s * (1 - s), rtol=1e-10)


def test_custom_gradient_with_two_inputs_and_two_outputs_in_forward_mode():
    @mt.custom_gradient
    def both(a, b):
        def grad_fn(d_sum, d_prod):
            return d_sum + d_prod * b, d_sum + d_prod * a
        return (a + b, a * b), grad_fn

    a, b = f64([1.0, 2.0]), f64([3.0, -1.0])
    with mt.ForwardAccumulator([a, b], [f64([1.0, 0.0]), f64([0.0, 1.0])]) as acc:
        s, p = both(a, b)
    np.testing.assert_array_equal(acc.jvp(s)._data, [1.0, 1.0])
    np.testing.assert_array_equal(acc.jvp(p)._data, [3.0, 2.0])


def test_the_custom_gradient_really_replaces_the_true_one():
    @mt.custom_gradient
    def clipped_identity(x):
        return x * 1, lambda dy: dy.clamp(-1, 1)

    x = f64([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = clipped_identity(x)
    g = tape.gradient(y, x, output_gradients=f64([5.0, -0.5]))
    np.testing.assert_array_equal(g._data, [1.0, -0.5])


def test_grad_fn_returning_the_wrong_number_of_gradients_names_the_function():
    @mt.custom_gradient
    def two_args(a, b):
        return a * b, lambda dy: dy * b

    a, b = f64([1.0], True), f64([2.0], True)
    with pytest.raises(ValueError, match=r"two_args: grad_fn returned 1 gradient\(s\), but the function has 2"):
        two_args(a, b).sum().backward()


def test_grad_fn_returning_a_wrong_shape_names_the_function():
    @mt.custom_gradient
    def bad_shape(a):
        return a * 2, lambda dy: mt.ones(3, dtype=mt.float64)

    a = f64([1.0, 2.0], True)
    with pytest.raises(ValueError, match=r"bad_shape: grad_fn returned a gradient of shape \(3,\) for input 0 of shape \(2,\)"):
        bad_shape(a).sum().backward()


def test_custom_gradient_requires_a_callable_grad_fn():
    @mt.custom_gradient
    def no_grad_fn(a):
        return a, None

    with pytest.raises(TypeError, match="no_grad_fn"):
        no_grad_fn(f64([1.0]))


class Cube(mt.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.scale, None


def test_function_apply_forward_backward_and_needs_input_grad():
    seen = {}

    class Probe(mt.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            seen["recording"] = mt.is_grad_enabled()
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    a, b = f64([1.0], True), f64([2.0])
    Probe.apply(a, b)
    assert seen == {"needs": (True, False), "recording": False}

    x = f64([1.0, -2.0], True)
    y = Cube.apply(x, 2.0)
    assert y.requires_grad and y.grad_fn.name() == "CustomGradientBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad._data, 6 * x._data ** 2)


def test_function_double_backward_through_saved_input_and_saved_output():
    class Exp(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = mt.exp(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    x = f64([0.3, -0.7], True)
    (g,) = mt.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
    (h,) = mt.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h._data, np.exp(x._data), rtol=1e-12)
    assert mt.autograd.gradcheck(lambda t: Cube.apply(t, 2.0), (f64([0.5, 1.5], True),))
    assert mt.autograd.gradgradcheck(lambda t: Cube.apply(t, 2.0), (f64([0.5, 1.5], True),))


def test_function_with_non_differentiable_output():
    class SortValues(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            order = mt.tensor(np.argsort(x._data))
            ctx.mark_non_differentiable(order)
            ctx.order = order._data
            return x[order] * 1, order

        @staticmethod
        def backward(ctx, grad_values, grad_order):
            assert np.all(grad_order._data == 0)
            out = np.zeros_like(grad_values._data)
            out[ctx.order] = grad_values._data
            return mt.tensor(out)

    x = f64([3.0, 1.0, 2.0], True)
    values, order = SortValues.apply(x)
    assert not order.requires_grad and values.requires_grad
    (values * f64([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_array_equal(x.grad._data, [100.0, 1.0, 10.0])


def test_function_backward_with_the_wrong_number_of_gradients_raises():
    class TooMany(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    x = f64([1.0], True)
    with pytest.raises(RuntimeError, match=r"TooMany.backward returned an incorrect number of gradients \(expected 1, got 2\)"):
        TooMany.apply(x).sum().backward()


def test_function_in_forward_mode_uses_its_backward():
    x = f64([1.0, 2.0])
    with mt.ForwardAccumulator(x, f64([1.0, 1.0])) as acc:
        y = Cube.apply(x, 2.0)
    np.testing.assert_allclose(acc.jvp(y)._data, 6 * x._data ** 2)


def test_against_torch_autograd_function():
    torch = pytest.importorskip("torch")

    class TorchCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x * ctx.scale, None

    values = np.array([0.5, -1.5, 2.0])
    tx = torch.tensor(values, requires_grad=True)
    (tg,) = torch.autograd.grad(TorchCube.apply(tx, 2.0).sum(), tx, create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), tx)
    mx = f64(values, True)
    (mg,) = mt.autograd.grad(Cube.apply(mx, 2.0).sum(), mx, create_graph=True)
    (mh,) = mt.autograd.grad(mg.sum(), mx)
    np.testing.assert_allclose(mg.detach().numpy(), tg.detach().numpy())
    np.testing.assert_allclose(mh.numpy(), th.numpy())
