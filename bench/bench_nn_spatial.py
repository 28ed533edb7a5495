"""The spatial nn functions, forward + backward, against PyTorch on the same inputs in the same run.

For each case: the median milliseconds of one forward and backward pass (input and
parameters require grad), minitorch and PyTorch interleaved so that machine noise hits
both alike, with the ratio. Threads: pin them from outside for a fair comparison, e.g.
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_nn_spatial.py (PyTorch is set
to the same count here).

    python bench/bench_nn_spatial.py [repeats]
"""
import os
import statistics
import sys
import time

import numpy as np
import torch

import minitorch as mt

CASES = [
    # name, function name (same in both), input shapes (float32), keyword arguments
    ("conv_transpose2d 128->64 k4 s2 (DCGAN)", "conv_transpose2d", [(32, 128, 8, 8), (128, 64, 4, 4), (64,)],
     {"stride": 2, "padding": 1}),
    ("conv1d 64->64 k5 (audio)", "conv1d", [(32, 64, 256), (64, 64, 5), (64,)], {"padding": 2}),
    ("interpolate bilinear x2", "interpolate", [(32, 64, 16, 16)], {"scale_factor": 2, "mode": "bilinear"}),
    ("interpolate nearest x2", "interpolate", [(32, 64, 16, 16)], {"scale_factor": 2}),
    ("pad reflect 3", "pad", [(16, 64, 32, 32)], {"pad": (3, 3, 3, 3), "mode": "reflect"}),
    ("group_norm 8 groups", "group_norm", [(32, 64, 16, 16)], {"num_groups": 8}),
    ("instance_norm", "instance_norm", [(32, 64, 16, 16)], {}),
    ("adaptive_max_pool2d 16->5", "adaptive_max_pool2d", [(32, 64, 16, 16)], {"output_size": 5}),
    ("unfold k3 p1", "unfold", [(16, 32, 16, 16)], {"kernel_size": 3, "padding": 1}),
    ("pixel_shuffle 2", "pixel_shuffle", [(32, 256, 16, 16)], {"upscale_factor": 2}),
]


def make_step(functional, make_tensor, name, arrays, kwargs):
    def run():
        inputs = [make_tensor(a) for a in arrays]
        getattr(functional, name)(*inputs, **kwargs).sum().backward()
    return run


def medians(fns, repeats):
    for fn in fns:
        fn()  # warm up
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for fn, times in zip(fns, samples):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return [statistics.median(times) * 1e3 for times in samples]


def main(repeats=15):
    threads = int(os.environ.get("OMP_NUM_THREADS", "0")) or os.cpu_count()
    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    print(f"{'case':42s} {'minitorch ms':>13s} {'torch ms':>9s} {'ratio':>6s}   (threads: {threads})")
    for label, name, shapes, kwargs in CASES:
        arrays = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
        ours = make_step(mt.nn.functional, lambda a: mt.tensor(a, requires_grad=True), name, arrays, kwargs)
        theirs = make_step(torch.nn.functional, lambda a: torch.tensor(a, requires_grad=True), name, arrays, kwargs)
        mine, reference = medians([ours, theirs], repeats)
        print(f"{label:42s} {mine:13.2f} {reference:9.2f} {mine / reference:6.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
