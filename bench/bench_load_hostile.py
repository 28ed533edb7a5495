"""Time and memory of mt.load on files that are not checkpoints, or lie about their size, and on a
valid one (issue 27, item 8): /dev/zero, a 64 GiB sparse file of zeros, a valid header followed
by 64 GiB of sparse zeros, a checkpoint cut in half, and a valid 64 MiB checkpoint.

Run: python bench/bench_load_hostile.py [--minitorch-path OTHER_CHECKOUT] [--repeats 3]
Each load runs in a fresh subprocess, under a 4 GiB address space limit so that a reader that
reads until memory runs out fails instead of swapping; the tracemalloc peak counts Python and
numpy allocations. Prints one JSON line per file: the outcome, the median seconds and peak.

Measured on the 2-core dev machine (median of 3, two runs), before (the whole file read, then
parsed) -> after (header first, then only the declared bytes):
    /dev/zero                       MemoryError with an empty message after 5.3-5.8 s and 3.6 GiB
                                    -> CheckpointError naming the file, 0.2-0.3 ms, 6 KiB
    64 GiB sparse file of zeros     MemoryError with an empty message (the 4 GiB limit refuses the
                                    64 GiB read at once; without it, a read of 64 GiB)
                                    -> CheckpointError, 0.2 ms
    valid checkpoint + 64 GiB hole  the same MemoryError -> CheckpointError, 0.3 ms
    checkpoint cut in half          CheckpointError, 58-62 ms, 32 MiB peak -> 1.5-5.5 ms, 0.04 MiB
    valid 64 MiB checkpoint         0.21-0.25 s, 128 MiB peak -> 0.10-0.13 s, 64.1 MiB peak
"""
import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 2**30

CHILD = r"""
import json, resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
import minitorch as mt
resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))
tracemalloc.start()
start = time.perf_counter()
try:
    mt.load(sys.argv[2])
    outcome = "loaded"
except Exception as error:
    outcome = f"{type(error).__name__}: {str(error)[:140]}"
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({"outcome": outcome, "seconds": seconds, "tracemalloc_peak_mib": peak / 2**20}))
"""


def checkpoint_bytes(minitorch_path, mib):
    """A checkpoint of `mib` MiB of float32 weights, written by the checkout under test."""
    sys.path.insert(0, minitorch_path)
    import minitorch as mt  # noqa: E402  (the checkout chosen on the command line)
    buffer = io.BytesIO()
    mt.save({f"layer{i}": mt.zeros(256, 1024) for i in range(mib)}, buffer)
    return buffer.getvalue()


def write_files(folder, minitorch_path):
    valid, small = checkpoint_bytes(minitorch_path, 64), checkpoint_bytes(minitorch_path, 1)
    files = {"/dev/zero": "/dev/zero"}
    for name, prefix in (("64 GiB sparse zeros", b""), ("valid checkpoint + 64 GiB hole", small)):
        path = files[name] = os.path.join(folder, name.replace(" ", "-"))
        with open(path, "wb") as out:
            out.write(prefix)
            out.truncate(64 * GIB)
    for name, content in (("checkpoint cut in half", valid[: len(valid) // 2]), ("valid 64 MiB checkpoint", valid)):
        path = files[name] = os.path.join(folder, name.replace(" ", "-"))
        with open(path, "wb") as out:
            out.write(content)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minitorch-path", default=os.path.join(HERE, ".."))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, path in write_files(folder, args.minitorch_path).items():
            runs = [json.loads(subprocess.run([sys.executable, "-c", CHILD, args.minitorch_path, path], check=True,
                                              capture_output=True, text=True).stdout)
                    for _ in range(args.repeats)]
            print(json.dumps({"file": name, "outcome": runs[0]["outcome"],
                              **{key: round(statistics.median(run[key] for run in runs), 4)
                                 for key in ("seconds", "tracemalloc_peak_mib")}}))


if __name__ == "__main__":
    main()
