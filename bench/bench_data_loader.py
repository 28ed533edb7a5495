"""DataLoader throughput: seconds per epoch with num_workers=0 and 2, minitorch and PyTorch in the same run.

Two workloads of 6,000 28x28 images, batches of 128, shuffled:
- "arrays": a TensorDataset (minitorch batches it with one fancy index per batch);
- "per sample": a map-style data set whose __getitem__ crops, flips and
  normalises one image in numpy (about what a torchvision transform costs),
  collated by default_collate.
Worker runs use persistent workers, so an epoch excludes the start-up, which
is timed separately (first epoch of a fresh loader). Medians of interleaved
epochs; the load average is printed, since other work on the machine moves
every figure.

    OMP_NUM_THREADS=1 python bench/bench_data_loader.py
"""
import os
import statistics
import time

import numpy as np

import minitorch as mt
from minitorch.utils import data as mt_data

try:
    import torch
    from torch.utils import data as torch_data
except ImportError:
    torch = torch_data = None

N, BATCH, EPOCHS = 6000, 128, 5
IMAGES = np.random.default_rng(0).random((N, 1, 28, 28), dtype=np.float32)
LABELS = np.random.default_rng(1).integers(0, 10, N)


def augmented(module):
    class Augmented(module.Dataset):
        """A random 24x24 crop, a random flip and normalisation per sample, in numpy."""

        def __len__(self):
            return N

        def __getitem__(self, i):
            rng = np.random.default_rng(i)
            top, left = rng.integers(0, 5, 2)
            image = IMAGES[i, :, top:top + 24, left:left + 24]
            if rng.random() < 0.5:
                image = image[:, :, ::-1]
            return (image - 0.5) / 0.25, int(LABELS[i])

    return Augmented()


def loaders(module, lib):
    arrays = module.TensorDataset(lib.tensor(IMAGES), lib.tensor(LABELS))
    made = {}
    for name, dataset in (("arrays", arrays), ("per sample", augmented(module))):
        for workers in (0, 2):
            options = dict(num_workers=workers, persistent_workers=True) if workers else {}
            made[(name, workers)] = lambda dataset=dataset, options=options: module.DataLoader(
                dataset, batch_size=BATCH, shuffle=True, **options)
    return made


def epoch_seconds(loader):
    start = time.perf_counter()
    for _ in loader:
        pass
    return time.perf_counter() - start


def main():
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    frameworks = [("minitorch", loaders(mt_data, mt))]
    if torch is not None:
        torch.set_num_threads(1)
        frameworks.append(("PyTorch", loaders(torch_data, torch)))
    results = {}
    for key in frameworks[0][1]:
        built = {name: made[key]() for name, made in frameworks}
        start_up = {name: epoch_seconds(loader) for name, loader in built.items()}  # includes starting workers
        samples = {name: [] for name in built}
        for _ in range(EPOCHS):
            for name, loader in built.items():
                samples[name].append(epoch_seconds(loader))
        results[key] = {name: (statistics.median(times), start_up[name]) for name, times in samples.items()}
        del built
    print(f"{'workload':12s} {'workers':>7s} " + " ".join(f"{name + ' s/epoch':>18s}" for name, _ in frameworks)
          + ("  ratio" if len(frameworks) == 2 else "") + "   first epoch (with start-up)")
    for (workload, workers), by_name in results.items():
        medians = [by_name[name][0] for name, _ in frameworks]
        ratio = f"  {medians[0] / medians[1]:5.2f}" if len(medians) == 2 else ""
        firsts = " / ".join(f"{by_name[name][1]:.3f}" for name, _ in frameworks)
        print(f"{workload:12s} {workers:7d} " + " ".join(f"{m:18.3f}" for m in medians) + ratio + f"   {firsts}")


if __name__ == "__main__":
    main()
