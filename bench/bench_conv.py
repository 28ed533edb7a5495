"""Milliseconds per forward + backward of conv and max-pool layers, minitorch vs PyTorch.

    python3 bench/bench_conv.py [--repeats 20]

Shapes of a small MNIST CNN at batch 64 (float32): Conv2d(1, 32, 3, padding=1)
on 28x28, Conv2d(32, 64, 3, padding=1) on 14x14, MaxPool 2 on 32x28x28.
Prints the median over repeats and the minitorch/PyTorch ratio (PyTorch on
2 threads, when installed).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import minitorch as mt  # noqa: E402
from minitorch.ops.conv_ops import conv2d  # noqa: E402
from minitorch.ops.pool_ops import max_pool2d  # noqa: E402

CASES = [
    ("conv 1->32 3x3 pad1, 64x1x28x28", (64, 1, 28, 28), (32, 1, 3, 3), "conv"),
    ("conv 32->64 3x3 pad1, 64x32x14x14", (64, 32, 14, 14), (64, 32, 3, 3), "conv"),
    ("maxpool 2, 64x32x28x28", (64, 32, 28, 28), None, "pool"),
]


def median_ms(step, repeats):
    step()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def minitorch_step(x_shape, w_shape, kind, rng):
    x = mt.tensor(rng.standard_normal(x_shape).astype(np.float32), requires_grad=True)
    w = mt.tensor(rng.standard_normal(w_shape).astype(np.float32), requires_grad=True) if w_shape else None
    b = mt.tensor(rng.standard_normal(w_shape[0]).astype(np.float32), requires_grad=True) if w_shape else None

    def step():
        out = conv2d(x, w, b, padding=1) if kind == "conv" else max_pool2d(x, 2)
        out.sum().backward()
        x.grad = None
        if w is not None:
            w.grad = b.grad = None

    return step


def torch_step(torch, x_shape, w_shape, kind, rng):
    x = torch.tensor(rng.standard_normal(x_shape).astype(np.float32), requires_grad=True)
    w = torch.tensor(rng.standard_normal(w_shape).astype(np.float32), requires_grad=True) if w_shape else None
    b = torch.tensor(rng.standard_normal(w_shape[0]).astype(np.float32), requires_grad=True) if w_shape else None
    F = torch.nn.functional

    def step():
        out = F.conv2d(x, w, b, padding=1) if kind == "conv" else F.max_pool2d(x, 2)
        out.sum().backward()
        x.grad = None
        if w is not None:
            w.grad = b.grad = None

    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(2)
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    print(f"{'case':40s} {'minitorch ms':>13s} {'torch ms':>10s} {'ratio':>7s}")
    for name, x_shape, w_shape, kind in CASES:
        mine = median_ms(minitorch_step(x_shape, w_shape, kind, rng), args.repeats)
        if torch is None:
            print(f"{name:40s} {mine:13.2f} {'-':>10s} {'-':>7s}")
            continue
        theirs = median_ms(torch_step(torch, x_shape, w_shape, kind, rng), args.repeats)
        print(f"{name:40s} {mine:13.2f} {theirs:10.2f} {mine / theirs:7.2f}")


if __name__ == "__main__":
    main()
