"""Milliseconds per training step (forward, loss, backward, SGD step): minitorch vs PyTorch vs the numpy floor.

    python3 bench/bench_train_step.py [--repeats 30] [--only mlp|cnn|cnn-bn]

The models of issue 3's benchmark, float32:
- MLP 784-256-128-10 with ReLU, batch 128;
- CNN Conv2d(1,32,3,p=1)-ReLU-MaxPool2d(2)-Conv2d(32,64,3,p=1)-ReLU-MaxPool2d(2)-
  Flatten-Linear(3136,128)-ReLU-Linear(128,10), batch 64, with and without a
  BatchNorm2d after each convolution;
all trained with CrossEntropyLoss and SGD(lr=0.01, momentum=0.9).

The PyTorch twin (as many threads as numpy's BLAS, when installed) starts from the same weights
and sees the same batch. The numpy floor is the time of just the float32
matmuls the step needs, on operands already in the best layout: for the MLP
3 forward + 5 backward (no gradient for the input batch); for the CNN the
im2col matmuls of both convolutions (forward, filter gradient, and the input
gradient of the second one) and the 2 + 4 of the linear layers.

The contenders run interleaved (one step of each per round) so that the
noise of a shared machine hits them alike; the figures are medians. On a
busy 2-core machine two BLAS threads fight the other load and the medians
blow up (10-100x); `--threads 1` then gives a fair, stable comparison.
"""
import argparse
import os
import statistics
import sys
import time


def _threads_from_argv(default=2):
    """--threads must reach OpenBLAS before numpy is imported."""
    for i, arg in enumerate(sys.argv):
        if arg == "--threads" and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if arg.startswith("--threads="):
            return int(arg.split("=", 1)[1])
    return default


THREADS = _threads_from_argv()
os.environ["OPENBLAS_NUM_THREADS"] = str(THREADS)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import minitorch as mt  # noqa: E402

LR, MOMENTUM = 0.01, 0.9


# ----- the models, built alike in both frameworks -----

def mlp(nn):
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def cnn(nn, batch_norm):
    def conv_block(c_in, c_out):
        layers = [nn.Conv2d(c_in, c_out, 3, padding=1)]
        if batch_norm:
            layers.append(nn.BatchNorm2d(c_out))
        return layers + [nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(
        *conv_block(1, 32), *conv_block(32, 64), nn.Flatten(),
        nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10),
    )


def copy_weights(mt_model, torch, torch_model):
    """The PyTorch twin gets minitorch's initial weights (the state_dicts map one to one)."""
    state = {key: torch.from_numpy(np.array(value._data)) for key, value in mt_model.state_dict().items()}
    torch_model.load_state_dict(state)


def training_step(model, loss_fn, optimizer, x, y):
    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


# ----- the numpy floors: just the matmuls -----

def mlp_floor(rng, batch=128):
    f32 = np.float32
    x = rng.standard_normal((batch, 784), f32)
    w1, w2, w3 = (rng.standard_normal(shape, f32) for shape in ((256, 784), (128, 256), (10, 128)))
    g3 = rng.standard_normal((batch, 10), f32)

    def step():
        h1 = x @ w1.T
        h2 = h1 @ w2.T
        h2 @ w3.T
        g3.T @ h2            # dW3
        g2 = g3 @ w3         # dh2
        g2.T @ h1            # dW2
        g1 = g2 @ w2         # dh1
        g1.T @ x             # dW1

    return step


def cnn_floor(rng, batch=64):
    f32 = np.float32
    cols1 = rng.standard_normal((9, batch * 784), f32)  # im2col of the 1-channel 28x28 input
    cols2 = rng.standard_normal((288, batch * 196), f32)  # im2col of the 32-channel 14x14 input
    w1, w2 = rng.standard_normal((32, 9), f32), rng.standard_normal((64, 288), f32)
    dy1, dy2 = rng.standard_normal((32, batch * 784), f32), rng.standard_normal((64, batch * 196), f32)
    flat = rng.standard_normal((batch, 3136), f32)
    fc1, fc2 = rng.standard_normal((128, 3136), f32), rng.standard_normal((10, 128), f32)
    g2 = rng.standard_normal((batch, 10), f32)

    def step():
        w1 @ cols1                    # conv1 forward
        w2 @ cols2                    # conv2 forward
        h = flat @ fc1.T              # fc1, fc2 forward
        h @ fc2.T
        g2.T @ h                      # dW fc2
        g1 = g2 @ fc2                 # dx fc2
        g1.T @ flat                   # dW fc1
        g1 @ fc1                      # dx fc1
        dy2 @ cols2.T                 # dW conv2
        w2.T @ dy2                    # dx conv2 (columns, before col2im)
        dy1 @ cols1.T                 # dW conv1 (no dx: the input needs no gradient)

    return step


# ----- timing -----

def interleaved_medians(steps, repeats, warmup=3):
    """Median milliseconds of each step function, run in turns."""
    for step in steps:
        for _ in range(warmup):
            step()
    samples = [[] for _ in steps]
    for _ in range(repeats):
        for step, times in zip(steps, samples):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
    return [1000 * statistics.median(times) for times in samples]


def run_case(name, build, floor, batch, torch, repeats, rng):
    x_np = rng.standard_normal((batch, 784) if name == "MLP" else (batch, 1, 28, 28)).astype(np.float32)
    y_np = rng.integers(0, 10, batch)
    model = build(mt.nn)
    mt_step = training_step(
        model, mt.nn.CrossEntropyLoss(), mt.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM),
        mt.tensor(x_np), mt.tensor(y_np),
    )
    steps = [mt_step, floor(rng, batch)]
    if torch is not None:
        twin = build(torch.nn)
        copy_weights(model, torch, twin)
        torch_step = training_step(
            twin, torch.nn.CrossEntropyLoss(), torch.optim.SGD(twin.parameters(), lr=LR, momentum=MOMENTUM),
            torch.from_numpy(x_np), torch.from_numpy(y_np),
        )
        first_mt, first_torch = float(mt_step().item()), float(torch_step().item())
        if abs(first_mt - first_torch) > 1e-3 * max(1.0, abs(first_torch)):
            print(f"  warning: {name} first losses differ: minitorch {first_mt:.6f}, PyTorch {first_torch:.6f}")
        steps.append(torch_step)
    figures = interleaved_medians(steps, repeats)
    mine, numpy_floor = figures[:2]
    line = f"{name:14s} {mine:9.2f} {numpy_floor:9.2f} {mine / numpy_floor:8.2f}x"
    if torch is not None:
        line += f" {figures[2]:9.2f} {mine / figures[2]:8.2f}x"
    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--only", choices=("mlp", "cnn", "cnn-bn"))
    parser.add_argument("--threads", type=int, default=2, help="BLAS threads of numpy and PyTorch alike (default 2)")
    args = parser.parse_args()
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    rng = np.random.default_rng(0)
    mt.manual_seed(0)
    cases = [
        ("mlp", "MLP", mlp, mlp_floor, 128),
        ("cnn", "CNN", lambda nn: cnn(nn, False), cnn_floor, 64),
        ("cnn-bn", "CNN+BatchNorm", lambda nn: cnn(nn, True), cnn_floor, 64),
    ]
    blas_threads = os.environ["OPENBLAS_NUM_THREADS"]
    print(f"ms per training step, median of {args.repeats} interleaved rounds, {blas_threads} BLAS thread(s)")
    header = f"{'model':14s} {'minitorch':>9s} {'numpy mm':>9s} {'/floor':>9s}"
    print(header + (f" {'PyTorch':>9s} {'/PyTorch':>9s}" if torch is not None else "   (PyTorch not installed)"))
    for key, name, build, floor, batch in cases:
        if args.only in (None, key):
            run_case(name, build, floor, batch, torch, args.repeats, rng)


if __name__ == "__main__":
    main()
