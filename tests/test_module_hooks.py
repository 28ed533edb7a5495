"""nn.Module hooks: forward pre-hooks, forward hooks, full backward (pre-)hooks, PyTorch's order and semantics."""
import numpy as np
import pytest

import minitorch as mt
from minitorch import nn


class Scale(nn.Module):
    """y = w * x (+ extra), with the forward call logged: shows where forward runs among the hooks."""

    def __init__(self, log):
        super().__init__()
        self.w = nn.Parameter(mt.tensor([2.0, 3.0], dtype=mt.float64))
        self.log = log

    def forward(self, x, extra=None):
        self.log.append("forward")
        y = self.w * x
        return y if extra is None else y + extra


def _x(values=(1.0, 4.0)):
    return mt.tensor(list(values), dtype=mt.float64, requires_grad=True)


def test_hooks_fire_in_pytorchs_order():
    log = []
    m = Scale(log)
    m.register_forward_pre_hook(lambda mod, args: log.append("pre"))
    m.register_forward_hook(lambda mod, args, out: log.append("forward_hook"))
    m.register_full_backward_pre_hook(lambda mod, grad_output: log.append("backward_pre"))
    m.register_full_backward_hook(lambda mod, grad_input, grad_output: log.append("backward"))
    x = _x()
    x.register_hook(lambda g: log.append("x_grad"))
    y = m(x)
    y.register_hook(lambda g: log.append("y_grad"))
    assert log == ["pre", "forward", "forward_hook"]
    (y * y).sum().backward()
    # the module's output gradient is known first, the module's input gradient last, and x's own hooks after that
    assert log == ["pre", "forward", "forward_hook", "y_grad", "backward_pre", "backward", "x_grad"]


def test_grad_input_and_grad_output_are_the_gradients_at_the_module_boundary():
    m = Scale([])
    seen = {}
    m.register_full_backward_hook(lambda mod, gi, go: seen.update(grad_input=gi, grad_output=go))
    x = _x()
    y = m(x)
    (y * y).sum().backward()
    w, xv = np.array([2.0, 3.0]), np.array([1.0, 4.0])
    grad_output = 2 * w * xv  # d sum(y^2) / dy
    assert len(seen["grad_output"]) == 1 and len(seen["grad_input"]) == 1
    np.testing.assert_allclose(seen["grad_output"][0].numpy(), grad_output)
    np.testing.assert_allclose(seen["grad_input"][0].numpy(), grad_output * w)
    np.testing.assert_allclose(x.grad.numpy(), grad_output * w)
    np.testing.assert_allclose(m.w.grad.numpy(), grad_output * xv)  # parameter gradients are untouched by the hook


def test_pre_hook_replaces_args_and_forward_hook_replaces_output():
    m = Scale([])
    m.register_forward_pre_hook(lambda mod, args: args[0] * 10)  # a non-tuple becomes a 1-tuple, as in PyTorch
    m.register_forward_hook(lambda mod, args, out: out + 1)
    x = _x()
    y = m(x)
    np.testing.assert_allclose(y.detach().numpy(), [2 * 10 + 1, 3 * 40 + 1])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 30.0])  # the modified input stays on the graph


def test_forward_hook_sees_the_args_forward_received():
    m = Scale([])
    seen = []
    m.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))
    m.register_forward_hook(lambda mod, args, out: seen.append(args[0].tolist()))
    m(_x())
    assert seen == [[2.0, 5.0]]


def test_backward_hook_replaces_grad_input():
    m = Scale([])
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0.5,))
    x = _x()
    m(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.5])
    np.testing.assert_allclose(m.w.grad.numpy(), [1.0, 4.0])


def test_backward_pre_hook_replaces_grad_output_before_it_enters_the_module():
    m = Scale([])
    seen = []
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(go[0].tolist()))
    x = _x()
    m(x).sum().backward()
    assert seen == [[3.0, 3.0]]  # the full backward hook sees the replaced grad_output
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 9.0])
    np.testing.assert_allclose(m.w.grad.numpy(), [3.0, 12.0])


def test_hooks_can_be_removed_and_the_fast_path_returns():
    log = []
    m = Scale(log)
    assert not m._has_hooks
    handles = [
        m.register_forward_pre_hook(lambda mod, args: log.append("pre")),
        m.register_forward_hook(lambda mod, args, out: log.append("hook")),
        m.register_full_backward_pre_hook(lambda mod, go: log.append("backward_pre")),
        m.register_full_backward_hook(lambda mod, gi, go: log.append("backward")),
    ]
    assert m._has_hooks
    m(_x()).sum().backward()
    assert log == ["pre", "forward", "hook", "backward_pre", "backward"]
    for handle in handles[:3]:
        handle.remove()
    assert m._has_hooks
    handles[3].remove()
    handles[3].remove()  # removing twice is harmless
    assert not m._has_hooks
    log.clear()
    x = _x()
    y = m(x)
    assert y.grad_fn.name() == "MulBackward0"  # no hook identity op around the output any more
    y.sum().backward()
    assert log == ["forward"]


def test_handle_as_context_manager_removes_the_hook():
    m = Scale([])
    seen = []
    with m.register_forward_hook(lambda mod, args, out: seen.append(1)):
        m(_x())
    m(_x())
    assert seen == [1]


def test_no_input_requires_grad_gives_grad_input_of_nones():
    m = Scale([])
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go[0].tolist())))
    m(mt.tensor([1.0, 4.0], dtype=mt.float64)).sum().backward()
    assert seen == [((None,), [1.0, 1.0])]


def test_non_tensor_and_non_grad_arguments_get_none_in_grad_input():
    m = Scale([])
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    x = _x()
    extra = mt.tensor([1.0, 1.0], dtype=mt.float64)
    m(x, extra).sum().backward()
    (gi,) = seen
    assert len(gi) == 2 and gi[1] is None
    np.testing.assert_allclose(gi[0].numpy(), [2.0, 3.0])


def test_with_kwargs_and_prepend():
    log = []
    m = Scale(log)
    m.register_forward_pre_hook(lambda mod, args: log.append("second"))
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"extra": mt.ones(2, dtype=mt.float64)}),
                                with_kwargs=True, prepend=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(sorted(kwargs)), with_kwargs=True)
    y = m(_x())
    assert log == ["second", "forward", ["extra"]]
    np.testing.assert_allclose(y.detach().numpy(), [3.0, 13.0])


def test_hooks_on_children_of_a_sequential_fire_last_layer_first_in_backward():
    mt.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    log = []
    for name, layer in model.named_children():
        layer.register_full_backward_hook(lambda mod, gi, go, name=name: log.append(name))
        layer.register_forward_hook(lambda mod, args, out, name=name: log.append("f" + name))
    model(mt.randn(5, 3, requires_grad=True)).sum().backward()
    assert log == ["f0", "f1", "f2", "2", "1", "0"]


def test_backward_hooks_are_skipped_under_no_grad():
    m = Scale([])
    m.register_full_backward_hook(lambda mod, gi, go: pytest.fail("no backward pass"))
    with mt.no_grad():
        y = m(_x())
    assert not y.requires_grad


def test_second_derivatives_flow_through_a_hooked_module():
    def value_and_hessian_diagonal(module):
        x = _x((0.5, -1.5))
        y = mt.tanh(module(x)).sum()
        (g,) = mt.autograd.grad(y, x, create_graph=True)
        (h,) = mt.autograd.grad(g.sum(), x)
        return g.detach().numpy(), h.numpy()

    plain = Scale([])
    hooked = Scale([])
    hooked.register_full_backward_hook(lambda mod, gi, go: None)
    hooked.register_full_backward_pre_hook(lambda mod, go: None)
    g0, h0 = value_and_hessian_diagonal(plain)
    g1, h1 = value_and_hessian_diagonal(hooked)
    np.testing.assert_allclose(g1, g0)
    np.testing.assert_allclose(h1, h0)
    # and against finite differences of the analytic first derivative w * (1 - tanh(w x)^2)
    w, x, eps = np.array([2.0, 3.0]), np.array([0.5, -1.5]), 1e-6
    first = lambda x: w * (1 - np.tanh(w * x) ** 2)  # noqa: E731
    np.testing.assert_allclose(g1, first(x))
    np.testing.assert_allclose(h1, (first(x + eps) - first(x - eps)) / (2 * eps), rtol=1e-6)


def test_wrong_number_of_replacement_gradients_raises():
    m = Scale([])
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input"):
        m(_x()).sum().backward()


def test_non_callable_hook_raises():
    with pytest.raises(TypeError, match="callable"):
        Scale([]).register_forward_hook(3)


def test_matches_pytorch_hook_order_and_gradients():
    torch = pytest.importorskip("torch")
    w = np.array([[0.5, -1.0], [2.0, 0.25], [1.5, -0.5]])
    x_value = np.array([[1.0, 2.0], [-3.0, 0.5]])

    def run(lib, linear):
        log, grads = [], {}
        linear.register_forward_pre_hook(lambda mod, args: log.append("pre"))
        linear.register_forward_hook(lambda mod, args, out: log.append("hook"))
        linear.register_full_backward_pre_hook(lambda mod, go: log.append("backward_pre"))
        linear.register_full_backward_hook(lambda mod, gi, go: log.append("backward") or grads.update(gi=gi[0], go=go[0]))
        x = lib.tensor(x_value, requires_grad=True)
        (linear(x) ** 2).sum().backward()
        return log, grads["gi"].detach().numpy(), grads["go"].detach().numpy(), x.grad.numpy()

    mine = nn.Linear(2, 3).double()
    theirs = torch.nn.Linear(2, 3).double()
    with mt.no_grad():
        mine.weight.copy_(mt.tensor(w))
        mine.bias.zero_()
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(w))
        theirs.bias.zero_()
    for a, b in zip(run(mt, mine), run(torch, theirs)):
        if isinstance(a, list):
            assert a == b
        else:
            np.testing.assert_allclose(a, b)
