"""Per-op overhead: a chain of 200 elementwise ops (mul/add/tanh) on an 8-element tensor.

Prints microseconds per op for forward+backward (input requires grad) and for
forward with no tape active, for minitorch and, when installed, PyTorch on the
same work in the same run, with the ratios. Medians over repeats.
"""
import statistics
import sys
import time

import numpy as np

N_OPS = 200
REPEATS = 60


def chain(x, c):
    for _ in range(N_OPS // 3):
        x = (x * c + c).tanh()
    return x


def time_once(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved_medians(fns, repeats=REPEATS):
    """Median seconds of each function, run in turns so that machine noise hits all alike."""
    for fn in fns:
        fn()  # warm up
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for fn, times in zip(fns, samples):
            times.append(time_once(fn))
    return [statistics.median(times) / (N_OPS // 3 * 3) * 1e6 for times in samples]


def minitorch_work():
    import minitorch as mt

    c = mt.tensor(np.full(8, 0.5, np.float32))

    def with_grad():
        x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32), requires_grad=True)
        chain(x, c).sum().backward()

    def forward_only():
        x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32))
        chain(x, c)

    return with_grad, forward_only


def torch_work():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    c = torch.full((8,), 0.5)

    def with_grad():
        x = torch.linspace(-1, 1, 8, requires_grad=True)
        chain(x, c).sum().backward()

    def forward_only():
        x = torch.linspace(-1, 1, 8)
        chain(x, c)

    return with_grad, forward_only


def numpy_work():
    c = np.full(8, 0.5, np.float32)

    def forward_only():
        x = np.linspace(-1, 1, 8, dtype=np.float32)
        for _ in range(N_OPS // 3):
            x = np.tanh(x * c + c)

    return forward_only


def main():
    mt_grad, mt_fwd = minitorch_work()
    torch_fns = torch_work()
    fns = [mt_grad, mt_fwd, numpy_work()] + (list(torch_fns) if torch_fns else [])
    figures = interleaved_medians(fns)
    print(f"chain of {N_OPS // 3 * 3} elementwise ops on 8 floats, median of {REPEATS} interleaved runs, us per op")
    print(f"minitorch: {figures[0]:6.2f} forward+backward   {figures[1]:6.2f} forward, no tape active")
    print(f"numpy:                                {figures[2]:6.2f} forward")
    if not torch_fns:
        print("PyTorch not installed: no ratio")
        return 0
    print(f"PyTorch:   {figures[3]:6.2f} forward+backward   {figures[4]:6.2f} forward, no grad")
    print(f"ratio minitorch/PyTorch: {figures[0] / figures[3]:.2f}x with gradients, {figures[1] / figures[4]:.2f}x forward only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
