"""Small-tensor programs of the kind course notebooks run, minitorch vs PyTorch, same code.

    python bench/bench_course_step.py                         # 1 thread, 5 rounds
    python bench/bench_course_step.py --threads 1 2 --rounds 3 --only course

- course: one training step of Karpathy's makemore MLP (lecture 2): the
  embedding lookup `C[X]`, `view`, `tanh(emb @ W1 + b1)`, `h @ W2 + b2`,
  `F.cross_entropy`, `p.grad = None`, `backward()`, then
  `p.data += -0.1 * p.grad` over the 5 parameters, with the minibatch drawn
  by `randint` from 182,625 three-letter contexts (each framework's own
  random stream, so their losses differ). Batch 32, vocabulary 27, context
  3, embedding 10, hidden 200.
- scalar: a micrograd-style loop: 100 steps of full-batch SGD on a 2-layer
  MLP (2 -> 16 -> 16 -> 1, tanh) over 16 points, hinge loss plus L2, every
  tensor 16 elements or fewer, so that the engine's cost per op is all there
  is to time.

Both frameworks run the same function (`step(lib, F, state)`), written once
against the PyTorch API, from the same weights. Method (bench/harness.py):
one process per framework and thread count, every thread pool pinned; each
times --repeats calls after warm-up ones and reports the median; the driver
rotates the processes each round and prints the median over rounds, with
minitorch / PyTorch.
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

FRAMEWORKS = ("minitorch", "torch")
WORKLOADS = ("course", "scalar")
LABELS = {"minitorch": "minitorch", "torch": "PyTorch", "before": "before"}


# ----- the programs, written once against the PyTorch API -----

def course_state(lib):
    """makemore's parameters and data set, from numpy's generator (the same values for both frameworks):
    182,625 three-letter contexts, the size of the lecture's training split of names.txt."""
    rng = np.random.default_rng(2147483647)
    shapes = {"C": (27, 10), "W1": (30, 200), "b1": (200,), "W2": (200, 27), "b2": (27,)}
    params = {name: lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
              for name, shape in shapes.items()}
    contexts = lib.tensor(rng.integers(0, 27, size=(182625, 3)))
    targets = lib.tensor(rng.integers(0, 27, size=182625))
    return params, contexts, targets, lib.Generator().manual_seed(42)


def course_step(lib, F, state):
    (params, Xtr, Ytr, generator) = state
    C, W1, b1, W2, b2 = (params[name] for name in ("C", "W1", "b1", "W2", "b2"))
    ix = lib.randint(0, Xtr.shape[0], (32,), generator=generator)  # each framework's own random stream
    emb = C[Xtr[ix]]  # (32, 3, 10)
    h = lib.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in params.values():
        p.grad = None
    loss.backward()
    for p in params.values():
        p.data += -0.1 * p.grad
    return loss


def scalar_state(lib):
    rng = np.random.default_rng(1337)
    X = rng.standard_normal((16, 2)).astype(np.float32)
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0).astype(np.float32)
    shapes = {"W1": (2, 16), "b1": (16,), "W2": (16, 16), "b2": (16,), "W3": (16, 1), "b3": (1,)}
    params = {name: lib.tensor((rng.standard_normal(shape) * 0.5).astype(np.float32), requires_grad=True)
              for name, shape in shapes.items()}
    return params, lib.tensor(X), lib.tensor(y)


def scalar_step(lib, F, state):
    """100 steps of micrograd's demo loop (SVM loss with L2), on 16-element tensors."""
    params, X, y = state
    W1, b1, W2, b2, W3, b3 = (params[name] for name in ("W1", "b1", "W2", "b2", "W3", "b3"))
    for k in range(100):
        h = lib.tanh(X @ W1 + b1)
        h = lib.tanh(h @ W2 + b2)
        scores = (h @ W3 + b3).view(-1)
        data_loss = F.relu(1 - y * scores).mean()
        reg_loss = 1e-4 * sum((p * p).sum() for p in params.values())
        loss = data_loss + reg_loss
        for p in params.values():
            p.grad = None
        loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        with lib.no_grad():
            for p in params.values():
                p -= learning_rate * p.grad
    return loss


PROGRAMS = {"course": (course_state, course_step), "scalar": (scalar_state, scalar_step)}


# ----- worker and driver -----

def worker(args):
    if args.worker == "torch":
        lib = importlib.import_module("torch")
        lib.set_num_threads(args.threads)
    else:
        lib = importlib.import_module("minitorch")
    F = importlib.import_module(lib.__name__ + ".nn.functional")
    figures = {}
    for name in args.only:
        make_state, step = PROGRAMS[name]
        state = make_state(lib)
        first_loss = float(step(lib, F, state))
        state = make_state(lib)
        wall, cpu = harness.time_steps(lambda: step(lib, F, state), args.repeats, warmup=3)
        figures[name] = {"median_ms": statistics.median(wall) * 1e3, "cpu_ms": statistics.median(cpu) * 1e3,
                         "first_loss": first_loss}
    print(json.dumps({"figures": figures, "threads": harness.thread_report(lib if args.worker == "torch" else None)}))


def drive(args):
    contenders = [f for f in FRAMEWORKS if harness.available(f)]
    workers = harness.worker_arguments(contenders, args.baseline)
    script = os.path.abspath(__file__)
    print(f"median ms per call over {args.rounds} rotating rounds of one process per framework "
          f"(each its median of {args.repeats}); ratio minitorch / PyTorch")
    for threads in args.threads:
        samples = {c: [] for c in workers}
        for order in harness.rotations(list(workers), args.rounds):
            for contender in order:
                samples[contender].append(harness.run_worker(
                    script, [*workers[contender], "--repeats", str(args.repeats), "--only", *args.only], threads,
                    args.env)["figures"])
        print(f"\n{threads} thread(s)")
        for name in args.only:
            medians = {c: statistics.median(r[name]["median_ms"] for r in samples[c]) for c in workers}
            losses = {c: samples[c][0][name]["first_loss"] for c in workers}
            line = "   ".join(f"{LABELS[c]} {medians[c]:8.3f} ms" for c in workers)
            ratio = harness.ratio(medians["minitorch"], medians.get("torch"))
            print(f"{name:7s} {line}   minitorch/PyTorch {ratio}   first losses "
                  + ", ".join(f"{losses[c]:.5f}" for c in workers))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    harness.add_driver_arguments(parser, FRAMEWORKS, rounds=5)
    parser.set_defaults(threads=[1])
    parser.add_argument("--repeats", type=int, default=60)
    parser.add_argument("--only", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    harness.run_driver_or_worker(parser, drive, worker)


if __name__ == "__main__":
    main()
