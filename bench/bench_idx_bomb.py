"""Memory and time of read_idx on a gzip bomb: a ~1 MB .gz whose header declares one 28x28 image
and whose stream goes on with 1 GiB of zeros (issue 12).

Run: python bench/bench_idx_bomb.py [--gib N]
Each read runs in a fresh subprocess so its peak RSS (ru_maxrss) is its own; the tracemalloc
peak counts Python and numpy allocations only.

Measured on the 2-core dev machine (median of 3): the reader that decompressed the whole
file first took 6.3 s with a 2095 MiB tracemalloc peak (2050 MiB more peak RSS); the
streaming reader stops after the header, the image and 64 KiB more: 1 ms, 0.3 MiB, no
measurable RSS growth.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import zlib

HEADER_ONE_IMAGE = bytes([0, 0, 0x08, 3]) + (1).to_bytes(4, "big") + (28).to_bytes(4, "big") * 2

CHILD = r"""
import json, resource, sys, time, tracemalloc
from minitorch.datasets import read_idx
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
start = time.perf_counter()
try:
    read_idx(sys.argv[1])
    outcome = "read without error"
except Exception as error:
    outcome = f"{type(error).__name__}: {str(error)[:160]}"
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"outcome": outcome, "seconds": seconds, "tracemalloc_peak_mib": peak / 2**20,
                  "maxrss_growth_mib": (after - before) / 1024}))
"""


def write_bomb(path, gib):
    """One gzip stream: the header, one image, then `gib` GiB of zeros (level 9, about 1 MB per GiB)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    with open(path, "wb") as out:
        out.write(compressor.compress(HEADER_ONE_IMAGE + bytes(range(256)) * 3 + bytes(16)))
        for _ in range(int(gib * 1024)):
            out.write(compressor.compress(zeros))
        out.write(compressor.flush())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0, help="GiB of zeros after the declared image")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bomb-images-idx3-ubyte.gz")
        write_bomb(path, args.gib)
        print(f"bomb: {os.path.getsize(path) / 1e6:.2f} MB on disk, declares 1 image, {args.gib} GiB of zeros after it")
        runs = [json.loads(subprocess.run([sys.executable, "-c", CHILD, path], check=True, capture_output=True,
                                          text=True).stdout) for _ in range(args.repeats)]
    runs.sort(key=lambda run: run["seconds"])
    median = runs[len(runs) // 2]
    print(f"outcome: {median['outcome']}")
    print(f"median of {len(runs)}: {median['seconds']:.3f} s, "
          f"tracemalloc peak {median['tracemalloc_peak_mib']:.1f} MiB, "
          f"peak RSS growth {median['maxrss_growth_mib']:.1f} MiB")


if __name__ == "__main__":
    main()
