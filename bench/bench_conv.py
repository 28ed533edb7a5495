"""Milliseconds per forward + backward of the CNN's layers alone, minitorch vs PyTorch.

    python bench/bench_conv.py [--threads 1 2] [--rounds 3] [--repeats 20]

The layers of the examples' CNN at batch 64, float32, each on the input
layout it meets in a real network -- channels-last for minitorch (what its
convolutions hand the next layer), PyTorch's default contiguous NCHW for PyTorch:
Conv2d(1, 32, 3, padding=1) on 28x28 (no input gradient, as a first layer),
Conv2d(32, 64, 3, padding=1) on 14x14, MaxPool2d(2) and BatchNorm2d on
32x28x28. Same method as bench_train_step.py (bench/harness.py): one process
per framework and thread count, thread pools pinned before import, rotating
rounds, medians; wall and CPU milliseconds, ratios to PyTorch.
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import importlib.util
import json
import os
import statistics
import sys

import numpy as np

# --minitorch-path: another checkout's package (the driver's --baseline, for before/after in one run).
sys.path.insert(0, harness.argument_value(sys.argv, "--minitorch-path") or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import minitorch as mt  # noqa: E402

WORKER = harness.argument_value(sys.argv, "--worker")
torch = importlib.import_module("torch") if WORKER == "torch" else None

FRAMEWORKS = ("minitorch", "torch")
CASES = {  # name: (input shape, layer builder taking the nn module)
    "conv1": ((64, 1, 28, 28), lambda nn: nn.Conv2d(1, 32, 3, padding=1)),
    "conv2": ((64, 32, 14, 14), lambda nn: nn.Conv2d(32, 64, 3, padding=1)),
    "maxpool": ((64, 32, 28, 28), lambda nn: nn.MaxPool2d(2)),
    "batchnorm": ((64, 32, 28, 28), lambda nn: nn.BatchNorm2d(32)),
}


def layer_step(lib, name):
    shape, build = CASES[name]
    layer = build(lib.nn)
    rng = np.random.default_rng(0)
    data = np.ascontiguousarray(rng.standard_normal(shape, np.float32).transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    if lib is torch:
        data = np.ascontiguousarray(data)
    x = lib.tensor(data, requires_grad=name != "conv1")
    grad = None

    def step():
        nonlocal grad
        out = layer(x)
        if grad is None:  # ones in the output's memory layout, as the next layer's gradient would come
            grad = out.detach() * 0 + 1
        out.backward(grad)
        x.grad = None
        for p in layer.parameters():
            p.grad = None

    return step


def worker(args):
    lib = torch if args.worker == "torch" else mt
    if torch is not None:
        torch.set_num_threads(args.threads)
    result = {}
    for name in args.only:
        wall, cpu = harness.time_steps(layer_step(lib, name), args.repeats, args.warmup)
        result[name] = [1000 * statistics.median(wall), 1000 * statistics.median(cpu)]
    print(json.dumps(result))


def drive(args):
    frameworks = [f for f in FRAMEWORKS if f != "torch" or importlib.util.find_spec("torch")]
    workers = harness.worker_arguments(frameworks, args.baseline)
    script = os.path.abspath(__file__)
    common = ["--only", *args.only, "--repeats", str(args.repeats), "--warmup", str(args.warmup)]
    print(f"forward + backward of one layer, ms (wall / CPU): median over {args.rounds} rotating rounds of one process "
          f"per framework, each the median of {args.repeats} calls after {args.warmup} warm-up calls")
    for threads in args.threads:
        samples = {name: {case: [] for case in args.only} for name in workers}
        for order in harness.rotations(list(workers), args.rounds):
            for name in order:
                report = harness.run_worker(script, [*workers[name], *common], threads, args.env)
                for case in args.only:
                    samples[name][case].append(report[case])
        print(f"\n{threads} thread(s)")
        print(f"{'layer':10s}" + "".join(f"{name:>26s}" for name in workers))
        for case in args.only:
            cells = []
            for name in workers:
                wall = statistics.median(s[0] for s in samples[name][case])
                cpu = statistics.median(s[1] for s in samples[name][case])
                reference = statistics.median(s[0] for s in samples["torch"][case]) if "torch" in samples else None
                cells.append(f"{wall:7.2f} / {cpu:6.2f} ({harness.ratio(wall, reference)})")
            print(f"{case:10s}" + "".join(f"{c:>26s}" for c in cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, FRAMEWORKS, rounds=3)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--only", nargs="+", choices=sorted(CASES), default=list(CASES))
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
