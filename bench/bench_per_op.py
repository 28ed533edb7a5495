"""Per-op overhead: a chain of 198 elementwise ops (mul/add/tanh) on an 8-element tensor.

    python bench/bench_per_op.py                      # 1 and 2 threads, 3 rounds
    python bench/bench_per_op.py --threads 1 --rounds 5

Microseconds per op for forward+backward (input requires grad) and for
forward with no tape active, for minitorch and, when installed, PyTorch and
HIPS autograd (`pip install autograd`, a pure-Python tape over numpy like
ours), and plain numpy's forward, with the ratios. HIPS's forward without
gradients is the chain on plain numpy arrays through autograd.numpy, which
traces nothing.

Method (bench/harness.py): one process per framework and thread count, all
thread pools pinned alike (on 8 floats nobody splits work over threads, so
the two counts should agree); each process runs its workloads in turns,
--repeats times, and reports each one's median run and its mean run -- the
mean counts the garbage collector, whose collections the median hides (a
full collection comes once every tens of runs) -- and the driver rotates
the order of the processes each round and prints the median over rounds.
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import importlib
import importlib.util
import json
import os
import statistics
import sys

# --minitorch-path: another checkout's package (the driver's --baseline, for before/after in one run).
sys.path.insert(0, harness.argument_value(sys.argv, "--minitorch-path") or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

WORKER = harness.argument_value(sys.argv, "--worker")
torch = importlib.import_module("torch") if WORKER == "torch" else None

N_OPS = 200
FRAMEWORKS = ("minitorch", "torch", "hips", "numpy")
LABELS = {"minitorch": "minitorch", "torch": "PyTorch", "hips": "HIPS autograd", "numpy": "numpy"}


def chain(x, c, tanh=None):
    """x -> tanh(x * c + c), N_OPS // 3 times; `tanh` for arrays that have no .tanh() method."""
    for _ in range(N_OPS // 3):
        x = x * c + c
        x = x.tanh() if tanh is None else tanh(x)
    return x


def per_op_figures(fns, repeats):
    """(median, mean) microseconds per op of each function, run in turns after one warm-up call each."""
    samples = harness.times_in_turns(fns, repeats)
    ops = N_OPS // 3 * 3
    return [(statistics.median(times) / ops * 1e6, statistics.fmean(times) / ops * 1e6) for times in samples]


def minitorch_work(mt):
    """(forward+backward, forward with no tape) on minitorch (the module `mt`, any checkout's)."""
    c = mt.tensor(np.full(8, 0.5, np.float32))

    def with_grad():
        x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32), requires_grad=True)
        chain(x, c).sum().backward()

    def forward_only():
        x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32))
        chain(x, c)

    return with_grad, forward_only


def torch_work():
    c = torch.full((8,), 0.5)

    def with_grad():
        x = torch.linspace(-1, 1, 8, requires_grad=True)
        chain(x, c).sum().backward()

    def forward_only():
        x = torch.linspace(-1, 1, 8)
        chain(x, c)

    return with_grad, forward_only


def hips_work():
    autograd = importlib.import_module("autograd")
    anp = importlib.import_module("autograd.numpy")
    c = np.full(8, 0.5, np.float32)
    gradient = autograd.grad(lambda x: anp.sum(chain(x, c, anp.tanh)))

    def with_grad():
        gradient(np.linspace(-1, 1, 8, dtype=np.float32))

    def forward_only():
        chain(np.linspace(-1, 1, 8, dtype=np.float32), c, anp.tanh)

    return with_grad, forward_only


def numpy_work():
    c = np.full(8, 0.5, np.float32)

    def forward_only():
        x = np.linspace(-1, 1, 8, dtype=np.float32)
        for _ in range(N_OPS // 3):
            x = np.tanh(x * c + c)

    return (forward_only,)


def worker(args):
    if torch is not None:
        torch.set_num_threads(args.threads)
    if args.worker == "minitorch":
        fns = minitorch_work(importlib.import_module("minitorch"))
    else:
        fns = {"torch": torch_work, "hips": hips_work, "numpy": numpy_work}[args.worker]()
    figures = per_op_figures(fns, args.repeats)
    print(json.dumps({"figures": figures, "threads": harness.thread_report(torch)}))


def drive(args):
    workers = harness.worker_arguments([f for f in FRAMEWORKS if harness.available(f)], args.baseline)
    frameworks = list(workers)
    script = os.path.abspath(__file__)
    print(f"chain of {N_OPS // 3 * 3} elementwise ops on 8 floats, us per op: median over {args.rounds} rotating rounds "
          f"of one process per framework, each process's median (and mean) of {args.repeats} runs")
    missing = [LABELS[f] for f in FRAMEWORKS if not harness.available(f)]
    if missing:
        print(f"  (not installed: {', '.join(missing)})")
    for threads in args.threads:
        samples = {f: [] for f in frameworks}
        for order in harness.rotations(frameworks, args.rounds):
            for framework in order:
                report = harness.run_worker(script, [*workers[framework], "--repeats", str(args.repeats)], threads, args.env)
                samples[framework].append(report["figures"])
        # figures[f][workload][0 median, 1 mean], each the median over rounds
        figures = {f: [[statistics.median(r[w][k] for r in samples[f]) for k in (0, 1)] for w in range(len(samples[f][0]))]
                   for f in frameworks}
        print(f"\n{threads} thread(s)")
        for f in frameworks:
            if f == "numpy":
                print(f"{'numpy:':15s}{'':38s}{figures[f][0][0]:6.2f} forward")
                continue
            (grad_median, grad_mean), (forward_median, _) = figures[f]
            print(f"{LABELS.get(f, f) + ':':15s}{grad_median:6.2f} forward+backward (mean {grad_mean:6.2f})   "
                  f"{forward_median:6.2f} forward, no tape/grad")
        ours = figures["minitorch"]
        for f in ("torch", "hips", "before"):
            if f in figures:
                theirs = figures[f]
                print(f"ratio minitorch/{LABELS.get(f, f)}: {ours[0][0] / theirs[0][0]:.2f}x with gradients "
                      f"(means {ours[0][1] / theirs[0][1]:.2f}x), {ours[1][0] / theirs[1][0]:.2f}x forward only")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, FRAMEWORKS, rounds=3)
    parser.add_argument("--repeats", type=int, default=200)
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
