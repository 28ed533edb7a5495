"""Adversarial thread scenarios for the engine (issue 12), and the harness that runs them.

A scenario is work that several threads do at once through the engine: each
worker runs "epochs", and an epoch's results (losses, gradients, JVPs,
parameters, flags) depend only on the worker's index. The harness first runs
one epoch per worker sequentially, on this thread alone, as the reference;
then it starts all workers together and lets them repeat epochs until the
time is up, comparing every epoch's results with the reference bit for bit.
It counts mismatches, exceptions in the workers, exceptions swallowed by
`Tensor.__del__` (through `sys.unraisablehook`), and, once the workers are
done and their tensors dropped, entries left on the autograd tape, tapes
left in the tape set and Tape objects still alive.

To find races rather than wait for them, the harness makes the interpreter
switch threads every 20 microseconds instead of every 5 ms, lowers the
garbage collector's thresholds, and several scenarios leave tensors in
reference cycles, so that `Tensor.__del__` runs from the collector, on any
thread, at any allocation.

Used by tests/test_threads.py (about a second per scenario) and by
bench/stress_threads.py (a minute per scenario).
"""
import gc
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.engine import state
from minitorch.engine.autograd_tape import AUTOGRAD_TAPE
from minitorch.engine.entry import Entry
from minitorch.engine.tape import Tape

SWITCH_INTERVAL = 2e-5
GC_THRESHOLDS = (200, 5, 5)


# ----- building blocks: models and data that depend only on a seed -----


def make_mlp(seed, sizes=(6, 12, 3)):
    """A Linear-Tanh-Linear network whose weights come from `seed` (not from the shared global generator)."""
    model = mt.nn.Sequential(mt.nn.Linear(sizes[0], sizes[1]), mt.nn.Tanh(), mt.nn.Linear(sizes[1], sizes[2]))
    rng = np.random.RandomState(seed)
    model.load_state_dict(
        {name: mt.tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.5) for name, p in model.named_parameters()}
    )
    return model


def make_batch(seed, rows=5, features=6, outputs=3):
    rng = np.random.RandomState(1000 + seed)
    x = mt.tensor(rng.standard_normal((rows, features)).astype(np.float32))
    y = mt.tensor(rng.standard_normal((rows, outputs)).astype(np.float32))
    return x, y


def arrays(tensors):
    """Plain numpy copies, for the results list."""
    return [np.array(t.detach().numpy()) for t in tensors]


def litter(*tensors):
    """Leaves the tensors in a reference cycle: they die when the garbage collector
    runs, on whichever thread triggers it, in the middle of whatever it is doing."""
    cycle = list(tensors)
    cycle.append(cycle)


def sgd_step(params, grads, lr=0.1):
    with mt.no_grad():
        for p, g in zip(params, grads):
            p -= lr * g


# ----- the scenarios: setup() -> shared context, epoch(context, worker) -> list of arrays -----


@dataclass
class Scenario:
    name: str
    threads: int
    epoch: object  # (context, worker) -> list of numpy arrays
    setup: object = lambda: None  # () -> context shared by the workers
    # 0: every epoch bitwise equal to the sequential run. A graph recorded by several threads at once is
    # summed in recording order, which the interleaving decides (as in PyTorch): equal up to rounding.
    rtol: float = 0.0


def _tape_own_models(context, worker, steps=4):
    """Each thread trains its own MLP through GradientTape (watching accessed variables)."""
    model, (x, y) = make_mlp(worker), make_batch(worker)
    params = list(model.parameters())
    results = []
    for _ in range(steps):
        with mt.GradientTape() as tape:
            hidden = model[1](model[0](x))
            loss = F.mse_loss(model[2](hidden), y)
        litter(hidden)
        grads = tape.gradient(loss, params)
        results.append(loss.detach().numpy().copy())
        sgd_step(params, grads)
    return results + arrays(params)


def _forward_accumulators(context, worker, steps=3):
    """ForwardAccumulator JVPs through matmul, tanh and cross-entropy (its JVP is the transposed VJP),
    and forward-over-reverse Hessian-vector products."""
    rng = np.random.RandomState(worker)
    w1 = mt.tensor(rng.standard_normal((6, 8)).astype(np.float64))
    w2 = mt.tensor(rng.standard_normal((8, 3)).astype(np.float64))
    x = mt.tensor(rng.standard_normal((4, 6)).astype(np.float64))
    labels = mt.tensor(rng.randint(0, 3, size=4))
    results = []
    for step in range(steps):
        tangent = mt.tensor(np.random.RandomState(100 * worker + step).standard_normal((6, 8)))
        with mt.ForwardAccumulator(w1, tangent) as acc:
            logits = mt.tanh(x @ w1) @ w2
            loss = F.cross_entropy(logits, labels)
            results += [acc.jvp(logits).numpy().copy(), acc.jvp(loss).numpy().copy()]
        with mt.ForwardAccumulator(w1, tangent) as acc:
            with mt.GradientTape() as tape:
                tape.watch(w1)
                loss = F.cross_entropy(mt.tanh(x @ w1) @ w2, labels)
            grad = tape.gradient(loss, w1)
            results += [grad.numpy().copy(), acc.jvp(grad).numpy().copy()]
    return results


def _shared_model(seed=7):
    return make_mlp(seed)


def _shared_model_grad_mode(model, worker, steps=4):
    """One model read by every thread in grad mode; each takes autograd.grad of its own loss."""
    params = list(model.parameters())
    results = []
    for step in range(steps):
        x, y = make_batch(10 * worker + step)
        out = model(x)
        litter(out)
        loss = F.mse_loss(out, y)
        grads = mt.autograd.grad(loss, params)
        results += [loss.detach().numpy().copy(), np.array(out.requires_grad)] + arrays(grads)
    return results


def _shared_trunk_setup():
    return make_mlp(11, sizes=(6, 12, 12))


def _shared_trunk_own_heads(trunk, worker, steps=4):
    """A training loop per thread: a trunk shared by all threads (read, differentiated, never updated
    here), a head per thread (updated), both watched by the thread's GradientTape as accessed variables."""
    head = make_mlp(200 + worker, sizes=(12, 8, 3))
    x, y = make_batch(worker)
    trunk_params, head_params = list(trunk.parameters()), list(head.parameters())
    results = []
    for _ in range(steps):
        with mt.GradientTape() as tape:
            loss = F.mse_loss(head(trunk(x)), y)
        grads = tape.gradient(loss, trunk_params + head_params)
        sgd_step(head_params, grads[len(trunk_params):])
        results += [loss.detach().numpy().copy()] + arrays(grads[: len(trunk_params)])
    return results + arrays(head_params)


def _recording_switches(context, worker, steps=6):
    """no_grad, stop_recording, enable_grad and set_grad_enabled, switched on and off while other
    threads record: what requires grad and every gradient must be as on one thread."""
    model, (x, y) = make_mlp(300 + worker), make_batch(worker)
    params = list(model.parameters())
    rng = np.random.RandomState(worker)
    results = []
    for _ in range(steps):
        pattern = rng.randint(4)
        if pattern == 0:
            with mt.no_grad():
                out = model(x)
            results += [np.array(out.requires_grad), out.numpy().copy()]
        elif pattern == 1:
            with mt.GradientTape() as tape:
                out = model(x)
                with tape.stop_recording():
                    scale = (out * out).mean()
                loss = F.mse_loss(out * scale, y)
            grads = tape.gradient(loss, params)
            results += [np.array(scale.requires_grad)] + arrays(grads)
        elif pattern == 2:
            with mt.no_grad():
                frozen = model[0](x)
                with mt.enable_grad():
                    loss = F.mse_loss(model[2](model[1](frozen)), y)
            grads = mt.autograd.grad(loss, params[2:])
            results += [np.array(frozen.requires_grad)] + arrays(grads)
        else:
            with mt.set_grad_enabled(False):
                out = model(x)
            flag = mt.is_grad_enabled()
            litter(out)
            results += [np.array([out.requires_grad, flag])]
    return results


def _persistent_tapes(context, worker, steps=2):
    """Persistent tapes: several gradients, a Jacobian, and second derivatives from nested tapes."""
    model, (x, y) = make_mlp(400 + worker), make_batch(worker)
    params = list(model.parameters())
    results = []
    for _ in range(steps):
        xs = x[:2].detach()
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(xs)
            out = model(xs)
            loss = F.mse_loss(out, y[:2])
            second = (out * out).sum()
        recorded = len(tape._tape)
        results += arrays(tape.gradient(loss, params)) + arrays(tape.gradient(second, params))
        results.append(tape.jacobian(out, xs).numpy().copy())
        if len(tape._tape) > recorded:  # it may shrink: ops other threads recorded on it die with their tensors
            raise AssertionError(f"a persistent tape grew after its block: {recorded} -> {len(tape._tape)} entries")
        del tape
        v = x[0].detach()
        with mt.GradientTape(persistent=True) as outer:
            outer.watch(v)
            with mt.GradientTape() as inner:
                inner.watch(v)
                energy = (mt.tanh(v) ** 3).sum()
            dv = inner.gradient(energy, v)
            dvv = (dv * dv).sum()
        results += [dv.numpy().copy(), outer.gradient(dvv, v).numpy().copy()]
    return results


def _backward_own_models(context, worker, steps=4):
    """The PyTorch door: each thread trains its own model with backward() and an optimizer."""
    model, (x, y) = make_mlp(500 + worker), make_batch(worker)
    optimizer = mt.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    results = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        results.append(loss.detach().numpy().copy())
    return results + arrays(model.parameters())


def _shared_model_no_grad(model, worker, steps=6):
    """One model, inference only, in every thread."""
    results = []
    with mt.no_grad():
        for step in range(steps):
            x, _ = make_batch(10 * worker + step)
            results.append(model(x).numpy().copy())
    return results


def _tensors_cross_threads(context, worker, steps=2):
    """A tape entered on one thread records the ops a helper thread runs on what it watches
    (the global tape set), so the gradient of work split over threads is whole (equal up to rounding:
    the pass adds a gradient's parts in recording order, and two threads recorded this graph at once)."""
    rng = np.random.RandomState(600 + worker)
    x = mt.tensor(rng.standard_normal(5))
    w = mt.tensor(rng.standard_normal(5))
    results = []
    for _ in range(steps):
        parts = {}
        with mt.GradientTape() as tape:
            tape.watch(x)
            helper = threading.Thread(target=lambda: parts.update(tanh=mt.tanh(x * w).sum()))
            helper.start()
            here = (x * x).sum()
            helper.join()
            total = here + parts["tanh"]
        results.append(tape.gradient(total, x).numpy().copy())
        leaf = mt.tensor(x.numpy(), requires_grad=True)
        helper = threading.Thread(target=lambda: parts.update(exp=mt.exp(leaf * w).sum()))
        helper.start()
        helper.join()
        parts["exp"].backward()
        results.append(leaf.grad.numpy().copy())
    return results


def _tensor_hooks(context, worker, steps=4):
    """Tensor hooks and retain_grad registered, run and dropped by every thread (the hook
    tables are shared by all threads, keyed by tensor id)."""
    model, (x, y) = make_mlp(700 + worker), make_batch(worker)
    params = list(model.parameters())
    results = []
    for step in range(steps):
        hidden = model[1](model[0](x))
        hidden.retain_grad()
        seen = []
        handle = hidden.register_hook(lambda g: seen.append(g.detach().numpy().copy()) or g * (step + 1))
        F.mse_loss(model[2](hidden), y).backward()
        handle.remove()
        results += arrays([p.grad for p in params] + [hidden.grad]) + seen
        model.zero_grad()
    return results


def _shared_persistent_tape_setup():
    x = mt.tensor(np.random.RandomState(3).standard_normal((4, 6)).astype(np.float64))
    w = mt.tensor(np.random.RandomState(4).standard_normal((6, 3)).astype(np.float64))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        out = mt.tanh(x @ w)
        targets = [(out * out).sum(), out.sum(), (out ** 3).mean()]
    return tape, targets, x, w


def _shared_persistent_tape(context, worker, steps=4):
    """One persistent tape (recorded before the threads start) differentiated by every thread at once,
    with respect to different sources (so the same entries are asked for different input gradients)."""
    tape, targets, x, w = context
    results = []
    for step in range(steps):
        target = targets[(worker + step) % len(targets)]
        sources = [[x, w], [w], [x]][(worker + step) % 3]
        results += arrays(tape.gradient(target, sources))
    return results


SCENARIOS = [
    Scenario("tape_own_models", 4, _tape_own_models),
    Scenario("forward_accumulators", 2, _forward_accumulators),
    Scenario("shared_model_grad_mode", 4, _shared_model_grad_mode, _shared_model),
    Scenario("shared_trunk_own_heads", 4, _shared_trunk_own_heads, _shared_trunk_setup),
    Scenario("recording_switches", 4, _recording_switches),
    Scenario("persistent_tapes", 4, _persistent_tapes),
    Scenario("backward_own_models", 4, _backward_own_models),
    Scenario("shared_model_no_grad", 4, _shared_model_no_grad, _shared_model),
    Scenario("tensors_cross_threads", 2, _tensors_cross_threads, rtol=1e-12),
    Scenario("shared_persistent_tape", 4, _shared_persistent_tape, _shared_persistent_tape_setup),
    Scenario("tensor_hooks", 4, _tensor_hooks),
]


# ----- the harness -----


@dataclass
class Report:
    name: str
    seconds: float = 0.0
    epochs: int = 0
    mismatches: int = 0
    errors: list = field(default_factory=list)  # tracebacks from the workers and from __del__
    leaks: list = field(default_factory=list)  # what was left behind

    @property
    def ok(self):
        return self.epochs > 0 and not self.mismatches and not self.errors and not self.leaks

    def __str__(self):
        status = "ok" if self.ok else "FAILED"
        line = (f"{self.name:24s} {status:6s} {self.epochs:6d} epochs in {self.seconds:5.1f} s, "
                f"{self.mismatches} mismatches, {len(self.errors)} exceptions, {len(self.leaks)} leaks")
        details = self.errors[:1] + self.leaks
        return line + "".join("\n    " + d.strip().replace("\n", "\n    ") for d in details)


def fingerprint(results):
    return [(a.dtype.str, a.shape, a.tobytes()) for a in map(np.asarray, results)]


def matches(results, reference, rtol):
    """Are `results` the sequential run's: bitwise, or with rtol > 0 equal up to rounding (same dtypes and shapes)?"""
    if rtol == 0:
        return fingerprint(results) == fingerprint(reference)
    results, reference = list(map(np.asarray, results)), list(map(np.asarray, reference))
    return len(results) == len(reference) and all(
        a.dtype == b.dtype and a.shape == b.shape and np.allclose(a, b, rtol=rtol, atol=0)
        for a, b in zip(results, reference))


def run(scenario, seconds):
    """Runs `scenario` on its threads for `seconds`, every epoch checked against the sequential reference."""
    report = Report(scenario.name)
    gc.collect()
    entries_before = _entries_alive()
    swallowed = []
    old_hook, old_interval, old_thresholds = sys.unraisablehook, sys.getswitchinterval(), gc.get_threshold()
    sys.unraisablehook = lambda unraisable: swallowed.append(
        "".join(traceback.format_exception(unraisable.exc_type, unraisable.exc_value, unraisable.exc_traceback))
    )
    try:
        context = scenario.setup()
        reference = [[np.array(a) for a in scenario.epoch(context, worker)] for worker in range(scenario.threads)]
        sys.setswitchinterval(SWITCH_INTERVAL)
        gc.set_threshold(*GC_THRESHOLDS)
        counts = [0] * scenario.threads
        mismatches = [0] * scenario.threads
        start = threading.Barrier(scenario.threads + 1)
        deadline = []

        def work(worker):
            start.wait()
            while time.perf_counter() < deadline[0]:
                counts[worker] += 1
                try:
                    if not matches(scenario.epoch(context, worker), reference[worker], scenario.rtol):
                        mismatches[worker] += 1
                except Exception:
                    report.errors.append(traceback.format_exc())

        workers = [threading.Thread(target=work, args=(w,)) for w in range(scenario.threads)]
        for thread in workers:
            thread.start()
        began = time.perf_counter()
        deadline.append(began + seconds)
        start.wait()
        for thread in workers:
            thread.join()
        report.seconds = time.perf_counter() - began
        report.epochs, report.mismatches = sum(counts), sum(mismatches)
        sys.setswitchinterval(old_interval)
        gc.set_threshold(*old_thresholds)
        del context
        gc.collect()
        report.leaks = leftovers(entries_before)
    finally:
        sys.unraisablehook = old_hook
        sys.setswitchinterval(old_interval)
        gc.set_threshold(*old_thresholds)
    report.errors += swallowed
    return report


def _entries_alive():
    return sum(1 for o in gc.get_objects() if type(o) is Entry)


def leftovers(entries_before=0):
    """What the engine still holds once every scenario tensor is gone: should be nothing (and no more
    recorded ops alive than `entries_before`, those of the tests that ran before)."""
    found = []
    tape = AUTOGRAD_TAPE
    if len(tape) or tape.watched:
        found.append(f"autograd tape: {len(tape)} entries, {len(tape.watched)} watched")
    entries = _entries_alive() - entries_before
    if entries > 0:
        found.append(f"{entries} recorded ops (Entry objects) still alive")
    if state.active_tapes:
        found.append(f"tape set not empty: {state.active_tapes}")
    if state.active_accumulators:
        found.append(f"accumulators still active: {state.active_accumulators}")
    alive = [o for o in gc.get_objects() if issubclass(type(o), Tape) and o is not AUTOGRAD_TAPE]
    if alive:
        found.append(f"{len(alive)} Tape objects still alive, holding {sum(len(t) for t in alive)} entries")
    return found
