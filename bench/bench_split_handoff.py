"""What handing work to minitorch's intra-op worker costs on this machine, and what a split gains.

    python bench/bench_split_handoff.py                 # 2 threads, 3 rounds
    python bench/bench_split_handoff.py --rounds 5 --repeats 500

minitorch.parallel.split runs one range of an op's items on the calling
thread and the others on a sleeping worker thread. Each worker process
(threads pinned as in every bench/ script) times, in strict alternation:
  - an empty split: waking the worker, the BLAS pool switch, waiting;
  - a bare hand-off: an empty function through a one-thread
    ThreadPoolExecutor, the part of the above that is the operating system's;
  - a 6 MiB broadcast multiply (the shape of a channels-last activation
    times a per-channel vector), serially and split.
Medians in microseconds; the driver prints the median over rounds.

On a virtual machine the hand-off is mostly the time a sleeping virtual CPU
takes to wake. Linux guests can poll for a while before halting (the
haltpoll cpuidle driver); the script prints that setting when the machine
exposes it, since it changes the first two figures severalfold.
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import concurrent.futures
import json
import os
import statistics

import numpy as np

from minitorch import parallel

HALT_POLL = "/sys/module/haltpoll/parameters/guest_halt_poll_ns"
ROWS, COLUMNS = 1792, 896  # 6 MiB of float32: 64 samples x 28 rows, 28 columns x 32 channels


def alternating_medians(functions, repeats):
    """{name: median microseconds} of each function, run in turns (harness.times_in_turns)."""
    samples = harness.times_in_turns(list(functions.values()), repeats)
    return {name: 1e6 * statistics.median(times) for name, times in zip(functions, samples)}


def worker(args):
    rng = np.random.default_rng(0)
    activations = rng.random((ROWS, COLUMNS), dtype=np.float32)
    per_channel = rng.random(COLUMNS, dtype=np.float32)
    out = np.empty_like(activations)

    def multiply_rows(start, stop):
        np.multiply(activations[start:stop], per_channel, out=out[start:stop])

    bare_pool = concurrent.futures.ThreadPoolExecutor(1)
    work = activations.nbytes
    medians = alternating_medians({
        "empty split": lambda: parallel.split("Bench", lambda start, stop: None, ROWS, work),
        "bare hand-off": lambda: bare_pool.submit(lambda: None).result(),
        "multiply, serial": lambda: multiply_rows(0, ROWS),
        "multiply, split": lambda: parallel.split("Bench", multiply_rows, ROWS, work),
    }, args.repeats)
    print(json.dumps({"threads": harness.thread_report(), "split_threads": parallel.split_threads(ROWS, work),
                      "us": medians}))


def drive(args):
    script = os.path.abspath(__file__)
    try:
        with open(HALT_POLL) as setting:
            halt_poll = f"guest halt polling {int(setting.read())} ns ({HALT_POLL})"
    except (OSError, ValueError):
        halt_poll = "no guest halt-polling setting exposed"
    print(f"minitorch.parallel.split on {os.cpu_count()} CPUs, {halt_poll}: microseconds, median over "
          f"{args.rounds} worker processes, each the median of {args.repeats} alternating runs")
    for threads in args.threads:
        runs = [harness.run_worker(script, ["--worker", "minitorch", "--repeats", str(args.repeats)], threads, args.env)
                for _ in range(args.rounds)]
        print(f"\n{threads} thread(s), split over {runs[0]['split_threads']}; pools {runs[0]['threads']}")
        medians = {name: statistics.median(run["us"][name] for run in runs) for name in runs[0]["us"]}
        for name, value in medians.items():
            print(f"  {name:18s} {value:8.1f} us")
        print(f"  split / serial multiply: {medians['multiply, split'] / medians['multiply, serial']:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, ["minitorch"], rounds=3)
    parser.set_defaults(threads=[2])
    parser.add_argument("--repeats", type=int, default=300)
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
