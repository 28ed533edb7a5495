"""The PyTorch door on the same tapes: requires_grad, backward, .grad, autograd.grad, no_grad."""
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from minitorch.engine.autograd_tape import AUTOGRAD_TAPE


def test_backward_accumulates_into_leaves():
    x = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    assert np.allclose(x.grad.numpy(), [2, 4, 6])
    (x * 3).sum().backward()
    assert np.allclose(x.grad.numpy(), [5, 7, 9])


def test_is_leaf_and_requires_grad_propagate():
    x = mt.tensor([1.0], requires_grad=True)
    c = mt.tensor([2.0])
    y = x * c
    assert x.is_leaf and not y.is_leaf and y.requires_grad
    assert c.is_leaf and not c.requires_grad
    assert not (c * c).requires_grad
    assert y.grad_fn.name() == "MulBackward0" and x.grad_fn is None


def test_second_backward_through_freed_graph_raises():
    x = mt.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = mt.tensor(2.0, requires_grad=True)
    y = mt.exp(x)
    y.backward(retain_graph=True)
    y.backward()
    assert np.isclose(x.grad.item(), 2 * np.exp(2.0))


def test_two_independent_losses_one_after_the_other():
    w = mt.tensor([1.0, -1.0], requires_grad=True)
    loss1 = (w * w).sum()
    loss2 = (w * 3).sum()
    loss1.backward()
    loss2.backward()
    assert np.allclose(w.grad.numpy(), [5.0, 1.0])


def test_backward_on_non_scalar_needs_a_gradient():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="scalar outputs"):
        y.backward()
    y.backward(mt.tensor([1.0, 10.0]))
    assert np.allclose(x.grad.numpy(), [2.0, 20.0])


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        mt.tensor(1.0).backward()


def test_requires_grad_on_integer_tensor_raises():
    with pytest.raises(RuntimeError, match="floating point"):
        mt.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        mt.tensor([1, 2]).requires_grad_()


def test_autograd_grad_returns_a_tuple_and_does_not_accumulate():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = mt.tensor([3.0], requires_grad=True)
    (gx, gy) = mt.autograd.grad((x * y).sum(), (x, y))
    assert np.allclose(gx.numpy(), [3, 3]) and np.allclose(gy.numpy(), [3.0])
    assert x.grad is None and not gx.requires_grad


def test_autograd_grad_unused_input():
    x = mt.tensor(1.0, requires_grad=True)
    z = mt.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="allow_unused"):
        mt.autograd.grad(x * 2, [x, z], retain_graph=True)
    gx, gz = mt.autograd.grad(x * 2, [x, z], allow_unused=True)
    assert gz is None and gx.item() == 2.0


def test_create_graph_gives_higher_derivatives():
    x = mt.tensor(0.5, requires_grad=True)
    y = mt.tanh(x)
    (g,) = mt.autograd.grad(y, x, create_graph=True)
    assert g.requires_grad
    (g2,) = mt.autograd.grad(g, x, create_graph=True)
    (g3,) = mt.autograd.grad(g2, x)
    t = np.tanh(0.5)
    assert np.isclose(g.item(), 1 - t * t)
    assert np.isclose(g2.item(), -2 * t * (1 - t * t))
    assert np.isclose(g3.item(), (1 - t * t) * (6 * t * t - 2))


def test_backward_create_graph_then_backward_of_the_gradient():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    x.grad = None
    g.sum().backward()
    assert np.allclose(x.grad.numpy(), [6.0, 12.0])


def test_no_grad_and_enable_grad():
    x = mt.tensor(1.0, requires_grad=True)
    with mt.no_grad():
        y = x * 2
        with mt.enable_grad():
            z = x * 2
    assert not y.requires_grad and z.requires_grad

    @mt.no_grad()
    def double(t):
        return t * 2

    assert not double(x).requires_grad and mt.is_grad_enabled()


def test_detach_and_requires_grad_():
    x = mt.tensor(1.0, requires_grad=True)
    d = (x * 2).detach()
    assert not d.requires_grad and d.is_leaf
    d.requires_grad_()
    (d * 3).backward()
    assert d.grad.item() == 3.0 and x.grad is None


def test_in_place_update_of_a_leaf_needs_no_grad():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        w.sub_(1.0)
    with mt.no_grad():
        w.sub_(mt.tensor([0.5, 0.5]))
    assert np.allclose(w.detach().numpy(), [0.5, 1.5])


def test_gradient_tape_and_backward_share_the_engine():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    with mt.GradientTape() as tape:
        loss = (w * w).sum()
    g = tape.gradient(loss, w)
    loss.backward()
    assert np.allclose(g.numpy(), w.grad.numpy())


def test_broadcast_gradients_are_summed_to_the_input_shape():
    b = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = mt.ones(4, 3)
    (x + b).sum().backward()
    assert b.grad.shape == (3,) and np.allclose(b.grad.numpy(), [4, 4, 4])


def test_float32_stays_float32_through_backward():
    w = mt.randn(3, 2, requires_grad=True)
    (mt.randn(4, 3) @ w).relu().sum().backward()
    assert w.grad.dtype == mt.float32


def test_dropped_graphs_leave_the_autograd_tape_empty():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(5):
        y = (w * 2).exp().sum()  # forward only: never backpropagated
    del y
    assert len(AUTOGRAD_TAPE) == 0
    assert set(AUTOGRAD_TAPE.watched) <= {w._id}
    assert (w * 2).grad_fn.next_functions[0][0].variable is w  # nothing of the dropped graphs is reachable


def test_frozen_parameters_are_not_recorded_as_in_fine_tuning():
    from minitorch.engine.autograd_tape import AUTOGRAD_TAPE
    model = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.Tanh(), mt.nn.Linear(4, 2))
    for p in model[0].parameters():
        p.requires_grad = False
    out = model(mt.ones(5, 3)).sum()
    out.backward()
    assert model[0].weight.grad is None and model[0].bias.grad is None
    assert model[2].weight.grad is not None
    for p in model.parameters():
        p.requires_grad_(False)
    frozen = model(mt.ones(5, 3))
    assert not frozen.requires_grad and frozen.grad_fn is None
    assert len(AUTOGRAD_TAPE) == 0


def test_a_leaf_frozen_after_the_forward_pass_gets_no_gradient():
    lin = mt.nn.Linear(2, 2)
    out = lin(mt.ones(1, 2)).sum()
    lin.weight.requires_grad_(False)
    out.backward()
    assert lin.weight.grad is None and lin.bias.grad.tolist() == [1.0, 1.0]


def test_the_autograd_tape_leaves_the_tape_set_once_nothing_requires_grad():
    """Plain work after training pays no recording: the tape leaves even when its last leaf dies in the middle of
    the backward pass (the pass frees the op that kept it), while the pass's entries are still on the tape."""
    script = (
        "import numpy as np, minitorch as mt\n"
        "from minitorch.engine.state import active_tapes\n"
        "c = mt.tensor(np.full(8, 0.5, np.float32))\n"
        "x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32), requires_grad=True)\n"
        "for _ in range(3):\n"
        "    x = (x * c + c).tanh()\n"  # the leaf is held by the first op's saved inputs alone
        "x.sum().backward()\n"
        "del x\n"
        "print(len(active_tapes))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0"]


def test_a_tensor_made_to_require_grad_as_the_collector_frees_the_last_one_is_recorded():
    """The collector may run inside requires_grad_() (watching allocates) and free the last tensor that required
    grad: the tape leaves the set, and must be back in it with the new tensor."""
    script = (
        "import gc, minitorch as mt\n"
        "from minitorch.engine import tape\n"
        "gc.disable()\n"
        "old = mt.ones(2, requires_grad=True)\n"
        "cycle = [old]\n"
        "cycle.append(cycle)\n"  # the only watched tensor, freed by the collector alone
        "del old, cycle\n"
        "track = tape.track\n"
        "tape.track = lambda t: (gc.collect(), track(t))[1]\n"  # the collection falls inside the watch
        "x = mt.ones(2, requires_grad=True)\n"
        "print((x * 2).requires_grad)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
