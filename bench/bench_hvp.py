"""Hessian-vector products of an MLP's cross-entropy loss: minitorch vs PyTorch vs HIPS autograd.

    python bench/bench_hvp.py                                # 1 and 2 threads, 3 rounds
    python bench/bench_hvp.py --threads 2 --rounds 5 --repeats 40

MLP 784-256-128-10 (ReLU), batch 128, the HVP with respect to all six
parameter tensors for one fixed vector:
- minitorch reverse-over-reverse (nested GradientTapes) and
  forward-over-reverse (a ForwardAccumulator around a GradientTape);
- PyTorch: double backward (`autograd.grad(..., create_graph=True)`, then
  `autograd.grad` of the gradients against the vector);
- HIPS autograd (`pip install autograd`): `grad` of the inner product of
  `grad(loss)` with the vector (reverse-over-reverse, its documented way);
- the numpy floor: the same HVP written by hand in numpy, with no tape at
  all: the forward pass, the backward pass, and Pearlmutter's R-operator
  pushed through both (one forward-over-reverse pass, every product a GEMM
  or an elementwise ufunc: what any autodiff must at least compute).
Every contender gets the same parameters, batch and vector; the driver
checks that the HVPs agree (each worker prints a checksum).

Method (bench/harness.py, as bench_train_step.py): one process per
(contender, thread count) with every thread pool pinned before import;
each times --repeats HVPs after --warmup and reports the median; the driver
rotates the order of the processes each round and prints the median over
rounds, with ratios to PyTorch.
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import importlib.util
import json
import os
import statistics
import sys

sys.path.insert(0, harness.argument_value(sys.argv, "--minitorch-path") or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

WORKER = harness.argument_value(sys.argv, "--worker")
# Each worker imports only its own framework: another's thread pools and memory would count.
mt = importlib.import_module("minitorch") if WORKER in ("minitorch-rr", "minitorch-fr") else None
torch = importlib.import_module("torch") if WORKER == "torch" else None

SIZES = (784, 256, 128, 10)
BATCH = 128
CONTENDERS = ("minitorch-rr", "minitorch-fr", "torch", "hips", "numpy")


def make_problem(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], BATCH)
    vector = [rng.standard_normal(p.shape).astype(np.float32) for p in params]
    return params, x, labels, vector


def mlp_loss(params, x, labels, lib, relu, log_softmax):
    """Mean cross-entropy of the MLP, written once for every framework."""
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = relu(h)
    return -log_softmax(h)[lib.arange(BATCH), labels].mean()


def minitorch_hvp(forward_over_reverse):
    params, x, labels, vector = make_problem()
    params, vector = [mt.from_numpy(p) for p in params], [mt.from_numpy(v) for v in vector]
    x, labels = mt.from_numpy(x), mt.from_numpy(labels)

    def loss():
        return mlp_loss(params, x, labels, mt, mt.relu, lambda h: h.log_softmax(dim=1))

    def reverse_over_reverse():
        with mt.GradientTape() as outer:
            outer.watch(params)
            with mt.GradientTape() as inner:
                inner.watch(params)
                value = loss()
            grads = inner.gradient(value, params)
        return outer.gradient(grads, params, output_gradients=vector)

    def forward_over_reverse_hvp():
        with mt.ForwardAccumulator(params, vector) as accumulator:
            with mt.GradientTape() as tape:
                tape.watch(params)
                value = loss()
            grads = tape.gradient(value, params)
        return accumulator.jvp(grads)

    hvp = forward_over_reverse_hvp if forward_over_reverse else reverse_over_reverse
    return lambda: [np.asarray(h) for h in hvp()]


def torch_hvp():
    params, x, labels, vector = make_problem()
    params = [torch.tensor(p, requires_grad=True) for p in params]
    x, labels, vector = torch.tensor(x), torch.tensor(labels), [torch.tensor(v) for v in vector]

    def hvp():
        value = mlp_loss(params, x, labels, torch, torch.relu, lambda h: h.log_softmax(dim=1))
        grads = torch.autograd.grad(value, params, create_graph=True)
        return [h.numpy() for h in torch.autograd.grad(grads, params, grad_outputs=vector)]

    return hvp


def hips_hvp():
    autograd = importlib.import_module("autograd")
    anp = importlib.import_module("autograd.numpy")
    logsumexp = importlib.import_module("autograd.scipy.special").logsumexp
    params, x, labels, vector = make_problem()

    def loss(params):
        return mlp_loss(params, x, labels, anp, lambda h: anp.maximum(h, 0),
                        lambda h: h - logsumexp(h, axis=1, keepdims=True))

    gradient = autograd.grad(loss)

    def gradient_dot_vector(params):
        return sum(anp.sum(g * v) for g, v in zip(gradient(params), vector))

    hvp = autograd.grad(gradient_dot_vector)
    return lambda: hvp(params)


def numpy_hvp():
    """The floor: the HVP by hand (Pearlmutter, "Fast exact multiplication by the Hessian", 1994).

    Each value a gets its directional derivative Ra along the vector; R of a
    product is the product rule, R of the ReLU masks is zero (almost
    everywhere), and R of softmax(z) is p * (Rz - sum(p * Rz)).
    """
    params, x, labels, vector = make_problem()
    (w1, b1, w2, b2, w3, b3), (v1, c1, v2, c2, v3, c3) = params, vector
    onehot = np.eye(SIZES[-1], dtype=np.float32)[labels]

    def hvp():
        z1 = x @ w1 + b1
        m1 = z1 > 0
        h1 = z1 * m1
        z2 = h1 @ w2 + b2
        m2 = z2 > 0
        h2 = z2 * m2
        z3 = h2 @ w3 + b3
        e = np.exp(z3 - z3.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        g3 = (p - onehot) / BATCH  # d loss / d z3
        g2 = (g3 @ w3.T) * m2
        # the R-forward pass
        rh1 = (x @ v1 + c1) * m1
        rh2 = (rh1 @ w2 + h1 @ v2 + c2) * m2
        rz3 = rh2 @ w3 + h2 @ v3 + c3
        rg3 = p * (rz3 - (p * rz3).sum(axis=1, keepdims=True)) / BATCH
        # the R-backward pass
        rg2 = (rg3 @ w3.T + g3 @ v3.T) * m2
        rg1 = (rg2 @ w2.T + g2 @ v2.T) * m1
        return [x.T @ rg1, rg1.sum(0), rh1.T @ g2 + h1.T @ rg2, rg2.sum(0), rh2.T @ g3 + h2.T @ rg3, rg3.sum(0)]

    return hvp


def make_hvp(contender):
    if contender.startswith("minitorch"):
        return minitorch_hvp(forward_over_reverse=contender == "minitorch-fr")
    return {"torch": torch_hvp, "hips": hips_hvp, "numpy": numpy_hvp}[contender]()


def worker(args):
    if torch is not None:
        torch.set_num_threads(args.threads)
    hvp = make_hvp(args.worker)
    first = hvp()
    wall, cpu = harness.time_steps(hvp, args.repeats, args.warmup)
    print(json.dumps({"threads": harness.thread_report(torch), "ms": 1000 * statistics.median(wall),
                      "cpu_ms": 1000 * statistics.median(cpu), "hvp": [h.ravel()[:64].tolist() for h in first]}))


def drive(args):
    workers = harness.worker_arguments([c for c in args.contenders if harness.available(c)], args.baseline)
    if "before" in workers:  # the baseline checkout's reverse-over-reverse
        workers["before"][1] = "minitorch-rr"
    contenders = list(workers)
    script = os.path.abspath(__file__)
    common = ["--repeats", str(args.repeats), "--warmup", str(args.warmup)]
    print(f"HVP of the MLP {'-'.join(map(str, SIZES))} loss, batch {BATCH}, ms: median over {args.rounds} rotating "
          f"rounds of one process per contender, each the median of {args.repeats} HVPs after {args.warmup + 1} "
          "warm-up ones; all thread pools pinned alike")
    missing = [c for c in args.contenders if not harness.available(c)]
    if missing:
        print(f"  (not installed: {', '.join(missing)})")
    for threads in args.threads:
        times = {c: [] for c in contenders}
        cpu_times = {c: [] for c in contenders}
        hvps, pools = {}, {}
        for order in harness.rotations(contenders, args.rounds):
            for contender in order:
                report = harness.run_worker(script, [*workers[contender], *common], threads, args.env)
                times[contender].append(report["ms"])
                cpu_times[contender].append(report["cpu_ms"])
                hvps[contender], pools[contender] = report["hvp"], report["threads"]
        print(f"\n{threads} thread(s); thread pools as the workers saw them: {pools}")
        reference = hvps.get("torch", hvps[contenders[0]])
        for label, samples in (("wall", times), ("cpu", cpu_times)):
            medians = {c: statistics.median(samples[c]) for c in contenders}
            cells = [f"{c} {medians[c]:6.2f} ({harness.ratio(medians[c], medians.get('torch'))})" for c in contenders]
            print(f"{label:5s}" + " | ".join(cells))
        worst = max(float(np.max(np.abs(np.subtract(a, b))) / (np.max(np.abs(b)) + 1e-12))
                    for c in contenders for a, b in zip(hvps[c], reference))
        print(f"largest relative difference between the contenders' HVPs (first 64 entries of each): {worst:.1e}")
        if worst > 1e-3:
            raise SystemExit("the contenders' HVPs disagree: they are not doing the same work")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, CONTENDERS, rounds=3)
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--contenders", nargs="+", choices=CONTENDERS, default=list(CONTENDERS))
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
