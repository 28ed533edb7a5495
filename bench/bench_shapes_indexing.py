"""Forward+backward cost of the shape and indexing functions, minitorch against PyTorch, one thread.

Run: python bench/bench_shapes_indexing.py [--repeats 30]

Each workload runs the same code with `L` = minitorch and `L` = torch on
float32 tensors of a few hundred thousand elements (sizes where the work,
not the per-op overhead, dominates), in strict alternation so that the noise
of a shared machine hits both alike; it times this thread's CPU time and
prints medians and the ratio minitorch/PyTorch.
"""
import argparse
import statistics
import time

import numpy as np
import torch

import minitorch as mt

torch.set_num_threads(1)
RNG = np.random.default_rng(0)
X = RNG.standard_normal((512, 512)).astype(np.float32)
LABELS = RNG.integers(0, 512, 512)
PICK = RNG.integers(0, 512, 256)


def workloads(L):
    labels, pick = L.tensor(LABELS).reshape(-1, 1), L.tensor(PICK)

    def run(fn):
        def step():
            x = L.tensor(X, requires_grad=True)
            fn(x).sum().backward()
        return step

    return {
        "gather (pick one per row)": run(lambda x: x.gather(1, labels)),
        "index_select rows": run(lambda x: x.index_select(0, pick)),
        "scatter_add rows": run(lambda x: L.zeros(512, 512).scatter_add(0, labels.expand(512, 512), x)),
        "scatter_reduce amax": run(lambda x: L.zeros(512, 512).scatter_reduce(0, labels.expand(512, 512), x, "amax")),
        "split 8 + cat": run(lambda x: L.cat([p * 2 for p in x.split(64, 1)], 1)),
        "flip both dims": run(lambda x: x.flip(0, 1)),
        "repeat 2x2": run(lambda x: x.repeat(2, 2)),
        "unfold 8x8 patches": run(lambda x: x.unfold(0, 8, 8).unfold(1, 8, 8)),
        "unfold overlapping 3, step 1": run(lambda x: x.unfold(1, 3, 1)),
        "masked_select": run(lambda x: x.masked_select(x > 0)),
    }


def main(repeats):
    ours, theirs = workloads(mt), workloads(torch)
    print(f"{'workload':32s} {'minitorch':>10s} {'PyTorch':>10s} {'ratio':>6s}   (medians of {repeats}, ms)")
    for name in ours:
        times = {"ours": [], "theirs": []}
        for _ in range(repeats):
            for key, fn in (("ours", ours[name]), ("theirs", theirs[name])):
                start = time.thread_time()
                fn()
                times[key].append((time.thread_time() - start) * 1e3)
        a, b = statistics.median(times["ours"]), statistics.median(times["theirs"])
        print(f"{name:32s} {a:10.2f} {b:10.2f} {a / b:6.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    main(parser.parse_args().repeats)
