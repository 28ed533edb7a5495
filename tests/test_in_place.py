"""In-place updates with PyTorch's rules: same object and storage, version counters, views, .data, grad_fn nodes."""
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck
from tape_contents import entries_alive


def f64(values, requires_grad=False):
    return mt.tensor(values, dtype=mt.float64, requires_grad=requires_grad)


# ----- every in-place operator and method: value, identity, storage -----

BINARY = [
    ("__iadd__", np.add), ("__isub__", np.subtract), ("__imul__", np.multiply), ("__itruediv__", np.true_divide),
    ("__ipow__", np.power), ("__ifloordiv__", np.floor_divide), ("__imod__", np.remainder),
    ("add_", np.add), ("sub_", np.subtract), ("mul_", np.multiply), ("div_", np.true_divide), ("pow_", np.power),
    ("floor_divide_", np.floor_divide), ("remainder_", np.remainder),
]


@pytest.mark.parametrize("name,reference", BINARY)
def test_binary_in_place_updates_the_same_object_and_storage(name, reference):
    x = mt.tensor([1.5, 2.0, 3.5])
    storage = x.numpy()
    view = x[1:]
    other = mt.tensor([2.0, 0.5, 1.5])
    expected = reference(x.numpy().copy(), other.numpy())
    result = getattr(x, name)(other)
    assert result is x and x.numpy() is storage
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(view.numpy(), expected[1:], rtol=1e-6)  # a view sees the write


def test_augmented_assignment_keeps_the_object():
    x = mt.ones(3)
    before = id(x)
    x += 1
    x -= 0.5
    x *= 4
    x /= 2
    x **= 2
    assert id(x) == before and x.tolist() == [9.0, 9.0, 9.0]
    b = mt.tensor([True, False, True])
    b &= mt.tensor([True, True, False])
    b |= mt.tensor([False, True, False])
    b ^= mt.tensor([True, True, True])
    assert b.tolist() == [False, False, True]
    n = mt.tensor([12, 10])
    n &= 6
    n |= 1
    n ^= 2
    assert n.tolist() == [7, 1]


@pytest.mark.parametrize("name", ["neg_", "abs_", "exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_",
                                  "sign_", "square_"])
def test_unary_twins_write_the_function_s_result_in_place(name):
    x = mt.tensor([0.5, 1.5, 2.5])
    expected = getattr(mt.tensor([0.5, 1.5, 2.5]), name[:-1])()
    storage = x.numpy()
    assert getattr(x, name)() is x and x.numpy() is storage
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-6)


def test_fill_zero_copy_clamp_masked_fill_and_random_fills():
    x = mt.zeros(2, 3)
    assert x.fill_(2.5) is x and x.tolist() == [[2.5] * 3] * 2
    x.copy_(mt.tensor([1, 2, 3]))  # broadcast and cast
    assert x.tolist() == [[1.0, 2.0, 3.0]] * 2
    x.clamp_(min=1.5, max=2.5)
    assert x.tolist() == [[1.5, 2.0, 2.5]] * 2
    x.masked_fill_(mt.tensor([True, False, True]), -1.0)
    assert x.tolist() == [[-1.0, 2.0, -1.0]] * 2
    x.zero_()
    assert x.tolist() == [[0.0] * 3] * 2
    mt.manual_seed(0)
    x.uniform_(2, 3)
    assert ((x >= 2) & (x < 3)).all()
    x.normal_(10.0, 0.001)
    assert abs(float(x.mean()) - 10.0) < 0.01
    x.bernoulli_(1.0)
    assert x.tolist() == [[1.0] * 3] * 2
    with pytest.raises(RuntimeError, match="copy_"):
        x.copy_(mt.ones(4))


@pytest.mark.parametrize("index", [1, (0, slice(1, 3)), (slice(None), 2), [0, 1], (mt.tensor([1, 0]), mt.tensor([2, 2])),
                                   mt.tensor([True, False]), (Ellipsis, None, 1)])
def test_indexed_assignment_and_augmented_indexed_assignment(index):
    x = mt.arange(6.0).reshape(2, 3)
    expected = np.arange(6.0).reshape(2, 3)
    np_index = tuple(i.numpy() if isinstance(i, mt.Tensor) else i for i in index) if isinstance(index, tuple) else (
        index.numpy() if isinstance(index, mt.Tensor) else index)
    x[index] = 7.0
    expected[np_index] = 7.0
    assert x.tolist() == expected.tolist()
    x[index] -= 2
    expected[np_index] -= 2
    assert x.tolist() == expected.tolist()


def test_dtype_rules_follow_pytorch():
    n = mt.arange(3)
    with pytest.raises(RuntimeError, match="can't be cast"):
        n += 0.5
    with pytest.raises(RuntimeError, match="can't be cast"):
        n /= 2
    with pytest.raises(RuntimeError, match="can't be cast"):
        n.exp_()
    f = mt.ones(2)
    f += mt.ones(2, dtype=mt.float64)  # float64 into float32 is allowed, as in PyTorch
    assert f.dtype == mt.float32 and f.tolist() == [2.0, 2.0]
    with pytest.raises(mt.ShapeError, match="doesn't match the broadcast shape"):
        f += mt.ones(3, 2)
    assert n.tolist() == [0, 1, 2]  # nothing written by the refused updates


def test_expanded_views_refuse_writes():
    x = mt.ones(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        x.add_(1)


# ----- autograd rules -----

def test_a_leaf_that_requires_grad_refuses_in_place_updates_outside_no_grad():
    w = mt.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        w += 1
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        w[0:1].mul_(2)
    with mt.no_grad():
        w -= 0.5
        w[0] = 3.0
    assert w.tolist() == [3.0, 0.5] and w.is_leaf and w.requires_grad


def test_in_place_on_tensors_no_tape_watches_records_nothing():
    x = mt.ones(3)
    with mt.GradientTape() as tape:
        x.mul_(2)
        x[0] = 5.0
    assert len(tape._tape) == 0 and x.tolist() == [5.0, 2.0, 2.0]


def _recorded(fn):
    """fn(x, w) -> tensor, with an in-place op recorded on a non-leaf."""
    return lambda x, w: fn(x, w).sum()


@pytest.mark.parametrize("fn", [
    lambda x, w: (x * 1).mul_(w),
    lambda x, w: (x * 1).add_(w, alpha=-2.0).exp_(),
    lambda x, w: (x + 0).div_(w).tanh_(),
    lambda x, w: (x * w).pow_(2).sigmoid_(),
    lambda x, w: (x * 2).clamp_(min=-0.5, max=0.9) * w,
    lambda x, w: (x * 1).copy_(w * 3) * x,
], ids=["mul_", "add_-exp_", "div_-tanh_", "pow_-sigmoid_", "clamp_", "copy_"])
def test_gradients_through_recorded_in_place_ops_first_and_second_order(fn):
    rng = np.random.default_rng(0)
    x = f64(rng.uniform(-1, 1, 4), True)
    w = f64(rng.uniform(0.5, 1.5, 4), True)
    assert gradcheck(_recorded(fn), (x, w))
    assert gradgradcheck(_recorded(fn), (x, w))


@pytest.mark.parametrize("fn", [
    lambda x, w: _set(x * 1, (slice(0, 2),), w[:2] * 3),
    lambda x, w: _set(x * 1, (np.array([3, 1]),), w[0] * w[1]),
    lambda x, w: _isub(x * 1, (slice(1, 3),), w[1:3]),
], ids=["slice", "advanced", "augmented-slice"])
def test_gradients_through_indexed_assignment(fn):
    rng = np.random.default_rng(1)
    x = f64(rng.uniform(-1, 1, 4), True)
    w = f64(rng.uniform(0.5, 1.5, 4), True)
    assert gradcheck(lambda x, w: (fn(x, w) ** 2).sum(), (x, w))
    assert gradgradcheck(lambda x, w: (fn(x, w) ** 2).sum(), (x, w))


def _set(t, index, value):
    t[index] = value
    return t


def _isub(t, index, value):
    t[index] -= value
    return t


def test_writes_through_a_view_rewrite_the_history_of_its_base_and_of_other_views():
    def fn(x, w):
        y = x * 2
        row, same_row, column = y[0], y[0], y[:, 1]
        row.mul_(w)
        return (y.sum() + (same_row * 3).sum() + (column ** 2).sum())

    rng = np.random.default_rng(2)
    x = f64(rng.uniform(-1, 1, (2, 3)), True)
    w = f64(rng.uniform(0.5, 1.5, 3), True)
    assert gradcheck(fn, (x, w))
    assert gradgradcheck(fn, (x, w))


def test_a_tensor_that_did_not_require_grad_starts_to_through_an_in_place_op():
    w = mt.tensor([2.0, 3.0], requires_grad=True)
    buffer = mt.zeros(2)
    buffer.add_(w * w)
    assert buffer.requires_grad and not buffer.is_leaf
    buffer.sum().backward()
    assert w.grad.tolist() == [4.0, 6.0]


# ----- version counters -----

def test_saved_input_modified_in_place_raises_at_backward_naming_the_op():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h * h
    h.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: .*input 0 of MulBackward0, is at version 1; "
                                           r"expected version 0"):
        y.sum().backward()


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid"])
def test_saved_output_modified_in_place_raises(op):
    x = mt.tensor([0.5, -1.0], requires_grad=True)
    y = getattr(x, op)()
    z = y.sum()
    y.mul_(2)
    with pytest.raises(RuntimeError, match=f"output 0 of {op.capitalize()}Backward0, is at version 1"):
        z.backward()


def test_modified_through_a_view_raises():
    x = mt.tensor([[0.5, -1.0], [2.0, 1.0]], requires_grad=True)
    y = x.exp()
    loss = y.sum()
    y.view(4)[0] = 0.0
    with pytest.raises(RuntimeError, match="ExpBackward0"):
        loss.backward()
    x2 = mt.tensor([1.0, 2.0], requires_grad=True)
    h = x2 * 1
    y2 = mt.log(h)  # Log keeps its input: h
    with mt.no_grad():
        h.detach()[0] = 7.0  # detach() shares the storage and the version (.data does not: see below)
    with pytest.raises(RuntimeError, match="LogBackward0"):
        y2.sum().backward()
    x3 = mt.tensor([1.0, 2.0], requires_grad=True)
    h3 = x3 * 1
    y3 = h3 * mt.tensor(3.0)  # the gradient reads only the constant: PyTorch lets h3 change
    h3.add_(1)
    y3.sum().backward()
    assert x3.grad.tolist() == [3.0, 3.0]


def test_modified_then_restored_still_raises():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = (h * h).sum()
    with mt.no_grad():
        h.add_(1)
        h.sub_(1)
    assert h.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="is at version 2; expected version 0"):
        y.backward()


def test_an_optimizer_step_bumps_the_version_of_the_parameters_it_updates():
    w = mt.nn.Parameter(mt.tensor([1.0, 2.0]))
    opt = mt.optim.SGD([w], lr=0.1)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_gradient_tape_door_records_in_place_updates_and_checks_versions():
    x = mt.tensor([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 3
        y += 1            # recorded: y takes a new id, its old id stays the Add's input
        y.mul_(x)
    assert tape.gradient(y, x).tolist() == [7.0, 13.0]  # d/dx (3x + 1) x = 6x + 1
    with mt.GradientTape() as tape:
        tape.watch(x)
        e = mt.exp(x)
        z = e.sum()
        with tape.stop_recording():
            e.add_(1)  # the tape does not record this write, but Exp saved e: the version moved
    with pytest.raises(RuntimeError, match="ExpBackward0"):
        tape.gradient(z, x)


def test_views_share_storage_and_version_with_their_base():
    x = mt.arange(12.0).reshape(3, 4)
    views = [x.view(12), x.reshape(4, 3), x[1:, ::2], x.t(), x.transpose(0, 1), x.unsqueeze(0), x[None].squeeze(0),
             x.expand(2, 3, 4), x.detach(), x.permute(1, 0)]
    for v in views + [x.data]:
        assert np.shares_memory(v.numpy(), x.numpy())
    x.add_(1)
    assert all(v._version is x._version for v in views) and x._version.value == 1
    views[0][0] = 100.0
    assert x[0, 0].item() == 100.0 and x._version.value == 2


# ----- .data -----

def test_data_is_detached_shares_storage_and_can_be_assigned():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    d = w.data
    assert not d.requires_grad and np.shares_memory(d.numpy(), w.detach().numpy())
    w.data += -0.5 * mt.ones(2)  # no error: .data is not a leaf that requires grad
    assert w.tolist() == [0.5, 1.5] and w.requires_grad and w.is_leaf
    w.data = mt.zeros(2, 2)
    assert w.shape == (2, 2) and w.requires_grad
    with pytest.raises(TypeError):
        w.data = [1.0]


def test_writes_through_data_are_not_tracked_as_in_pytorch():
    """PyTorch gives `.data` a version counter of its own (VariableHooks::variable_data) and `set_data`
    keeps the tensor's: neither write moves the version a pending gradient checks, so backward runs,
    with the new values (weight clipping, EMA updates in hooks)."""
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()
    w.data.mul_(2)
    w.data[0] = 3.0
    w.data.clamp_(max=3.5)
    assert w._version is None or w._version.value == 0
    loss.backward()
    assert w.grad.tolist() == [6.0, 7.0]  # 2 w, with w's values now
    v = mt.tensor([1.0, 2.0], requires_grad=True)
    loss = (v * v).sum()
    v.data = mt.tensor([5.0, 5.0])
    loss.backward()
    assert v.grad.tolist() == [10.0, 10.0]


def test_an_ema_update_through_data_inside_a_hook_does_not_break_backward():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    x = mt.tensor([3.0, 4.0], requires_grad=True)
    y = w * x  # Mul saves w and x

    def ema(grad):  # runs before Mul's gradient reads w
        w.data.mul_(0.5)

    y.register_hook(ema)
    (y * 2).sum().backward()
    assert w.grad.tolist() == [6.0, 8.0] and x.grad.tolist() == [1.0, 2.0]  # x's gradient reads w's new values


def test_data_has_its_own_version_and_its_views_share_it():
    w = mt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = w.data
    d[1:].add_(1)
    assert w.tolist() == [1.0, 3.0, 4.0]
    assert d._version.value == 1 and (w._version is None or w._version.value == 0)
    w.detach().add_(1)  # the tracked alias
    assert w._version.value == 1 and d._version.value == 1


def test_a_data_write_under_detect_anomaly_warns_naming_the_op_that_saved_the_value():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    with mt.autograd.detect_anomaly():
        loss = (w.exp() * w).sum()  # Mul saves w; Exp saves its output only
        with pytest.warns(UserWarning, match=r"a write through \.data changed a tensor that MulBackward0 saved") as caught:
            w.data.mul_(2)
        assert caught[0].filename == __file__  # points at the user's line
        with pytest.warns(UserWarning, match=r"x\.data = y changed a tensor that MulBackward0 saved"):
            w.data = mt.zeros(2)
        loss.backward()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            w.data.mul_(2)  # the graph is gone: nothing to warn about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = (w * w).sum()
        w.data.mul_(2)  # anomaly detection off: silent, as PyTorch


# ----- the snippets of the issue, as a user writes them -----

def test_tutorial_manual_sgd_loops_train():
    mt.manual_seed(0)
    x = mt.linspace(-1, 1, 50)
    y = 3 * x ** 2 - 2 * x + 1
    a = mt.randn((), requires_grad=True)
    b = mt.randn((), requires_grad=True)
    c = mt.randn((), requires_grad=True)
    losses = []
    for _ in range(300):
        loss = ((a * x ** 2 + b * x + c - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with mt.no_grad():
            a -= 0.1 * a.grad
            b -= 0.1 * b.grad
            c -= 0.1 * c.grad
            a.grad = None
            b.grad = None
            c.grad = None
    assert losses[-1] < 0.01 * losses[0]
    assert a.is_leaf and a.requires_grad


def test_model_parameters_updated_by_a_manual_loop_change():
    mt.manual_seed(0)
    model = mt.nn.Linear(2, 1)
    before = model.weight.detach().clone()
    loss = model(mt.ones(4, 2)).pow(2).mean()
    loss.backward()
    with mt.no_grad():
        for param in model.parameters():
            param -= 0.1 * param.grad
    assert not np.allclose(model.weight.detach().numpy(), before.numpy())


def test_makemore_style_manual_backprop_line_runs():
    logits = mt.randn(4, 3, requires_grad=True)
    y = mt.tensor([0, 2, 1, 1])
    dlogits = mt.nn.functional.softmax(logits, 1)
    dlogits[range(4), y] -= 1
    dlogits /= 4
    expected = mt.nn.functional.softmax(logits, 1).detach().numpy().copy()
    expected[range(4), y.numpy()] -= 1
    np.testing.assert_allclose(dlogits.detach().numpy(), expected / 4, rtol=1e-6)
    assert dlogits.requires_grad and dlogits.grad_fn is not None


# ----- grad_fn nodes -----

def test_a_student_walks_the_graph_from_the_loss_to_the_leaves():
    mt.manual_seed(0)
    net = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.ReLU(), mt.nn.Linear(4, 1))
    target = mt.randn(2, 1)
    loss = mt.nn.functional.mse_loss(net(mt.randn(2, 3)), target)
    node = loss.grad_fn
    names = []
    while node is not None and node.name() != "AccumulateGrad":
        names.append(node.name())
        node = next((n for n, _ in node.next_functions if n is not None), None)
    assert names[0] == loss.grad_fn.name() and "MatMulBackward0" in names and "ReluBackward0" in names
    leaves = set()
    stack = [loss.grad_fn]
    while stack:
        node = stack.pop()
        for child, index in node.next_functions:
            if child is None:
                continue
            if child.name() == "AccumulateGrad":
                leaves.add(id(child.variable))
            else:
                assert isinstance(index, int)
                stack.append(child)
    assert leaves == {id(p) for p in net.parameters()}
    assert repr(loss.grad_fn).startswith(f"<{loss.grad_fn.name()} object at 0x")


def test_grad_fn_next_functions_mark_leaves_and_constants():
    w = mt.tensor([1.0], requires_grad=True)
    y = w * mt.tensor([2.0])
    (first, _), (second, _) = y.grad_fn.next_functions
    assert first.name() == "AccumulateGrad" and first.variable is w and second is None
    assert y.grad_fn == (y * 1).grad_fn.next_functions[0][0]


def test_a_tensor_keeps_its_op_s_name_after_backward():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    y = w * 3
    loss = y.sum()
    loss.backward()
    assert "grad_fn=<MulBackward0>" in repr(y) and "grad_fn=<SumBackward0>" in repr(loss)
    assert y.grad_fn.next_functions[0][0].variable is w
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_grad_fn_hooks_and_metadata():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    handle = y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append((grad_inputs[0].tolist(), grad_outputs[0].tolist())))
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 2,))
    y.grad_fn.metadata["name"] = "scale"
    y.sum().backward()
    assert seen == [([6.0, 6.0], [2.0, 2.0])] and x.grad.tolist() == [6.0, 6.0]
    assert y.grad_fn.metadata == {"name": "scale"}
    handle.remove()


def test_in_place_updates_under_no_grad_leave_no_tape_entries_and_grads_are_writable():
    w = mt.nn.Parameter(mt.ones(3))
    (w.sum() * 2).backward()
    w.grad.zero_()  # the leaf's gradient is its own array
    assert w.grad.tolist() == [0.0, 0.0, 0.0]
    from minitorch.engine.autograd_tape import AUTOGRAD_TAPE
    before = len(AUTOGRAD_TAPE), entries_alive()
    for _ in range(3):
        loss = (w * w).sum()
        loss.backward()
        with mt.no_grad():
            w -= 0.01 * w.grad
        w.grad = None
        del loss
    assert (len(AUTOGRAD_TAPE), entries_alive()) == before


def test_parity_with_torch_on_recorded_in_place_ops():
    torch = pytest.importorskip("torch")
    values = np.array([0.3, -0.7, 1.2])

    def run(lib, tensor):
        x = tensor(values, requires_grad=True)
        w = tensor(values[::-1].copy(), requires_grad=True)
        y = x * 2
        y.mul_(w)
        y[1:] += w[:2]
        z = y.exp()
        z.sum().backward()
        return x.grad.detach().numpy(), w.grad.detach().numpy(), z.detach().numpy()

    mine = run(mt, lambda v, requires_grad: mt.tensor(v, dtype=mt.float64, requires_grad=requires_grad))
    theirs = run(torch, lambda v, requires_grad: torch.tensor(v, dtype=torch.float64, requires_grad=requires_grad))
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_failed_backward_frees_what_it_took_off_the_tape():
    import gc
    from minitorch.engine.autograd_tape import AUTOGRAD_TAPE

    def failing_backward():
        w = mt.tensor([1.0, 2.0], requires_grad=True)
        h = w * 1
        loss = (mt.log(h) * 2).sum()
        h.add_(1)
        with pytest.raises(RuntimeError, match="LogBackward0"):
            loss.backward()

    gc.collect()
    before = set(AUTOGRAD_TAPE.watched), len(AUTOGRAD_TAPE), entries_alive()
    failing_backward()
    gc.collect()
    assert (set(AUTOGRAD_TAPE.watched), len(AUTOGRAD_TAPE), entries_alive()) == before
