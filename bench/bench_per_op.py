"""Per-op overhead: a chain of 200 elementwise ops (mul/add/tanh) on an 8-element tensor.

Prints microseconds per op for forward+backward (input requires grad) and for
forward with no tape active, for minitorch and, when installed, PyTorch and
HIPS autograd (`pip install autograd`, a pure-Python tape over numpy like
ours) on the same work in the same interleaved run, with the ratios. Medians
over repeats. HIPS's forward without gradients is the chain on plain numpy
arrays through autograd.numpy, which traces nothing.
"""
import statistics
import sys
import time

import numpy as np

try:
    import autograd
    import autograd.numpy as anp
except ImportError:
    autograd = anp = None

N_OPS = 200
REPEATS = 60


def chain(x, c, tanh=None):
    """x -> tanh(x * c + c), N_OPS // 3 times; `tanh` for arrays that have no .tanh() method."""
    for _ in range(N_OPS // 3):
        x = x * c + c
        x = x.tanh() if tanh is None else tanh(x)
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


def hips_work():
    if autograd is None:
        return None
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

    return forward_only


def main():
    workloads = {"minitorch": minitorch_work(), "PyTorch": torch_work(), "HIPS autograd": hips_work()}
    workloads = {name: fns for name, fns in workloads.items() if fns is not None}
    fns = [numpy_work()] + [fn for pair in workloads.values() for fn in pair]
    figures = interleaved_medians(fns)
    numpy_figure, figures = figures[0], dict(zip(workloads, zip(figures[1::2], figures[2::2])))
    print(f"chain of {N_OPS // 3 * 3} elementwise ops on 8 floats, median of {REPEATS} interleaved runs, us per op")
    for name, (with_grad, forward) in figures.items():
        print(f"{name + ':':15s}{with_grad:6.2f} forward+backward   {forward:6.2f} forward, no tape/grad")
    print(f"{'numpy:':15s}                         {numpy_figure:6.2f} forward")
    ours = figures["minitorch"]
    for name in ("PyTorch", "HIPS autograd"):
        if name not in figures:
            print(f"{name} not installed: no ratio")
            continue
        theirs = figures[name]
        print(f"ratio minitorch/{name}: {ours[0] / theirs[0]:.2f}x with gradients, {ours[1] / theirs[1]:.2f}x forward only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
