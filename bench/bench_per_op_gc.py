"""Per-op cost with the garbage collector counted: this tree against another one, in alternating processes.

Run: python bench/bench_per_op_gc.py OLD_DIR [--processes 6] [--runs 600]
where OLD_DIR holds the `minitorch` package to compare with (e.g. after
`git archive main minitorch | tar -x -C /tmp/old`).

bench_per_op.py and bench_per_op_ab.py report the median run, in one
process shared with other contenders: that hides the cyclic garbage
collector, whose collections are triggered by all the objects the process
keeps, and whose full collections come once every tens of runs. What a
training loop waits for is the mean. So each process here imports one tree
only, runs bench_per_op.py's chain (198 small elementwise ops, forward and
backward) --runs times, and reports the mean and the median microseconds
per op and how many collections of each generation ran; processes of the
two trees alternate, and the driver prints the median over processes and
the new/old ratios.
"""
import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

import minitorch  # the tree PYTHONPATH chose (the driver's workers set it)
from bench_per_op import N_OPS, minitorch_work

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(runs):
    with_grad, _ = minitorch_work(minitorch)
    for _ in range(50):
        with_grad()
    before = [s["collections"] for s in gc.get_stats()]
    times = []
    start = time.perf_counter()
    for _ in range(runs):
        run_start = time.perf_counter()
        with_grad()
        times.append(time.perf_counter() - run_start)
    total = time.perf_counter() - start
    after = [s["collections"] for s in gc.get_stats()]
    ops = N_OPS // 3 * 3
    print(json.dumps({"mean": total / runs / ops * 1e6, "median": statistics.median(times) / ops * 1e6,
                      "collections": [a - b for a, b in zip(after, before)]}))


def run_tree(tree, runs):
    env = dict(os.environ, PYTHONPATH=tree + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "--runs", str(runs)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", nargs="?", help="a directory holding the minitorch package to compare with")
    parser.add_argument("--processes", type=int, default=6, help="processes per tree")
    parser.add_argument("--runs", type=int, default=600, help="forward+backward runs per process")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.runs)
        return
    if args.old is None:
        parser.error("give OLD_DIR, the directory holding the minitorch package to compare with")
    trees = {"old": os.path.abspath(args.old), "new": os.path.join(HERE, "..")}
    reports = {name: [] for name in trees}
    for i in range(args.processes):
        for name in (("old", "new") if i % 2 == 0 else ("new", "old")):
            reports[name].append(run_tree(trees[name], args.runs))
    print(f"chain of 198 elementwise ops, forward+backward, us per op: median over {args.processes} processes "
          f"per tree (alternating), each {args.runs} runs")
    for figure in ("mean", "median"):
        old, new = (statistics.median(r[figure] for r in reports[name]) for name in ("old", "new"))
        print(f"{figure:6s} old {old:6.2f}   new {new:6.2f}   new/old {new / old:.3f}")
    for name in trees:
        print(f"collections per process (generations 0, 1, 2), {name}: {reports[name][0]['collections']}")


if __name__ == "__main__":
    main()
