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
REPEATS = 30


def chain(x, c):
    for _ in range(N_OPS // 3):
        x = (x * c + c).tanh()
    return x


def median_us_per_op(fn, repeats=REPEATS):
    fn()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) / (N_OPS // 3 * 3) * 1e6


def minitorch_figures():
    import minitorch as mt

    c = mt.tensor(np.full(8, 0.5, np.float32))

    def with_grad():
        x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32), requires_grad=True)
        chain(x, c).sum().backward()

    def forward_only():
        x = mt.tensor(np.linspace(-1, 1, 8, dtype=np.float32))
        chain(x, c)

    return median_us_per_op(with_grad), median_us_per_op(forward_only)


def torch_figures():
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

    return median_us_per_op(with_grad), median_us_per_op(forward_only)


def numpy_figure():
    c = np.full(8, 0.5, np.float32)

    def forward_only():
        chain_np(np.linspace(-1, 1, 8, dtype=np.float32), c)

    def chain_np(x, c):
        for _ in range(N_OPS // 3):
            x = np.tanh(x * c + c)
        return x

    return median_us_per_op(forward_only)


def main():
    mt_grad, mt_fwd = minitorch_figures()
    print(f"minitorch: {mt_grad:6.2f} us/op forward+backward, {mt_fwd:6.2f} us/op forward with no tape")
    print(f"numpy:                                      {numpy_figure():6.2f} us/op forward")
    figures = torch_figures()
    if figures is None:
        print("PyTorch not installed: no ratio")
        return 0
    t_grad, t_fwd = figures
    print(f"PyTorch:   {t_grad:6.2f} us/op forward+backward, {t_fwd:6.2f} us/op forward with no tape")
    print(f"ratio minitorch/PyTorch: {mt_grad / t_grad:.2f}x with gradients, {mt_fwd / t_fwd:.2f}x forward only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
