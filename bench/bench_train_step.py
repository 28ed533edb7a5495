"""Milliseconds and peak memory of one training step: minitorch vs PyTorch vs HIPS autograd vs the numpy floor.

    python bench/bench_train_step.py                        # 1 and 2 threads, 3 rounds
    python bench/bench_train_step.py --threads 1 --rounds 5 --only cnn cnn-bn

A step is zero_grad, forward, cross-entropy loss, backward, SGD(lr=0.01,
momentum=0.9) update, float32, on a fixed batch:
- mlp:    Linear 784-256-128-10 with ReLU, batch 128;
- cnn:    Conv2d(1,32,3,p=1)-ReLU-MaxPool2d(2)-Conv2d(32,64,3,p=1)-ReLU-MaxPool2d(2)-
          Flatten-Linear(3136,128)-ReLU-Linear(128,10), batch 64;
- cnn-bn: the same with a BatchNorm2d (training mode) after each convolution.

Every contender starts from the same weights (minitorch's initialisation,
copied) and sees the same batch; the workers print their first loss and the
driver checks that they agree. HIPS autograd (`pip install autograd`, a
pure-Python tape over numpy like minitorch's) gets the same models written
with autograd.numpy: im2col convolution from shifted windows and one
tensordot, max pooling by reshape, batch norm from means (it keeps no
running statistics). The numpy floor is the float32 GEMMs alone, on
operands already in the best layout: for the MLP 3 forward + 5 backward
(no gradient for the input batch); for the CNNs the im2col GEMMs of both
convolutions (forward, filter gradient, and the input gradient of the
second one) and the 2 + 4 of the linear layers.

Method (bench/harness.py): one process per (framework, thread count) with
OMP/OpenBLAS/MKL threads pinned before import and torch.set_num_threads;
each times --repeats steps after --warmup untimed ones and reports the
median; the driver rotates the order of the processes each round and
prints the median over rounds, with ratios to PyTorch. Peak RSS: a fresh
process per framework builds the CNN and its batch, then runs 3 steps;
"step" is the peak during them above the RSS before the first one, "peak"
the process's whole peak RSS in that window (library code and data
included).
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import importlib.util
import json
import os
import statistics
import sys

# --minitorch-path: another checkout's package (the driver's --baseline, for before/after in one run).
sys.path.insert(0, harness.argument_value(sys.argv, "--minitorch-path") or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

# minitorch before numpy, as a user's `python -m minitorch.examples...` loads them: minitorch sets
# OpenBLAS's spin time before OpenBLAS loads (minitorch/threads.py). Every numpy-based worker gets it.
import minitorch as mt  # noqa: E402
import numpy as np  # noqa: E402

# A worker imports only its own framework (another's libraries would count in its memory).
WORKER = harness.argument_value(sys.argv, "--worker")
torch = importlib.import_module("torch") if WORKER == "torch" else None
if WORKER == "hips":
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

LR, MOMENTUM, SEED = 0.01, 0.9, 0
WORKLOADS = {"mlp": 128, "cnn": 64, "cnn-bn": 64}  # batch sizes
FRAMEWORKS = ("minitorch", "torch", "hips", "numpy")


# ----- the models (minitorch and PyTorch: the same nn code) -----

def build(nn, workload):
    if workload == "mlp":
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))

    def conv_block(c_in, c_out):
        layers = [nn.Conv2d(c_in, c_out, 3, padding=1)]
        if workload == "cnn-bn":
            layers.append(nn.BatchNorm2d(c_out))
        return layers + [nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(*conv_block(1, 32), *conv_block(32, 64), nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def initial_state(workload):
    """The seeded minitorch model's initial state_dict as numpy arrays: every framework starts there."""
    mt.manual_seed(SEED)
    return {key: np.array(value) for key, value in build(mt.nn, workload).state_dict().items()}


def batch(workload):
    rng = np.random.default_rng(SEED)
    size = WORKLOADS[workload]
    x = rng.standard_normal((size, 784) if workload == "mlp" else (size, 1, 28, 28)).astype(np.float32)
    return x, rng.integers(0, 10, size)


def nn_step(lib, workload):
    """A training step of `lib` (minitorch or torch) and the model, from the shared initial state."""
    model = build(lib.nn, workload)
    model.load_state_dict({key: lib.tensor(value) for key, value in initial_state(workload).items()})
    optimizer = lib.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = lib.nn.CrossEntropyLoss()
    x, y = batch(workload)
    x, y = lib.tensor(x), lib.tensor(y)

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return float(loss.item())

    return step


# ----- HIPS autograd: the same models, functionally -----

def hips_conv(x, w, b):
    """3x3 convolution with padding 1: the 9 shifted windows as im2col columns, then one tensordot.
    Windows come from anp.split and join by anp.concatenate, not slicing and anp.stack: the
    gradients of those (np.add.at) are 10x slower."""
    n, c, h, wd = x.shape
    padded = anp.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), "constant")
    rows = [anp.split(padded, [i, i + h], axis=2)[1] for i in range(3)]
    windows = [anp.split(row, [j, j + wd], axis=3)[1] for row in rows for j in range(3)]
    cols = anp.concatenate([anp.reshape(window, (n, c, 1, h, wd)) for window in windows], axis=2)
    out = anp.tensordot(cols, w.reshape(w.shape[0], c, 9), axes=([1, 2], [1, 2]))  # (N, H, W, O)
    return anp.transpose(out, (0, 3, 1, 2)) + b.reshape(1, -1, 1, 1)


def hips_max_pool(x):
    n, c, h, w = x.shape
    return anp.max(anp.max(x.reshape(n, c, h // 2, 2, w // 2, 2), axis=5), axis=3)


def hips_batch_norm(x, scale, offset, eps=1e-5):
    mean = anp.mean(x, axis=(0, 2, 3), keepdims=True)
    centered = x - mean
    var = anp.mean(centered * centered, axis=(0, 2, 3), keepdims=True)
    return centered / anp.sqrt(var + eps) * scale.reshape(1, -1, 1, 1) + offset.reshape(1, -1, 1, 1)


def hips_forward(workload, params, x):
    """The logits of the workload's model; params in the state_dict's order (torch layouts)."""
    relu = lambda a: anp.maximum(a, 0.0)  # noqa: E731
    linear = lambda a, w, b: anp.dot(a, w.T) + b  # noqa: E731
    if workload == "mlp":
        w1, b1, w2, b2, w3, b3 = params
        return linear(relu(linear(relu(linear(x, w1, b1)), w2, b2)), w3, b3)
    if workload == "cnn":
        c1, cb1, c2, cb2, f1, fb1, f2, fb2 = params
        h = hips_max_pool(relu(hips_conv(x, c1, cb1)))
        h = hips_max_pool(relu(hips_conv(h, c2, cb2)))
    else:
        c1, cb1, g1, o1, c2, cb2, g2, o2, f1, fb1, f2, fb2 = params
        h = hips_max_pool(relu(hips_batch_norm(hips_conv(x, c1, cb1), g1, o1)))
        h = hips_max_pool(relu(hips_batch_norm(hips_conv(h, c2, cb2), g2, o2)))
    return linear(relu(linear(h.reshape(h.shape[0], -1), f1, fb1)), f2, fb2)


def hips_step(workload):
    state = initial_state(workload)
    params = [value for key, value in state.items() if "running" not in key and "num_batches" not in key]
    buffers = [np.zeros_like(p) for p in params]
    x, y = batch(workload)

    def loss(params):
        logits = hips_forward(workload, params, x)
        log_probs = logits - logsumexp(logits, axis=1, keepdims=True)
        return -anp.mean(log_probs[np.arange(len(y)), y])

    value_and_grad = autograd.value_and_grad(loss)

    def step():
        value, grads = value_and_grad(params)
        for param, grad, buffer in zip(params, grads, buffers):  # PyTorch's SGD with momentum, in place
            buffer *= MOMENTUM
            buffer += grad
            param -= LR * buffer
        return float(value)

    return step


# ----- the numpy floors: just the GEMMs -----

def numpy_floor(workload):
    rng = np.random.default_rng(SEED)
    f32 = lambda *shape: rng.standard_normal(shape, np.float32)  # noqa: E731
    if workload == "mlp":
        x, w1, w2, w3, g3 = f32(128, 784), f32(256, 784), f32(128, 256), f32(10, 128), f32(128, 10)

        def step():
            h1 = x @ w1.T
            h2 = h1 @ w2.T
            h2 @ w3.T
            g3.T @ h2  # dW3
            g2 = g3 @ w3  # dh2
            g2.T @ h1  # dW2
            g1 = g2 @ w2  # dh1
            g1.T @ x  # dW1
            return float("nan")

        return step
    n = WORKLOADS[workload]
    cols1, cols2 = f32(9, n * 784), f32(288, n * 196)  # im2col of the 1x28x28 and 32x14x14 inputs
    w1, w2, dy1, dy2 = f32(32, 9), f32(64, 288), f32(32, n * 784), f32(64, n * 196)
    flat, fc1, fc2, g2 = f32(n, 3136), f32(128, 3136), f32(10, 128), f32(n, 10)

    def step():
        w1 @ cols1  # conv1 forward
        w2 @ cols2  # conv2 forward
        h = flat @ fc1.T
        h @ fc2.T
        g2.T @ h  # dW fc2
        g1 = g2 @ fc2  # dx fc2
        g1.T @ flat  # dW fc1
        g1 @ fc1  # dx fc1
        dy2 @ cols2.T  # dW conv2
        w2.T @ dy2  # dx conv2 (columns, before col2im)
        dy1 @ cols1.T  # dW conv1 (the input needs no gradient)
        return float("nan")

    return step


def make_step(framework, workload):
    if framework == "minitorch":
        return nn_step(mt, workload)
    if framework == "torch":
        return nn_step(torch, workload)
    if framework == "hips":
        return hips_step(workload)
    return numpy_floor(workload)


# ----- worker and driver -----

def worker(args):
    if torch is not None:
        torch.set_num_threads(args.threads)
    result = {"threads": harness.thread_report(torch)}
    for workload in args.only:
        step = make_step(args.worker, workload)
        if args.rss:  # a fresh process: the first steps' allocations count too
            resting, peak, first_loss = harness.peak_rss_of(step)
            result[workload] = {"resting": resting, "peak": peak, "step": peak - resting, "first_loss": first_loss}
        else:
            first_loss = step()
            wall, cpu = harness.time_steps(step, args.repeats, args.warmup)
            result[workload] = {"ms": 1000 * statistics.median(wall), "cpu_ms": 1000 * statistics.median(cpu),
                                "first_loss": first_loss}
    print(json.dumps(result))


def drive(args):
    workers = harness.worker_arguments([f for f in args.frameworks if harness.available(f)], args.baseline)
    frameworks = list(workers)
    script = os.path.abspath(__file__)
    common = ["--only", *args.only, "--repeats", str(args.repeats), "--warmup", str(args.warmup)]
    print(f"training step, ms: median over {args.rounds} rotating rounds of one process per framework, each the median "
          f"of {args.repeats} steps after {args.warmup + 1} warm-up steps; all thread pools pinned alike; "
          f"'cpu' rows: the process's CPU time per step")
    if not harness.available("torch") or not harness.available("hips"):
        print("  (not installed: " + ", ".join(f for f in ("torch", "hips") if not harness.available(f)) + ")")
    if args.env:
        print(f"  every worker's environment also has: {' '.join(args.env)}")
    for threads in args.threads:
        times = {f: {w: [] for w in args.only} for f in frameworks}
        cpu_times = {f: {w: [] for w in args.only} for f in frameworks}
        losses, pools = {}, {}
        for order in harness.rotations(frameworks, args.rounds):
            for framework in order:
                report = harness.run_worker(script, [*workers[framework], *common], threads, args.env)
                pools[framework] = report["threads"]
                for workload in args.only:
                    times[framework][workload].append(report[workload]["ms"])
                    cpu_times[framework][workload].append(report[workload]["cpu_ms"])
                    losses[framework, workload] = report[workload]["first_loss"]
        print(f"\n{threads} thread(s); thread pools as the workers saw them: {pools}")
        print(f"{'workload':10s}" + "".join(f"{f:>18s}" for f in frameworks))
        for workload in args.only:
            for label, samples in (("", times), (" cpu", cpu_times)):
                medians = {f: statistics.median(samples[f][workload]) for f in frameworks}
                reference = medians.get("torch")
                cells = [f"{medians[f]:8.2f} ({harness.ratio(medians[f], reference):>6s})" for f in frameworks]
                print(f"{workload + label:10s}" + "".join(f"{c:>18s}" for c in cells))
            _check_losses(workload, {f: losses[f, workload] for f in frameworks if f != "numpy"})
        memory_workloads = [w for w in args.only if w != "mlp"]
        if memory_workloads and not args.no_rss:
            print("peak RSS of 3 steps, MiB: step = peak above the resting RSS (model and batch built), peak = whole process")
            for workload in memory_workloads:
                cells = []
                for framework in [f for f in frameworks if f != "numpy"]:
                    report = harness.run_worker(script, [*workers[framework], "--rss", "--only", workload], threads, args.env)
                    cells.append(f"{framework} step {report[workload]['step']:6.1f} peak {report[workload]['peak']:6.1f}")
                print(f"{workload:10s} " + " | ".join(cells))


def _check_losses(workload, losses):
    values = list(losses.values())
    if values and max(values) - min(values) > 1e-3 * max(1.0, abs(values[0])):
        print(f"  warning: {workload} first losses differ: {losses}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, FRAMEWORKS, rounds=3)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--only", nargs="+", choices=sorted(WORKLOADS), default=list(WORKLOADS))
    parser.add_argument("--frameworks", nargs="+", choices=FRAMEWORKS, default=list(FRAMEWORKS))
    parser.add_argument("--no-rss", action="store_true", help="skip the peak-memory processes")
    parser.add_argument("--rss", action="store_true", help=argparse.SUPPRESS)
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
