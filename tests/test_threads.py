"""The engine under threads (issue 12): every scenario of thread_scenarios.py for about a
second, bit for bit against the same work done sequentially, with no exception and nothing
left on the tapes (bench/stress_threads.py runs them for a minute each); and the rules of
the threading model, one by one."""
import threading

import numpy as np
import pytest

import minitorch as mt
from minitorch.engine import state
from minitorch.engine.forwardprop import _CallState
from thread_scenarios import SCENARIOS, Scenario, run

SECONDS = 0.8


@pytest.mark.slow  # stress: each scenario runs its threads for SECONDS
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_scenario_matches_the_sequential_run(scenario):
    report = run(scenario, SECONDS)
    assert report.ok, str(report)


def test_the_harness_sees_mismatches_exceptions_and_leaks():
    kept = []

    def epoch(context, worker):
        if worker == 1 and threading.current_thread() is not threading.main_thread():
            raise ValueError("worker 1 fails")
        tape = mt.GradientTape(persistent=True)
        with tape:
            x = mt.ones(2)
            tape.watch(x)
            x * 2
        kept.append(tape)  # a tape that outlives the scenario
        return [np.array(threading.current_thread() is threading.main_thread())]

    report = run(Scenario("broken", 2, epoch), 0.2)
    assert report.mismatches > 0 and report.errors and not report.ok
    assert any("Tape objects still alive" in leak for leak in report.leaks)


def in_thread(fn):
    """Runs fn on a new thread; returns what it returned (re-raising what it raised)."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as error:
            out["error"] = error

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=20)
    assert not thread.is_alive(), "the thread hangs"
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_a_tape_records_what_another_thread_computes_from_what_it_watches():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = in_thread(lambda: (x * x).sum())
    assert np.array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])


def test_nothing_lands_on_a_tape_after_its_block():
    x = mt.tensor([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 3
    recorded = len(tape._tape)
    in_thread(lambda: x * x)
    assert len(tape._tape) == recorded
    assert np.array_equal(tape.gradient(y, x).numpy(), [3.0, 3.0])


def test_recording_is_switched_off_per_thread():
    w = mt.ones(2, requires_grad=True)
    with mt.no_grad():
        assert in_thread(lambda: (w * 2).requires_grad)
        assert not (w * 2).requires_grad


def test_an_accumulator_busy_on_one_thread_does_not_hide_other_threads_ops():
    x = mt.tensor([1.0, 2.0], dtype=mt.float64)

    def inner_jvp():
        y = mt.tensor([3.0], dtype=mt.float64)
        with mt.ForwardAccumulator(y, mt.tensor([1.0], dtype=mt.float64)) as inner:
            return inner.jvp(y * y)

    with mt.ForwardAccumulator(x, mt.tensor([1.0, 0.0], dtype=mt.float64)) as outer:
        outer._call_states.stack.append(_CallState(None, True))  # as while it computes a tangent on this thread
        try:
            jvp = in_thread(inner_jvp)
        finally:
            outer._call_states.stack.pop()
    assert np.array_equal(jvp.numpy(), [6.0])


def test_a_tensor_dying_inside_the_engine_lock_on_its_own_thread_does_not_deadlock():
    # The garbage collector may run a Tensor's __del__ at any allocation, also while its
    # thread holds the engine lock: the lock must let that thread in again.
    def die_under_the_lock():
        w = mt.ones(3, requires_grad=True)
        y = w * 2
        with state.tape_lock:
            del y
        return len(mt.engine.autograd_tape.AUTOGRAD_TAPE)

    assert in_thread(die_under_the_lock) == 0
