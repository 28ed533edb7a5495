"""Per-op cost of this tree against another one, in one process: is a change within budget?

Run: python bench/bench_per_op_ab.py OLD_DIR [--new NEW_DIR] [--repeats 400]
where OLD_DIR (and NEW_DIR, by default this tree) holds the `minitorch`
package to compare with, e.g. after `git archive <commit> minitorch | tar -x
-C /tmp/old`. The old package is copied
under another name (its imports are relative) and imported next to this
tree's `minitorch`; bench_per_op.py's workload (a chain of 198 elementwise
ops on 8 floats, forward+backward through requires_grad, and forward with no
tape active) then runs on both in strict alternation, so that the machine's
noise, which on a shared 2-core machine moves single figures by 3x between
processes, hits both alike; and it times this thread's CPU time, not wall
time. Prints medians and new/old.

    python bench/bench_per_op_ab.py hips

runs the same alternation against HIPS autograd (`pip install autograd`) as
"old": the one-process comparison with the other pure-Python tape over
numpy, steadier than bench_per_op.py's rotating processes on a busy machine.
On 2026-12-02, three runs: new/old 1.066, 1.098, 1.094 forward+backward.

Issue 12's engine lock (one RLock taken per recorded op, per dead tensor's
trace, per released entry), the branch's final tree against the tree before
it (60568b1), on the 2-core dev machine with other sessions running, medians
of 600 alternating repeats, eight runs, new/old:

    forward+backward:  1.049 1.045 1.035 1.044 1.046 1.033 1.046 1.049   median +4.5%
                       (about 10.5 us per op before, 11.0 after)
    forward, no tape:  0.991 1.005 0.996 (runs 1-3)                       no change
    the tree against a copy of itself (the method's bias): 1.006, 1.007 forward+backward

Besides forward+backward it times the two halves on their own: the forward
pass with a tape recording (the graph then dropped) and the backward pass of
a graph built beforehand.
"""
import argparse
import importlib
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

from bench_per_op import N_OPS, chain, hips_work

OLD_NAME, NEW_NAME = "minitorch_before", "minitorch_after"
HERE = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def import_tree(tree, scratch, name):
    """The minitorch package of `tree`, imported under `name` (its imports are relative)."""
    shutil.copytree(os.path.join(tree, "minitorch"), os.path.join(scratch, name))
    if scratch not in sys.path:
        sys.path.insert(0, scratch)
    return importlib.import_module(name)


def _timed(fn):
    def run():
        start = time.thread_time()
        fn()
        return time.thread_time() - start
    return run


def workloads(mt):
    """{label: a function that runs the workload once and returns its CPU seconds}, on minitorch `mt`."""
    c = mt.tensor(np.full(8, 0.5, np.float32))
    start = np.linspace(-1, 1, 8, dtype=np.float32)

    def backward_only():
        loss = chain(mt.tensor(start, requires_grad=True), c).sum()
        begin = time.thread_time()
        loss.backward()
        return time.thread_time() - begin

    return {"forward+backward": _timed(lambda: chain(mt.tensor(start, requires_grad=True), c).sum().backward()),
            "forward, no tape": _timed(lambda: chain(mt.tensor(start), c)),
            "forward, taped": _timed(lambda: chain(mt.tensor(start, requires_grad=True), c)),
            "backward": backward_only}


def alternate(old_fn, new_fn, repeats):
    """Microseconds per op of each, median over `repeats` runs taken in turns. CPU time of
    this thread, not wall time: with other sessions on the machine, waiting for a core
    is most of the wall time's noise."""
    for fn in (old_fn, new_fn) * 3:
        fn()
    times = ([], [])
    pairs = list(zip((old_fn, new_fn), times))
    for _ in range(repeats):
        pairs.reverse()  # old first, then new first: no place in the pair is favoured
        for fn, samples in pairs:
            samples.append(fn())
    return [statistics.median(samples) / (N_OPS // 3 * 3) * 1e6 for samples in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", help="a directory holding the minitorch package to compare with, or 'hips'")
    parser.add_argument("--new", default=HERE, help="a directory holding the minitorch package to compare (default: this tree)")
    parser.add_argument("--repeats", type=int, default=400)
    args = parser.parse_args()
    for tree in ([args.old] if args.old != "hips" else []) + [args.new]:
        if not os.path.isdir(os.path.join(tree, "minitorch")):
            parser.error(f"{tree} holds no minitorch package")
    if args.old == "hips" and importlib.util.find_spec("autograd") is None:
        parser.error("HIPS autograd is not installed (pip install autograd)")
    with tempfile.TemporaryDirectory() as scratch:
        new = import_tree(args.new, scratch, NEW_NAME)
        if args.old == "hips":
            print("old: HIPS autograd")
            old_workloads = dict(zip(("forward+backward", "forward, no tape"), map(_timed, hips_work())))
        else:
            old = import_tree(args.old, scratch, OLD_NAME)
            print(f"old: {args.old}")
            old_workloads = workloads(old)
        print(f"new: {args.new}")
        print(f"median of {args.repeats} alternating repeats, CPU us per op")
        for label, new_fn in workloads(new).items():
            if label in old_workloads:
                before, after = alternate(old_workloads[label], new_fn, args.repeats)
                print(f"{label:18s} old {before:6.2f}   new {after:6.2f}   new/old {after / before:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
