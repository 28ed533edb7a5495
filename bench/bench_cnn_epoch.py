"""Seconds per training epoch of `python -m minitorch.examples.cnn` against its PyTorch twin.

    python bench/bench_cnn_epoch.py                                   # embedded subset, 1 and 2 threads
    python bench/bench_cnn_epoch.py --dataset fashion-mnist --rounds 2 --epochs 1

Both sides time the training pass alone (the test pass, data loading and
model building are left out): minitorch runs the example's own
training.train_one_epoch over its DataLoader; the twin
(bench/twin_accuracy.py) starts from the same initial weights, sees the same
batches in the same order and follows the same Adam + OneCycleLR recipe
(scheduled over --epochs), computing the same per-batch loss and accuracy.

Method (bench/harness.py): one process per (framework, thread count), every
thread pool pinned before import; each process trains --epochs epochs and
reports their times; the driver rotates the order of the processes each
round and prints the median epoch over all rounds with the ratio to the
twin. The first epoch of a process is included: it is what a user waits for.
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

# --minitorch-path: another checkout's package (the driver's --baseline, for before/after in one run).
sys.path.insert(0, harness.argument_value(sys.argv, "--minitorch-path") or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import minitorch as mt  # noqa: E402
from minitorch.examples import cnn, training  # noqa: E402
from minitorch.examples.cli import DATASETS, parse_training_args, training_parser  # noqa: E402

WORKER = harness.argument_value(sys.argv, "--worker")
# The minitorch worker must not load torch's libraries (their threads and memory would count).
twin_accuracy = importlib.import_module("twin_accuracy") if WORKER == "torch" else None

FRAMEWORKS = ("minitorch", "torch")


def minitorch_epochs(args):
    """The example's own loop: its DataLoader, model, Adam and OneCycleLR (training.run's set-up)."""
    parser = training_parser("examples.cnn", "", cnn.RECIPE)
    options = parse_training_args(parser, cnn.RECIPE, ["--dataset", args.dataset, "--epochs", str(args.epochs),
                                                       *(["--limit", str(args.limit)] if args.limit else [])])
    mt.manual_seed(options.seed)
    train_loader, _, _, _ = training.make_loaders(options)
    model = cnn.CNN()
    optimizer = mt.optim.Adam(model.parameters(), lr=options.lr)
    scheduler = mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=options.lr, epochs=options.epochs,
                                                          steps_per_epoch=len(train_loader))
    loss_fn = mt.nn.CrossEntropyLoss()
    for _ in range(args.epochs):
        start, start_cpu = time.perf_counter(), time.process_time()
        loss, accuracy = training.train_one_epoch(model, train_loader, loss_fn, optimizer, scheduler)
        yield time.perf_counter() - start, time.process_time() - start_cpu, loss, accuracy


def torch_epochs(args):
    twin_accuracy.torch.set_num_threads(args.threads)
    twin = twin_accuracy.Twin("cnn", args.dataset, epochs=args.epochs, limit=args.limit)
    for _ in range(args.epochs):
        start, start_cpu = time.perf_counter(), time.process_time()
        loss, accuracy = twin.train_epoch()
        yield time.perf_counter() - start, time.process_time() - start_cpu, loss, accuracy


def worker(args):
    epochs = minitorch_epochs(args) if args.worker == "minitorch" else torch_epochs(args)
    seconds, cpu_seconds, losses = [], [], []
    for elapsed, cpu, loss, _ in epochs:
        seconds.append(elapsed)
        cpu_seconds.append(cpu)
        losses.append(loss)
    torch = twin_accuracy.torch if twin_accuracy else None
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "losses": losses,
                      "threads": harness.thread_report(torch)}))


def drive(args):
    workers = harness.worker_arguments([f for f in FRAMEWORKS if f != "torch" or importlib.util.find_spec("torch")],
                                       args.baseline)
    frameworks = list(workers)
    script = os.path.abspath(__file__)
    common = ["--dataset", args.dataset, "--epochs", str(args.epochs), *(["--limit", str(args.limit)] if args.limit else [])]
    print(f"examples.cnn on {args.dataset}{f' (first {args.limit})' if args.limit else ''}: seconds per training epoch "
          f"(training pass only), median over {args.rounds} rotating rounds x {args.epochs} epoch(s), one process "
          f"per framework, all thread pools pinned alike")
    if args.env:
        print(f"  every worker's environment also has: {' '.join(args.env)}")
    for threads in args.threads:
        seconds, cpu_seconds, losses, pools = {f: [] for f in frameworks}, {f: [] for f in frameworks}, {}, {}
        for order in harness.rotations(frameworks, args.rounds):
            for framework in order:
                report = harness.run_worker(script, [*workers[framework], *common], threads, args.env)
                seconds[framework] += report["seconds"]
                cpu_seconds[framework] += report["cpu_seconds"]
                losses[framework], pools[framework] = report["losses"], report["threads"]
        for label, samples in (("wall", seconds), ("CPU", cpu_seconds)):
            medians = {f: statistics.median(samples[f]) for f in frameworks}
            cells = [f"{f} {medians[f]:6.2f} s ({harness.ratio(medians[f], medians.get('torch'))})" for f in frameworks]
            print(f"{threads} thread(s), {label}: " + " | ".join(cells) + f"   all epochs: {_rounded(samples)}")
        print(f"    training loss per epoch, last round: {_rounded(losses, 4)}; pools: {pools}")


def _rounded(values, digits=2):
    return {key: [round(v, digits) for v in value] for key, value in values.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, FRAMEWORKS, rounds=2)
    parser.add_argument("--dataset", choices=DATASETS, default="embedded")
    parser.add_argument("--limit", type=int, default=None, help="train on the first N training images only")
    parser.add_argument("--epochs", type=int, default=2, help="epochs per process")
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
