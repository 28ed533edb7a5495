"""Data-parallel training throughput on 1 and 2 processes, and all-reduce time against message size.

    python3 bench/bench_distributed.py [--steps 30] [--rounds 3] [--only mlp|cnn|allreduce] [--no-torch]

Training: the examples' models on random 28x28 images, SGD with momentum,
BLAS at 1 thread per process: the MLP 784-256-128-10 at global batch 128 and
the CNN (two conv-BatchNorm-ReLU-pool blocks, fc 128) at global batch 64.
One process trains the plain model; two processes (`mpiexec -n 2`) wrap it in
DistributedDataParallel, each with half of every global batch (what
`--distributed` does in the examples: strong scaling), and, for comparison,
each with a whole batch (weak scaling). Throughput is global samples per
second over `--steps` steps after a warm-up; scaling efficiency is the
2-process throughput / (2 x the 1-process throughput). The same runs with
PyTorch (DistributedDataParallel on its gloo backend, 1 thread per process)
give the reference, when torch is installed.

All-reduce: the median time of an in-place float32 sum over 2 processes,
for messages of 1 KB to 64 MB: `minitorch.distributed.all_reduce` (which
first checks that the ranks' calls agree), mpi4py's bare `Allreduce` on the
same MPI, and PyTorch's gloo all_reduce.

Configurations run interleaved, `--rounds` times, and the figures are medians:
the machine is shared and noisy.
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time

os.environ.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")  # before numpy loads BLAS

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import minitorch as mt  # noqa: E402
import minitorch.distributed as dist  # noqa: E402

try:
    import torch
    import torch.distributed as torch_dist
except ImportError:
    torch = torch_dist = None

MODELS = {"mlp": 128, "cnn": 64}  # global batch sizes, the examples' defaults
SIZES = [2 ** k for k in range(8, 25, 2)]  # float32 elements: 1 KB ... 64 MB
WARMUP = 5


def build(nn, kind):
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10))
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10),
    )


# ----- inside the processes -----

def train_worker(framework, kind, per_rank_batch, steps):
    """Trains on this rank's batches; rank 0 prints {"seconds": ...} for `steps` steps after the warm-up."""
    rng = np.random.default_rng(0)
    images = rng.standard_normal((per_rank_batch, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, per_rank_batch)
    # The same code for both frameworks: only the import and the backend differ.
    lib, lib_dist = (mt, dist) if framework == "minitorch" else (torch, torch_dist)
    distributed = int(os.environ.get("PMI_SIZE", "1")) > 1
    if framework == "torch":
        torch.set_num_threads(1)
        os.environ.update(RANK=os.environ.get("PMI_RANK", "0"), WORLD_SIZE=os.environ.get("PMI_SIZE", "1"))
    if distributed:
        lib_dist.init_process_group("mpi" if framework == "minitorch" else "gloo")
    model = build(lib.nn, kind)
    if distributed:
        model = lib.nn.parallel.DistributedDataParallel(model)
    sync = lib_dist.barrier if distributed else (lambda: None)
    rank = lib_dist.get_rank() if distributed else 0
    x, y = lib.from_numpy(images), lib.from_numpy(labels)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()

    for _ in range(WARMUP):
        step()
    sync()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    if rank == 0:
        print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)
    if framework == "torch" and distributed:
        end_gloo()


def allreduce_worker(use_torch):
    """Rank 0 prints {size: median seconds per call} for each message size and each implementation.

    As in the OSU micro-benchmarks, each sample times a loop of back-to-back
    calls (one barrier before it), so that the ranks' skew leaving a barrier
    does not count; the samples of the contenders are interleaved.
    """
    results = {}
    if use_torch:
        os.environ.update(RANK=os.environ["PMI_RANK"], WORLD_SIZE=os.environ["PMI_SIZE"])
        torch.set_num_threads(1)
        torch_dist.init_process_group("gloo")
    dist.init_process_group("mpi")
    comm, mpi = dist.process_group.default_group().comm, dist.process_group.default_group().mpi
    for size in SIZES:
        calls = max(2, min(20, 2 ** 20 // size))  # short samples: fewer of them hit by another process
        array = np.zeros(size, np.float32)
        tensor = mt.from_numpy(array)
        contenders = {"minitorch": lambda: dist.all_reduce(tensor),
                      "mpi4py": lambda: comm.Allreduce(mpi.IN_PLACE, array)}
        if use_torch:
            twin = torch.zeros(size)
            contenders["torch"] = lambda: torch_dist.all_reduce(twin)
        times = {name: [] for name in contenders}
        for _ in range(11):
            for name, call in contenders.items():
                dist.barrier()
                start = time.perf_counter()
                for _ in range(calls):
                    call()
                times[name].append((time.perf_counter() - start) / calls)
        results[size] = {name: statistics.median(t) for name, t in times.items()}
    if dist.get_rank() == 0:
        print(json.dumps(results), flush=True)
    if use_torch:
        dist.destroy_process_group()
        mpi.Finalize()  # before end_gloo's immediate exit
        end_gloo()


def end_gloo():
    """Leaves PyTorch's gloo group; its threads sometimes abort the interpreter's exit, so exit at once."""
    torch_dist.barrier()
    torch_dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0)


# ----- the driver -----

def launch(nprocs, *worker_args, port=None):
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.access(mpiexec, os.X_OK):
        mpiexec = shutil.which("mpiexec")
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port or free_port()))
    command = [mpiexec, "-n", str(nprocs), sys.executable, os.path.abspath(__file__), "--worker", *map(str, worker_args)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bench_training(kind, frameworks, steps, rounds):
    batch = MODELS[kind]
    configs = {(fw, n, per_rank): [] for fw in frameworks
               for n, per_rank in ((1, batch), (2, batch // 2), (2, batch))}
    for _ in range(rounds):
        for (fw, n, per_rank), rates in configs.items():
            seconds = launch(n, "train", fw, kind, per_rank, steps)["seconds"]
            rates.append(n * per_rank * steps / seconds)
    print(f"\n{kind.upper()}, global batch {batch} (samples/s, median of {rounds}; efficiency = 2-proc / (2 x 1-proc))")
    print(f"  {'':10} {'1 process':>10} {'2 procs, B/2 each':>18} {'eff.':>6} {'2 procs, B each':>16} {'eff.':>6}")
    for fw in frameworks:
        one, strong, weak = (statistics.median(configs[(fw, n, b)])
                             for n, b in ((1, batch), (2, batch // 2), (2, batch)))
        print(f"  {fw:10} {one:10.0f} {strong:18.0f} {strong / (2 * one):6.2f} {weak:16.0f} {weak / (2 * one):6.2f}")


def bench_allreduce(use_torch):
    results = launch(2, "allreduce", int(use_torch))
    print("\nall-reduce (sum, in place, float32) over 2 processes: median microseconds")
    names = ["minitorch", "mpi4py"] + (["torch"] if use_torch else [])
    header = {"minitorch": "minitorch", "mpi4py": "mpi4py Allreduce", "torch": "PyTorch gloo"}
    print(f"  {'size':>8} " + " ".join(f"{header[n]:>17}" for n in names) + f" {'minitorch GB/s':>15}")
    for size, times in results.items():
        nbytes = int(size) * 4
        label = f"{nbytes // 1024} KB" if nbytes < 2 ** 20 else f"{nbytes // 2 ** 20} MB"
        print(f"  {label:>8} " + " ".join(f"{times[n] * 1e6:17.1f}" for n in names)
              + f" {nbytes / times['minitorch'] / 1e9:15.2f}")


def main():
    if sys.argv[1:2] == ["--worker"]:
        kind, args = sys.argv[2], sys.argv[3:]
        if kind == "train":
            train_worker(args[0], args[1], int(args[2]), int(args[3]))
        else:
            allreduce_worker(bool(int(args[0])))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["mlp", "cnn", "allreduce"])
    parser.add_argument("--no-torch", action="store_true")
    args = parser.parse_args()
    use_torch = torch is not None and not args.no_torch
    frameworks = ["minitorch"] + (["torch"] if use_torch else [])
    print(f"{os.cpu_count()} cores; BLAS and torch at 1 thread per process; MPI: {mpi_version()}")
    print("load average before: %.1f %.1f %.1f" % os.getloadavg())
    for kind in MODELS:
        if args.only in (None, kind):
            bench_training(kind, frameworks, args.steps, args.rounds)
    if args.only in (None, "allreduce"):
        bench_allreduce(use_torch)
    print("\nload average after: %.1f %.1f %.1f (MPI waits by polling: other load on the cores slows it down)"
          % os.getloadavg())


def mpi_version():
    done = subprocess.run([sys.executable, "-c", "from mpi4py import MPI; print(MPI.Get_library_version().splitlines()[0])"],
                          capture_output=True, text=True)
    return " ".join(done.stdout.split()) or "not found"


if __name__ == "__main__":
    main()
