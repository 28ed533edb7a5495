"""What the tapes keep alive: the op tables at work, and no growth over a training-like loop."""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import minitorch as mt
from minitorch.engine.autograd_tape import AUTOGRAD_TAPE
from minitorch.engine.backprop import compute_gradient
from minitorch.engine.registry import OPS
from minitorch.engine.tape import MIN_COMPACTION
from tape_contents import entries_alive


def _entry_for(tape, op_type):
    return next(e for e in tape._tape.live_entries() if e.op_type == op_type)


def test_exp_keeps_its_output_but_not_its_input():
    assert not OPS["Exp"].needs_inputs and OPS["Exp"].needs_outputs
    with mt.GradientTape() as tape:
        x = mt.tensor([1.0, 2.0])
        tape.watch(x)
        h = x * 2  # the input of Exp: an intermediate the user drops
        y = mt.exp(h)
        z = y.sum()
    entry = _entry_for(tape, "Exp")
    h_tensor, h_data = weakref.ref(h), weakref.ref(h._data)
    y_tensor, y_data = weakref.ref(y), weakref.ref(y._data)
    del h, y
    gc.collect()
    assert h_tensor() is None and h_data() is None  # the Exp entry holds nothing of its input
    assert entry._inputs is None
    assert y_tensor() is None  # nor the output Tensor object (no cycle through the tape)...
    assert y_data() is not None  # ...only the output's values, which its gradient reads
    assert np.allclose(tape.gradient(z, x).numpy(), 2 * np.exp([2.0, 4.0]))


def test_matmul_keeps_its_inputs_but_not_its_output():
    assert not OPS["MatMul"].needs_outputs and OPS["MatMul"].needs_inputs
    with mt.GradientTape() as tape:
        a = mt.randn(2, 3)
        b = mt.randn(3, 2)
        tape.watch([a, b])
        c = a @ b
        d = c.sum()
    entry = _entry_for(tape, "MatMul")
    c_tensor, c_data = weakref.ref(c), weakref.ref(c._data)
    a_tensor = weakref.ref(a)
    del c, a
    gc.collect()
    assert c_tensor() is None and c_data() is None  # the output is gone
    assert a_tensor() is not None  # the input is held by the backward function
    assert entry._saved_outputs is None
    ga, gb = tape.gradient(d, [a_tensor(), b])
    assert np.allclose(ga.numpy(), np.ones((2, 2)) @ b.numpy().T)


@pytest.mark.slow  # thousands of steps
def test_training_like_loop_leaves_no_entries_and_no_growth():
    rng = np.random.default_rng(0)
    w1 = mt.tensor(rng.standard_normal((16, 32)) * 0.1, dtype=mt.float32, requires_grad=True)
    w2 = mt.tensor(rng.standard_normal((32, 4)) * 0.1, dtype=mt.float32, requires_grad=True)
    x = mt.tensor(rng.standard_normal((8, 16)), dtype=mt.float32)

    def step():
        hidden = (x @ w1).tanh()
        loss = ((hidden @ w2).exp() + 1.0).log().mean()
        loss.backward()
        with mt.no_grad():
            for w in (w1, w2):
                w.sub_(w.grad * 0.01)
                w.grad = None
        with mt.GradientTape() as tape:  # the TensorFlow door too
            loss2 = ((x @ w1).sigmoid() @ w2).sum()
        tape.gradient(loss2, [w1, w2])

    for _ in range(200):
        step()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    alive = entries_alive()
    for _ in range(2000):
        step()
        assert len(AUTOGRAD_TAPE) == 0 and len(AUTOGRAD_TAPE.entries) <= 2 * MIN_COMPACTION
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    growth = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert growth < 64 * 1024, f"memory grew by {growth} bytes over 2000 steps"
    assert len(AUTOGRAD_TAPE) == 0 and entries_alive() == alive
    assert set(AUTOGRAD_TAPE.watched) <= {w1._id, w2._id}


def test_non_persistent_pass_releases_entries_as_it_goes():
    x = mt.tensor([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.exp(x * 3).sum()
    inner = tape._tape
    compute_gradient(inner, [y], [x], release=True)
    assert len(inner) == 0


def test_a_releasing_pass_frees_an_entrys_saved_values_once_it_ran_not_at_the_end():
    """The tape's bookkeeping for consumed entries is done after the pass, their saved arrays go at once:
    the pass must not hold a step's activations until it ends."""
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    a = x * 3
    b = mt.exp(a)  # keeps its output for its gradient
    saved_output = weakref.ref(b._data)
    loss = b.sum()
    del b
    alive_when_a_got_its_gradient = []
    a.register_hook(lambda grad: alive_when_a_got_its_gradient.append(saved_output() is not None))
    assert saved_output() is not None  # the Exp entry holds it until its gradient has run
    loss.backward()
    assert alive_when_a_got_its_gradient == [False]
    assert np.allclose(x.grad.numpy(), 3 * np.exp(3 * np.array([1.0, 2.0])))


def test_a_pass_whose_gradient_raises_leaves_nothing_of_its_graph_on_the_tape():
    """The entries that ran before the failure and those that did not are both taken off the tape."""
    class Fails(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("this gradient fails")

    alive = entries_alive()
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    a = mt.exp(x * 2)  # below the failing op: never runs
    b = Fails.apply(a)
    loss = (mt.tanh(b) * 3).sum()  # above it: runs first
    tanh_saved = weakref.ref(next(e for e in AUTOGRAD_TAPE.live_entries() if e.op_type == "Tanh")._saved_outputs[0][0])
    with pytest.raises(ValueError, match="this gradient fails"):
        loss.backward()
    assert tanh_saved() is None
    assert len(AUTOGRAD_TAPE) == 0
    del a, b, loss
    gc.collect()
    assert set(AUTOGRAD_TAPE.watched) <= {x._id} and entries_alive() == alive


def test_dropped_output_of_a_live_multi_output_op_keeps_its_link_for_higher_order():
    """A gradient that reads an output the user dropped must still be linked to
    the op on a recording tape, or second derivatives silently lose a term."""
    from minitorch.engine import registry
    from minitorch.engine.execute import execute

    def _pair(x):
        return np.exp(x), np.exp(2 * x)

    def _pair_grad(op, grad_e1, grad_e2):
        """d(e^x, e^2x) = (e^x, 2 e^2x) dx, e^x read as sqrt(e^2x)."""
        e1_from_e2 = op.outputs[1].sqrt()  # reads the second output, even for the first one's gradient
        return grad_e1 * e1_from_e2 + grad_e2 * op.outputs[1] * 2

    registry.define("TestExpPair", _pair, _pair_grad, needs="outputs")

    try:
        x = mt.tensor([0.3, 1.1, -0.4], dtype=mt.float64)
        with mt.GradientTape() as outer:
            outer.watch(x)
            with mt.GradientTape() as inner:
                inner.watch(x)
                e1, e2 = execute("TestExpPair", (x,))
                del e2  # dropped: its op lives on through e1
                total = e1.sum()
            g = inner.gradient(total, x)  # e^x
            g_total = g.sum()
        h = outer.gradient(g_total, x)  # e^x again, only through the dropped output
        assert np.allclose(g.numpy(), np.exp(x.numpy()))
        assert np.allclose(h.numpy(), np.exp(x.numpy()))
    finally:
        registry.OPS.pop("TestExpPair", None)


def test_released_entries_leave_no_links_for_dead_tensors():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        loss = (w * w).exp().sum()
        loss.backward()
    del loss
    assert set(AUTOGRAD_TAPE.watched) <= {w._id} and len(AUTOGRAD_TAPE) == 0


def test_a_hook_that_refers_to_its_tensor_does_not_keep_it_alive():
    # PyTorch keeps hooks with the tensor's graph node, so such a cycle is collectable; a table
    # in the engine holding the functions would keep every step's activation forever.
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    dead = []
    for _ in range(3):
        h = x * 2
        h.register_hook(lambda grad, h=h: seen.append(tuple(h.shape)))
        (h * h).sum().backward()
        dead.append(weakref.ref(h))
        del h
    gc.collect()
    assert seen == [(2,)] * 3
    assert [ref() for ref in dead] == [None] * 3
    assert len(AUTOGRAD_TAPE) == 0


def test_post_accumulate_hooks_die_with_their_leaf():
    leaf = mt.nn.Parameter(mt.ones(2))
    leaf.register_post_accumulate_grad_hook(lambda p, leaf=leaf: None)
    ref = weakref.ref(leaf)
    del leaf
    gc.collect()
    assert ref() is None


def test_a_hook_on_a_tensor_dropped_before_backward_still_runs_then_goes():
    # The usual way to look at an activation's gradient: a hook on a local tensor of forward().
    # PyTorch keeps the hook with the graph, so it runs although the tensor is gone.
    from minitorch.engine import state
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    seen = []

    def forward(x):
        h = x * 2
        h.register_hook(lambda grad: seen.append(grad.tolist()))
        return (h.relu() * 3).sum()

    for _ in range(3):
        forward(x).backward()
        gc.collect()
    assert seen == [[3.0, 0.0]] * 3
    mt.ones(1, requires_grad=True) * 2  # a later death sweeps the hooks of tensors no tape knows any more
    assert not state.orphaned_hooks


def test_the_hooks_of_a_dropped_tensor_run_once_its_table_entry_is_gone():
    # Registering another hook forgets the dropped tensor's weak table entry; only state.orphaned_hooks
    # holds its hooks then, and the reverse pass must still look there.
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x * 2
    h.register_hook(lambda grad: seen.append(grad.tolist()))
    y = (h * 3).sum()
    del h
    gc.collect()
    other = x * 5
    handle = other.register_hook(lambda grad: None)
    handle.remove()
    del other
    mt.engine.hooks.tensor_hooks.clear()  # as if every weak entry had been forgotten: only the orphan table is left
    y.backward()
    assert seen == [[3.0, 3.0]]
