"""Milliseconds of one training step of the sequence layers: minitorch vs PyTorch.

    python bench/bench_sequence_models.py                      # 1 and 2 threads, 3 rounds
    python bench/bench_sequence_models.py --threads 1 --only lstm

A step is forward, a mean-squared loss against zeros, backward, float32, on a
fixed batch, from the same initial weights (minitorch's, copied):
- lstm:        LSTM(64, 128, num_layers=2), sequence 50, batch 32;
- gru-packed:  GRU(64, 128, bidirectional=True) on a PackedSequence of lengths 50..20, batch 32;
- encoder:     TransformerEncoderLayer(128, 4, 512, dropout=0), sequence 64, batch 16, a causal mask.

Method (bench/harness.py): one process per (framework, thread count), thread
pools pinned before import; each times --repeats steps after --warmup and
reports the median; the driver rotates the order of the processes each round
and prints the median over rounds, with the ratio to PyTorch.
"""
import harness  # first: before numpy, so that the pinned thread counts apply  # noqa: I001

import argparse
import importlib
import json
import os
import statistics
import sys

sys.path.insert(0, harness.argument_value(sys.argv, "--minitorch-path") or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

import minitorch as mt  # noqa: E402

# Only the torch worker loads torch (its libraries' threads and memory would count in the minitorch worker).
torch = importlib.import_module("torch") if harness.argument_value(sys.argv, "--worker") == "torch" else None
FRAMEWORKS = ("minitorch", "torch")
WORKLOADS = ("lstm", "gru-packed", "encoder")


def build(lib, workload):
    """(module, the step's inputs) in the library `lib` (minitorch or torch), from minitorch's seeded weights."""
    mt.manual_seed(0)
    rng = np.random.default_rng(0)
    nn = lib.nn
    if workload == "lstm":
        ours, make = mt.nn.LSTM(64, 128, num_layers=2), lambda: nn.LSTM(64, 128, num_layers=2)
        inputs = [rng.standard_normal((50, 32, 64)).astype(np.float32)]
    elif workload == "gru-packed":
        ours, make = mt.nn.GRU(64, 128, bidirectional=True), lambda: nn.GRU(64, 128, bidirectional=True)
        inputs = [rng.standard_normal((50, 32, 64)).astype(np.float32)]
    else:
        ours = mt.nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0)
        make = lambda: nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0)  # noqa: E731
        inputs = [rng.standard_normal((64, 16, 128)).astype(np.float32)]
    module = ours if lib is mt else make()
    if lib is not mt:
        module.load_state_dict({k: lib.tensor(np.array(v.numpy())) for k, v in ours.state_dict().items()})
    return module, [lib.tensor(a) for a in inputs]


def step_function(lib, workload):
    module, (x,) = build(lib, workload)
    lengths = list(np.linspace(50, 20, 32).astype(int))
    mask = lib.nn.Transformer.generate_square_subsequent_mask(64)

    def step():
        for p in module.parameters():
            p.grad = None
        if workload == "gru-packed":
            packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths)
            output = module(packed)[0].data
        elif workload == "encoder":
            output = module(x, src_mask=mask)
        else:
            output = module(x)[0]
        loss = (output * output).mean()
        loss.backward()
        return float(loss.item())

    return step


def worker(args):
    lib = mt
    if args.worker == "torch":
        torch.set_num_threads(args.threads)
        lib = torch
    result = {}
    for workload in args.only:
        step = step_function(lib, workload)
        wall, _ = harness.time_steps(step, args.repeats, args.warmup)
        result[workload] = {"ms": 1000 * statistics.median(wall), "loss": step()}
    print(json.dumps(result))


def drive(args):
    script = os.path.abspath(__file__)
    workers = harness.worker_arguments(list(FRAMEWORKS), args.baseline)
    frameworks = list(workers)
    for threads in args.threads:
        samples = {f: {w: [] for w in args.only} for f in frameworks}
        losses = {}
        for order in harness.rotations(frameworks, args.rounds):
            for framework in order:
                common = ["--only", *args.only, "--repeats", str(args.repeats), "--warmup", str(args.warmup)]
                report = harness.run_worker(script, [*workers[framework], *common], threads, args.env)
                for workload, values in report.items():
                    samples[framework][workload].append(values["ms"])
                    losses.setdefault(workload, {})[framework] = values["loss"]
        print(f"\n{threads} thread(s), median ms per step over {args.rounds} rounds (ratio to torch):")
        for workload in args.only:
            medians = {f: statistics.median(samples[f][workload]) for f in frameworks}
            cells = [f"{f} {medians[f]:8.2f} ({harness.ratio(medians[f], medians['torch'])})" for f in frameworks]
            agree = np.allclose([losses[workload][f] for f in frameworks], losses[workload]["torch"], rtol=1e-4)
            print(f"  {workload:11s} " + "   ".join(cells) + ("" if agree else "   LOSSES DIFFER"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    harness.add_driver_arguments(parser, FRAMEWORKS, rounds=3)
    harness.run_driver_or_worker(parser, drive, worker)
