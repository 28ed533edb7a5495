"""The optimizer's hot path: an in-place update of a parameter under no_grad, against numpy's in-place subtract.

    python bench/bench_in_place.py

Times, in one interleaved run (medians of many repeats), on a 784x256 float32
parameter:
  numpy      p -= lr * g                        on plain arrays
  minitorch  p -= lr * g   under mt.no_grad()   (Tensor.__isub__: numpy's out= into the storage)
  minitorch  p.sub_(g, alpha=lr)               (the generic twin: a temporary, then a copy)
  minitorch  p.data -= lr * g                   (through the .data view)
and prints each median and its difference from numpy's: the in-place update
should cost numpy's subtract plus a constant.
"""
import statistics
import time

import numpy as np

import minitorch as mt

SHAPE = (784, 256)
REPEATS = 2000
LR = 0.01


def median_us(fn, repeats=REPEATS):
    for _ in range(20):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    rng = np.random.default_rng(0)
    p_np = rng.standard_normal(SHAPE).astype(np.float32)
    g_np = rng.standard_normal(SHAPE).astype(np.float32)
    p = mt.nn.Parameter(mt.tensor(p_np))
    g = mt.tensor(g_np)

    def numpy_step():
        global_p = p_np
        global_p -= LR * g_np

    def isub_step():
        nonlocal p
        with mt.no_grad():
            p -= LR * g

    def sub_step():
        with mt.no_grad():
            p.sub_(g, alpha=LR)

    def data_step():
        p.data -= LR * g

    cases = [("numpy  p -= lr * g", numpy_step), ("mt     p -= lr * g (no_grad)", isub_step),
             ("mt     p.sub_(g, alpha=lr)", sub_step), ("mt     p.data -= lr * g", data_step)]
    results = {name: [] for name, _ in cases}
    for _ in range(5):  # rounds, so that machine noise hits every case alike
        for name, fn in cases:
            results[name].append(median_us(fn, REPEATS // 5))
    base = statistics.median(results[cases[0][0]])
    print(f"in-place update of a {SHAPE[0]}x{SHAPE[1]} float32 parameter, medians (us)")
    for name, _ in cases:
        value = statistics.median(results[name])
        print(f"  {name:32s} {value:8.1f}   {value - base:+7.1f} vs numpy   ({value / base:.2f}x)")


if __name__ == "__main__":
    main()
