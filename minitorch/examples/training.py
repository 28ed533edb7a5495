"""What the two training examples share: the command line, the data, the loop, plots and checkpoints.

mlp.py and cnn.py define only their model and recipe and call :func:`run`,
so they read like PyTorch user code. Everything here is ordinary minitorch
user code too: a DataLoader over a TensorDataset, ``model(x)``,
``loss.backward()``, ``optimizer.step()``, ``scheduler.step()`` once per batch.

Data: the images are standardised once, on the whole array (the training
split's mean and std), then wrapped in a TensorDataset, so the DataLoader
batches them with one fancy index per batch.

Determinism: ``--seed`` seeds minitorch's global generator (weights, dropout)
and the training loader's own generator (the shuffling order). A checkpoint
stores both generators' states next to the model, optimizer and scheduler, so
``--resume`` continues exactly as the uninterrupted run would have.

``--distributed`` (under ``mpiexec -n N``): each process trains a
DistributedDataParallel replica on 1/N of every batch, its share chosen by a
DistributedSampler (shuffled by seed and epoch), and evaluates 1/N of the
test set; the printed losses and accuracies are over all processes; rank 0
prints, plots and saves (the plain model's state_dict, so a checkpoint
resumes with or without it).
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import time

import numpy as np
from tqdm import tqdm

import minitorch as mt
from minitorch import nn
from minitorch.utils.data import DataLoader, DistributedSampler, Subset, TensorDataset

DATASETS = ("embedded", "fashion-mnist", "mnist", "kmnist")
CHECKPOINT_FORMAT = "minitorch-example-checkpoint-1"


@dataclasses.dataclass(frozen=True)
class Recipe:
    """An example's default hyper-parameters: Adam, a OneCycle schedule stepped every batch."""

    batch_size: int
    max_lr: float
    epochs_embedded: int  # the small embedded set needs more passes, and the default run must stay short
    epochs_full: int


@dataclasses.dataclass
class History:
    """Per-epoch numbers, kept in checkpoints so a resumed run plots the whole curve."""

    train_loss: list = dataclasses.field(default_factory=list)
    train_acc: list = dataclasses.field(default_factory=list)
    test_loss: list = dataclasses.field(default_factory=list)
    test_acc: list = dataclasses.field(default_factory=list)
    epoch_time: list = dataclasses.field(default_factory=list)

    def append(self, **values):
        for name, value in values.items():
            getattr(self, name).append(float(value))


# ----- command line -----

def parse_args(description: str, recipe: Recipe, argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--dataset", choices=DATASETS, default="embedded",
                        help="embedded: the Fashion-MNIST subset shipped with minitorch (6,000 train / 1,000 test "
                             "images, no file or network needed); the others read the standard IDX files")
    parser.add_argument("--data-dir", default=None,
                        help="where to look for the dataset's files first (default: $MINITORCH_DATA, "
                             "~/.cache/minitorch, and for Fashion-MNIST /usr/share/datasets/fashion-mnist)")
    parser.add_argument("--download", action="store_true", help="download the dataset if it is not found")
    parser.add_argument("--epochs", type=int, default=None,
                        help=f"total epochs (default: {recipe.epochs_embedded} on the embedded set, "
                             f"{recipe.epochs_full} on a full dataset)")
    parser.add_argument("--batch-size", type=int, default=recipe.batch_size)
    parser.add_argument("--lr", type=float, default=recipe.max_lr, help="peak learning rate of the OneCycle schedule")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="train on the first N training samples only")
    parser.add_argument("--test-limit", type=int, default=None, help="evaluate on the first N test samples only")
    parser.add_argument("--plot", default=None, metavar="PATH", help="write a PNG of loss and accuracy per epoch")
    parser.add_argument("--save", default=None, metavar="PATH",
                        help="write a checkpoint after every epoch (a '{epoch}' in PATH keeps one file per epoch)")
    parser.add_argument("--resume", default=None, metavar="PATH", help="continue from a checkpoint's next epoch")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--distributed", action="store_true",
                        help="one of the N processes of `mpiexec -n N`: each trains on 1/N of every batch "
                             "(DistributedDataParallel); rank 0 prints and saves")
    args = parser.parse_args(argv)
    if args.epochs is None:
        args.epochs = recipe.epochs_embedded if args.dataset == "embedded" else recipe.epochs_full
    for name in ("epochs", "batch_size", "limit", "test_limit"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be a positive integer, got {value}")
    if not args.lr > 0:
        parser.error(f"--lr must be positive, got {args.lr}")
    return args


# ----- data -----

def load_arrays(dataset: str, data_dir=None, download: bool = False):
    """(train_images, train_labels, test_images, test_labels): float32 (N, 1, 28, 28) in [0, 1], int64 (N,)."""
    if dataset == "embedded":
        train = mt.datasets.FashionMNIST(train=True, embedded=True)
        test = mt.datasets.FashionMNIST(train=False, embedded=True)
    else:
        classes = {"fashion-mnist": mt.datasets.FashionMNIST, "mnist": mt.datasets.MNIST, "kmnist": mt.datasets.KMNIST}
        cls = classes[dataset]
        train = cls(data_dir, train=True, download=download)
        test = cls(data_dir, train=False, download=download)
    return (*train.arrays(), *test.arrays())


def standardise(train_images: np.ndarray, test_images: np.ndarray):
    """Both splits shifted and scaled by the training images' mean and std (0.2860 / 0.3530 for Fashion-MNIST)."""
    mean, std = float(train_images.mean(dtype=np.float64)), float(train_images.std(dtype=np.float64))
    scale = lambda images: ((images - np.float32(mean)) / np.float32(std)).astype(np.float32)  # noqa: E731
    return scale(train_images), scale(test_images), mean, std


def make_loaders(args):
    """(train loader, test loader, the train loader's generator, (mean, std) used to standardise).

    The training loader shuffles with its own seeded generator, which is
    returned so that checkpoints can store and restore its state.
    """
    train_x, train_y, test_x, test_y = load_arrays(args.dataset, args.data_dir, args.download)
    train_x, train_y = train_x[: args.limit], train_y[: args.limit]
    test_x, test_y = test_x[: args.test_limit], test_y[: args.test_limit]
    train_x, test_x, mean, std = standardise(train_x, test_x)
    generator = np.random.default_rng(args.seed)
    train_set = TensorDataset(train_x, train_y)
    if args.distributed:
        sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
        train_loader = DataLoader(train_set, batch_size=args.batch_size // sampler.num_replicas, sampler=sampler)
    else:
        train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, generator=generator)
    test_set = TensorDataset(test_x, test_y)
    if args.distributed:  # each rank evaluates its own slice of the test set
        slices = np.array_split(np.arange(len(test_set)), sampler.num_replicas)
        test_set = Subset(test_set, slices[sampler.rank])
    test_loader = DataLoader(test_set, batch_size=1000)
    return train_loader, test_loader, generator, (mean, std)


# ----- one epoch -----

def train_one_epoch(model, loader, loss_fn, optimizer, scheduler=None, progress=None):
    """One pass over ``loader``; returns (mean loss, accuracy) over its samples."""
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    for images, labels in loader:
        logits = model(images)
        loss = loss_fn(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        batch = len(labels)
        total_loss += loss.item() * batch
        correct += int((logits.argmax(dim=1) == labels).sum().item())
        seen += batch
        if progress is not None:
            progress.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}", refresh=False)
            progress.update(batch)
    return total_loss / seen, correct / seen


def evaluate(model, loader, loss_fn):
    """(mean loss, accuracy) of ``model`` in eval mode over ``loader``, without recording gradients."""
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with mt.no_grad():
        for images, labels in loader:
            logits = model(images)
            total_loss += loss_fn(logits, labels).item() * len(labels)
            correct += int((logits.argmax(dim=1) == labels).sum().item())
            seen += len(labels)
    return total_loss / seen, correct / seen


# ----- checkpoints -----

def save_checkpoint(path, model, optimizer, scheduler, loader_generator, epoch, args, history: History):
    mt.save({
        "format": CHECKPOINT_FORMAT,
        "epoch": epoch,  # epochs completed
        "epochs": args.epochs,  # the length of the schedule the run was started with
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": None if scheduler is None else scheduler.state_dict(),
        "loader_rng": loader_generator.bit_generator.state,
        "global_rng": mt.random.generator().bit_generator.state,
        "history": dataclasses.asdict(history),
        "dataset": args.dataset, "batch_size": args.batch_size, "limit": args.limit,
    }, path)


def load_checkpoint(path, model, optimizer, scheduler, loader_generator, args):
    """Restores everything ``save_checkpoint`` wrote; returns (epochs completed, history)."""
    checkpoint = mt.load(path)
    if not isinstance(checkpoint, dict) or checkpoint.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"--resume {path}: not a checkpoint written by this example's --save")
    # A different schedule length or batch count would make the OneCycle schedule
    # (stepped per batch) run off its end, or start somewhere else in the cycle.
    for key, flag in (("epochs", "--epochs"), ("batch_size", "--batch-size"), ("limit", "--limit"),
                      ("dataset", "--dataset")):
        if checkpoint[key] != getattr(args, key):
            raise ValueError(f"--resume {path}: the checkpoint's run used {flag} {checkpoint[key]}, "
                             f"this one {getattr(args, key)}; pass {flag} {checkpoint[key]} to continue it")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    if scheduler is not None:
        scheduler.load_state_dict(checkpoint["scheduler"])
    loader_generator.bit_generator.state = checkpoint["loader_rng"]
    mt.random.generator().bit_generator.state = checkpoint["global_rng"]
    return int(checkpoint["epoch"]), History(**checkpoint["history"])


# ----- plot -----

def plot_history(history: History, path, title: str):
    """A PNG with the loss (train and test) and the accuracy (train and test) per epoch."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    epochs = np.arange(1, len(history.train_loss) + 1)
    figure, (loss_axes, acc_axes) = plt.subplots(1, 2, figsize=(10, 4))
    loss_axes.plot(epochs, history.train_loss, "o-", label="train")
    loss_axes.plot(epochs, history.test_loss, "s--", label="test")
    loss_axes.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    acc_axes.plot(epochs, history.train_acc, "o-", label="train")
    acc_axes.plot(epochs, history.test_acc, "s--", label="test")
    acc_axes.set(xlabel="epoch", ylabel="accuracy", title="Accuracy")
    for axes in (loss_axes, acc_axes):
        axes.grid(alpha=0.3)
        axes.legend()
        axes.xaxis.get_major_locator().set_params(integer=True)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


# ----- the whole run -----

@dataclasses.dataclass
class Result:
    model: nn.Module
    history: History
    start_epoch: int  # epochs already done when this run started (non-zero after --resume)
    wall_time: float


def start_distributed(args) -> int:
    """Joins the processes of ``mpiexec``; returns this one's rank. A set-up mistake: one line, exit status 2."""
    try:
        mt.distributed.init_process_group("mpi")
    except RuntimeError as error:
        print(f"--distributed: {error}", file=sys.stderr)
        sys.exit(2)
    world, rank = mt.distributed.get_world_size(), mt.distributed.get_rank()
    if args.batch_size % world:
        if rank == 0:
            print(f"--distributed: --batch-size {args.batch_size} does not split evenly over {world} processes",
                  file=sys.stderr)
        sys.exit(2)
    return rank


def global_means(values, count):
    """Means over every process's samples, from this process's means over its `count` samples."""
    totals = mt.tensor([v * count for v in values] + [count], dtype=mt.float64)
    mt.distributed.all_reduce(totals)
    return [float(t) / float(totals[-1]) for t in totals[:-1]]


def run(name: str, build_model, recipe: Recipe, argv=None, description: str = "") -> Result:
    """Parse ``argv``, train ``build_model()`` with Adam + OneCycleLR, print and return the results."""
    args = parse_args(description or name, recipe, argv)
    rank = start_distributed(args) if args.distributed else 0
    say = print if rank == 0 else (lambda *values, **options: None)
    start = time.perf_counter()
    mt.manual_seed(args.seed)  # weight initialisation and dropout
    train_loader, test_loader, loader_generator, (mean, std) = make_loaders(args)

    model = build_model()
    wrapped = nn.parallel.DistributedDataParallel(model) if args.distributed else model
    loss_fn = nn.CrossEntropyLoss()
    optimizer = mt.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                 steps_per_epoch=len(train_loader))
    history, done = History(), 0
    if args.resume:
        done, history = load_checkpoint(args.resume, model, optimizer, scheduler, loader_generator, args)
        say(f"resumed from {args.resume} after epoch {done}")

    n_params = sum(p.numel() for p in model.parameters())
    test_images = len(test_loader.dataset.dataset if args.distributed else test_loader.dataset)
    say(f"{name} ({n_params:,} parameters) on {args.dataset}: {len(train_loader.dataset):,} train / "
        f"{test_images:,} test images")
    say(f"inputs standardised (mean {mean:.4f}, std {std:.4f}); Adam + OneCycleLR(max_lr={args.lr:g}) per batch, "
        f"batch size {args.batch_size}, {args.epochs} epoch{'s' if args.epochs != 1 else ''}, seed {args.seed}")
    world = mt.distributed.get_world_size() if args.distributed else 1
    for epoch in range(done + 1, args.epochs + 1):
        epoch_start = time.perf_counter()
        if args.distributed:
            train_loader.sampler.set_epoch(epoch)
        # Under --distributed, rank 0's bar counts its share, scaled to the whole epoch.
        share = len(train_loader.sampler) if args.distributed else len(train_loader.dataset)
        with tqdm(total=share, desc=f"epoch {epoch}/{args.epochs}",
                  unit=" samples", unit_scale=world if world > 1 else False, leave=True,
                  disable=True if args.no_progress or rank != 0 else None, dynamic_ncols=True) as progress:
            train_loss, train_acc = train_one_epoch(wrapped, train_loader, loss_fn, optimizer, scheduler, progress)
        # Through DDP, evaluation runs with rank 0's BatchNorm statistics on every rank (broadcast_buffers).
        test_loss, test_acc = evaluate(wrapped, test_loader, loss_fn)
        if args.distributed:
            train_loss, train_acc = global_means((train_loss, train_acc), len(train_loader.sampler))
            test_loss, test_acc = global_means((test_loss, test_acc), len(test_loader.dataset))
        seconds = time.perf_counter() - epoch_start
        history.append(train_loss=train_loss, train_acc=train_acc, test_loss=test_loss, test_acc=test_acc,
                       epoch_time=seconds)
        say(f"epoch {epoch:>2}/{args.epochs}  train loss {train_loss:.4f}  train acc {train_acc:.4f}  "
            f"test loss {test_loss:.4f}  test acc {test_acc:.4f}  ({seconds:.1f} s)", flush=True)
        if args.save and rank == 0:
            path = args.save.replace("{epoch}", str(epoch))
            save_checkpoint(path, model, optimizer, scheduler, loader_generator, epoch, args, history)
    if args.plot and history.train_loss and rank == 0:
        plot_history(history, args.plot, f"{name} on {args.dataset}")
    wall = time.perf_counter() - start
    if history.test_acc:
        best = int(np.argmax(history.test_acc))
        trained = args.epochs - done
        per_epoch = sum(history.epoch_time[done:]) / trained if trained else math.nan
        say(f"done: final test accuracy {history.test_acc[-1]:.4f} (best {history.test_acc[best]:.4f} at epoch "
            f"{best + 1}); {trained} epochs in {wall:.1f} s, {per_epoch:.1f} s/epoch"
            + (f"; checkpoint {args.save}" if args.save else "") + (f"; plot {args.plot}" if args.plot else ""))
    return Result(model=model, history=history, start_epoch=done, wall_time=wall)
