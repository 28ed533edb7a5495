"""What the benchmarks share: equal thread counts, one framework per process, rotation, medians, peak RSS.

Why one framework per process: numpy's OpenBLAS and PyTorch's OpenMP pool
both keep their threads spinning for a while after each call. Two
frameworks stepping in turns in one process on a 2-core machine then steal
each other's cores, and whichever runs second looks slow (this is how an
earlier version of bench_train_step.py reported PyTorch slower than itself
at 2 threads). So a driver starts one worker process per (framework,
thread count), with every thread pool pinned by environment variables set
before the worker imports numpy or torch, and rotates the order of the
workers from round to round so that a shared machine's load drifts over
all of them alike. A worker times many repetitions after a few warm-up
ones and reports the median; the driver reports the median over rounds.

Import this module before numpy (it imports nothing heavy itself).

>>> statistics_of([[3.0, 1.0, 2.0], [5.0]])
[2.0, 5.0]
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

try:  # optional: only to report the thread counts the libraries really use
    from threadpoolctl import threadpool_info
except ImportError:
    threadpool_info = None

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pinned_environment(threads, extra=()):
    """os.environ with every BLAS / OpenMP pool limited to `threads` (for a worker's process),
    plus the NAME=VALUE settings in `extra` (the drivers' --env, the same for every framework)."""
    env = dict(os.environ)
    env.update(setting.split("=", 1) for setting in extra)
    for name in THREAD_VARIABLES:
        env[name] = str(threads)
    return env


def thread_report(torch=None):
    """{pool: threads} as the libraries report them, to check that the pinning took."""
    pools = {info["internal_api"]: info["num_threads"] for info in (threadpool_info() if threadpool_info else [])}
    if torch is not None:
        pools["torch"] = torch.get_num_threads()
    return pools


def statistics_of(samples_per_round):
    """The median of each round's samples."""
    return [statistics.median(samples) for samples in samples_per_round]


def time_steps(step, repeats, warmup):
    """(wall seconds, CPU seconds of the whole process) of each of `repeats` calls of `step`,
    after `warmup` untimed calls. On a shared machine the CPU time is the steadier figure at
    1 thread; at more threads it also counts the time BLAS threads spend spinning."""
    for _ in range(warmup):
        step()
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def times_in_turns(functions, repeats):
    """Wall seconds of each function's `repeats` calls, run in turns after one warm-up call each
    (so that a shared machine's load drifts over all of them alike): one list per function."""
    for fn in functions:
        fn()
    samples = [[] for _ in functions]
    for _ in range(repeats):
        for fn, times in zip(functions, samples):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return samples


# ----- memory (Linux /proc) -----

def memory_mib():
    """(current RSS, peak RSS since the last reset_peak_rss) of this process in MiB."""
    values = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                values[key] = int(value.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def reset_peak_rss():
    """Starts a new peak-RSS window (Linux >= 4.0: writing 5 to clear_refs resets VmHWM)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def peak_rss_of(step, steps=3):
    """(resting RSS, peak RSS in MiB over `steps` calls of `step`, the first call's result):
    call it before any step has run, once the model and data exist."""
    resting, _ = memory_mib()
    reset_peak_rss()
    first = step()
    for _ in range(steps - 1):
        step()
    _, peak = memory_mib()
    return resting, peak, first


# ----- the driver side -----

def run_worker(script, worker_args, threads, extra_env=(), timeout=3600):
    """Runs `python script --worker ... ` pinned to `threads`; returns the JSON object it printed last."""
    command = [sys.executable, script, *worker_args, "--threads", str(threads)]
    done = subprocess.run(command, env=pinned_environment(threads, extra_env), capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"worker {' '.join(worker_args)} at {threads} thread(s) failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def worker_arguments(frameworks, baseline=None):
    """{contender: its worker's arguments}; a baseline checkout runs as 'before', minitorch's worker
    importing the package from there.

    >>> worker_arguments(["minitorch", "torch"], "/tmp/old")["before"]
    ['--worker', 'minitorch', '--minitorch-path', '/tmp/old/']
    """
    workers = {name: ["--worker", name] for name in frameworks}
    if baseline:
        workers["before"] = ["--worker", "minitorch", "--minitorch-path", os.path.join(baseline, "")]
    return workers


def rotations(names, rounds):
    """Each round's order: the list rotated by one more each round, so no one always runs first."""
    return [names[r % len(names):] + names[:r % len(names)] for r in range(rounds)]


# The contenders that need a package of their own (the others are minitorch or plain numpy).
PACKAGES = {"torch": "torch", "hips": "autograd"}


def available(contender):
    """Is the package `contender` needs installed? (PyTorch and HIPS autograd are optional.)

    >>> available("numpy")
    True
    """
    package = PACKAGES.get(contender)
    return package is None or importlib.util.find_spec(package) is not None


def ratio(value, reference):
    return f"{value / reference:.2f}x" if reference else "-"


def add_driver_arguments(parser, frameworks, rounds):
    """The options every driver shares, and the hidden ones its workers receive."""
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--env", nargs="+", default=[], metavar="NAME=VALUE",
                        help="environment settings for every worker alike (e.g. glibc's MALLOC_TRIM_THRESHOLD_=...)")
    parser.add_argument("--baseline", metavar="DIR", help="also time the minitorch package in DIR (a checkout), as 'before'")
    parser.add_argument("--worker", choices=frameworks, help=argparse.SUPPRESS)
    parser.add_argument("--minitorch-path", help=argparse.SUPPRESS)


def run_driver_or_worker(parser, drive, worker):
    """Parses the command line; a worker (--worker) runs at its one thread count."""
    args = parser.parse_args()
    if args.worker:
        args.threads = args.threads[0]
        worker(args)
    else:
        drive(args)


def argument_value(argv, flag):
    """The value after `flag` in argv (or None): a worker must know its role before its imports.

    >>> argument_value(["x.py", "--worker", "torch"], "--worker")
    'torch'
    """
    for i, arg in enumerate(argv[:-1]):
        if arg == flag:
            return argv[i + 1]
    return None
