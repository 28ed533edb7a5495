"""Post-accumulate-grad hooks and queue_callback: leaf gradients land in .grad during the pass, not after it."""
import numpy as np
import pytest

import minitorch as mt


def test_hook_sees_the_updated_grad_and_gets_the_leaf():
    w = mt.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    with w.register_post_accumulate_grad_hook(lambda p: seen.append((p is w, p.grad.tolist()))):
        (w * w).sum().backward()
        (w * 3).sum().backward()
    assert seen == [(True, [2.0, 4.0]), (True, [5.0, 7.0])]  # the second sees the accumulated sum


def test_leaf_gradient_is_accumulated_as_soon_as_it_is_complete():
    # loss = sum((x * w1) * w2): w2's gradient is final after the first backward step,
    # w1's only after the gradient has flowed through h.
    x = mt.tensor([1.0, 2.0])
    w1 = mt.tensor([3.0, 4.0], requires_grad=True)
    w2 = mt.tensor([5.0, 6.0], requires_grad=True)
    events = []
    h = x * w1
    h.register_hook(lambda g: events.append(("h", g.tolist(), None)))
    with w2.register_post_accumulate_grad_hook(lambda p: events.append(("w2", p.grad.tolist(), w1.grad))):
        w1.register_post_accumulate_grad_hook(lambda p: events.append(("w1", p.grad.tolist(), None)))
        (h * w2).sum().backward()
    assert events == [("w2", [3.0, 8.0], None), ("h", [5.0, 6.0], None), ("w1", [5.0, 12.0], None)]


def test_a_leaf_read_by_several_ops_is_ready_once_with_its_whole_gradient():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad.tolist()))
    (x * x + x.exp() + 2 * x).sum().backward()
    np.testing.assert_allclose(calls, [2 * np.array([1.0, 2.0]) + np.exp([1.0, 2.0]) + 2])


def test_targets_that_are_leaves_and_the_inputs_argument_run_the_hooks():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = mt.tensor([3.0], requires_grad=True)
    seen = []
    x.register_post_accumulate_grad_hook(lambda p: seen.append(("x", p.grad.tolist())))
    y.register_post_accumulate_grad_hook(lambda p: seen.append(("y", p.grad.tolist())))
    x.backward(mt.tensor([1.0, 1.0]))
    assert seen == [("x", [1.0, 1.0])]
    (x.sum() * y).sum().backward(inputs=[y])
    assert seen[1:] == [("y", [3.0])]


def test_tensor_hook_runs_before_accumulation_and_removal_stops_the_hook():
    w = mt.tensor([1.0], requires_grad=True)
    w.register_hook(lambda g: g * 10)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.item()))
    (w * 2).sum().backward()
    handle.remove()
    (w * 2).sum().backward()
    assert seen == [20.0]
    assert w.grad.item() == 40.0


def test_registering_on_a_non_leaf_or_a_tensor_without_grad_raises():
    w = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (w * 2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        mt.tensor([1.0]).register_post_accumulate_grad_hook(lambda p: None)


def test_queued_callbacks_run_once_after_every_leaf_is_accumulated():
    a = mt.tensor([1.0], requires_grad=True)
    b = mt.tensor([2.0], requires_grad=True)
    events = []

    def on_ready(p):
        events.append("a" if p is a else "b")
        if len(events) == 1:
            mt.engine.hooks.queue_callback(lambda: events.append(("end", a.grad.item(), b.grad.item())))

    with a.register_post_accumulate_grad_hook(on_ready), b.register_post_accumulate_grad_hook(on_ready):
        (a * b).sum().backward()
        assert sorted(events[:2]) == ["a", "b"] and events[2:] == [("end", 2.0, 1.0)]
        events.clear()
        (a * 1).sum().backward()  # a new pass: the callback queued in the last one does not run again
        assert events == ["a", ("end", 3.0, 1.0)]


def test_queue_callback_outside_backward_raises_and_a_failed_pass_drops_its_callbacks():
    with pytest.raises(RuntimeError, match="during the backward pass"):
        mt.engine.hooks.queue_callback(lambda: None)
    w = mt.tensor([1.0], requires_grad=True)
    ran = []

    def queue_then_fail(grad):
        mt.engine.hooks.queue_callback(lambda: ran.append(True))
        raise ValueError("hook failed")

    handle = w.register_hook(queue_then_fail)
    with pytest.raises(ValueError, match="hook failed"):
        (w * 2).sum().backward()
    handle.remove()
    (w * 2).sum().backward()
    assert ran == []
    with pytest.raises(RuntimeError, match="during the backward pass"):
        mt.engine.hooks.queue_callback(lambda: None)
