"""What the two training examples share: the data, the loop, the plot, and run(), which drives them.

mlp.py and cnn.py define only their model and recipe and call :func:`run`,
so they read like PyTorch user code. Everything here is ordinary minitorch
user code too: a DataLoader over a TensorDataset, ``model(x)``,
``loss.backward()``, ``optimizer.step()``, ``scheduler.step()`` once per batch.
The command line is in cli.py, checkpoints in checkpoint.py, the per-epoch
display in progress.py.

Order of work: the command line's paths (an output's folder is tried by
creating and removing a file in it), the --resume checkpoint (read and
checked field by field, its weights loaded into the model) and the data set
are all checked before the first batch trains; any mistake is one line and
exit status 2, and so is a checkpoint or a plot that cannot be written when
the time comes (a full disk). Ctrl-C is one line too, naming the epoch it
stopped and the last checkpoint that resumes the run, and exit status 130.

Data: the images are standardised once, on the whole array (the training
split's mean and std), then wrapped in a TensorDataset, so the DataLoader
batches them with one fancy index per batch.

Determinism: ``--seed`` seeds minitorch's global generator (weights, dropout)
and the training loader's own generator (the shuffling order). A checkpoint
stores both generators' states next to the model, optimizer and scheduler, so
``--resume`` continues exactly as the uninterrupted run would have.

``--distributed`` (under ``mpiexec -n N``): each process trains a
DistributedDataParallel replica on 1/N of every batch, its share chosen by a
DistributedSampler (shuffled by seed and epoch, the same order on every
rank), and evaluates 1/N of the test set; the losses and accuracies printed
are over all processes; rank 0 alone prints, plots and saves (the plain
model's state_dict, so a checkpoint resumes with or without
``--distributed``). Without mpiexec it is a world of one process, which takes
the same steps as N processes do.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import textwrap
import time
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

import minitorch as mt
from minitorch import nn
from minitorch.datasets import DatasetNotFoundError, DownloadError, IDXFormatError
from minitorch.files import atomic_write
from minitorch.utils.data import DataLoader, DistributedSampler, Subset, TensorDataset

from . import checkpoint as checkpoints
from .checkpoint import Cycle, History
from .cli import UsageError, check_paths, one_line, parse_training_args, training_parser
from .progress import LEGEND, WIDTH, EpochProgress, bars_wanted, epoch_results

DATASET_CLASSES = {"fashion-mnist": mt.datasets.FashionMNIST, "mnist": mt.datasets.MNIST, "kmnist": mt.datasets.KMNIST}


@dataclasses.dataclass(frozen=True)
class Recipe:
    """An example's default hyper-parameters: Adam, a OneCycle schedule stepped every batch.

    >>> Recipe(batch_size=128, max_lr=2e-3, epochs_embedded=10, epochs_full=10).max_lr
    0.002
    """

    batch_size: int
    max_lr: float
    epochs_embedded: int  # the small embedded set needs more passes, and the default run must stay short
    epochs_full: int


# ----- data -----

def load_arrays(dataset: str, data_dir=None, download: bool = False):
    """(train_images, train_labels, test_images, test_labels): float32 (N, 1, 28, 28) in [0, 1], int64 (N,).

    >>> train_images, train_labels, test_images, test_labels = load_arrays("embedded")
    >>> train_images.shape, test_labels.dtype
    ((6000, 1, 28, 28), dtype('int64'))
    """
    if dataset == "embedded":
        train = mt.datasets.FashionMNIST(train=True, embedded=True)
        test = mt.datasets.FashionMNIST(train=False, embedded=True)
    else:
        cls = DATASET_CLASSES[dataset]
        train = cls(data_dir, train=True, download=download)
        test = cls(data_dir, train=False, download=download)
    return (*_as_tensor_images(train), *_as_tensor_images(test))


def _as_tensor_images(dataset):
    """The split's images as ToTensor() makes them, all at once: float32 (N, 1, 28, 28) in [0, 1]; and its labels."""
    images, labels = dataset.arrays()
    return images[:, None].astype(np.float32) / np.float32(255), labels


def standardise(train_images: np.ndarray, test_images: np.ndarray):
    """Both splits shifted and scaled by the training images' mean and std (0.2860 / 0.3530 for Fashion-MNIST).

    >>> train, test, mean, std = standardise(np.array([0.0, 1.0], np.float32), np.array([0.5], np.float32))
    >>> train.tolist(), test.tolist(), mean, std
    ([-1.0, 1.0], [0.0], 0.5, 0.5)
    """
    mean, std = float(train_images.mean(dtype=np.float64)), float(train_images.std(dtype=np.float64))
    scale = lambda images: ((images - np.float32(mean)) / np.float32(std)).astype(np.float32)  # noqa: E731
    return scale(train_images), scale(test_images), mean, std


def _not_found(args: argparse.Namespace) -> str:
    cls = DATASET_CLASSES[args.dataset]
    looked = ", ".join(str(d) for d in cls.search_dirs(args.data_dir))
    extra = "; or apt-get install dataset-fashion-mnist" if args.dataset == "fashion-mnist" else ""
    return (f"--dataset {args.dataset}: the {cls.__name__} IDX files (train-images-idx3-ubyte[.gz] and three more) "
            f"are in none of {looked}; pass --download to fetch them into {cls.download_dir(args.data_dir)}, "
            f"or --data-dir DIR where they are{extra}")


def make_loaders(args: argparse.Namespace):
    """(train loader, test loader, the train loader's generator, (mean, std) used to standardise).

    The training loader shuffles with its own seeded generator, which is
    returned so that checkpoints can store and restore its state. A data set
    that is missing, cannot be downloaded or is damaged is a UsageError.
    With ``args.distributed``, this process's share: every N-th sample of each
    shuffled epoch (a DistributedSampler, batches of batch_size / N) and its
    1/N slice of the test set.

    >>> args = argparse.Namespace(dataset="embedded", data_dir=None, download=False, limit=256, test_limit=100,
    ...                           batch_size=64, seed=0)
    >>> train_loader, test_loader, generator, (mean, std) = make_loaders(args)
    >>> len(train_loader), len(test_loader.dataset), round(mean, 2)
    (4, 100, 0.28)
    """
    try:
        train_x, train_y, test_x, test_y = load_arrays(args.dataset, args.data_dir, args.download)
    except DatasetNotFoundError as error:
        raise UsageError(_not_found(args)) from error
    except DownloadError as error:
        raise UsageError(f"--download: {error}") from error
    except IDXFormatError as error:
        raise UsageError(f"--dataset {args.dataset}: {error}") from error
    train_x, train_y = train_x[: args.limit], train_y[: args.limit]
    test_x, test_y = test_x[: args.test_limit], test_y[: args.test_limit]
    train_x, test_x, mean, std = standardise(train_x, test_x)
    generator = np.random.default_rng(args.seed)
    train_set, test_set = TensorDataset(train_x, train_y), TensorDataset(test_x, test_y)
    if getattr(args, "distributed", False):
        sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
        train_loader = DataLoader(train_set, batch_size=share_of_batch(args.batch_size, sampler.num_replicas),
                                  sampler=sampler)
        test_set = Subset(test_set, np.array_split(np.arange(len(test_set)), sampler.num_replicas)[sampler.rank])
    else:
        train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, generator=generator)
    test_loader = DataLoader(test_set, batch_size=1000)
    return train_loader, test_loader, generator, (mean, std)


# ----- one epoch -----

def train_one_epoch(model, loader, loss_fn, optimizer, scheduler=None, on_batch=None):
    """One pass over ``loader``; returns (mean loss, accuracy). ``on_batch(size, mean loss, accuracy)`` after each batch.

    >>> model = nn.Linear(2, 2)
    >>> loader = DataLoader(TensorDataset(np.eye(2, dtype=np.float32), np.array([0, 1])), batch_size=2)
    >>> optimizer = mt.optim.SGD(model.parameters(), lr=0.1)
    >>> loss, accuracy = train_one_epoch(model, loader, nn.CrossEntropyLoss(), optimizer)
    >>> 0 < loss < 2 and accuracy in (0.0, 0.5, 1.0)
    True
    """
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
        if on_batch is not None:
            on_batch(batch, total_loss / seen, correct / seen)
    return total_loss / seen, correct / seen


def evaluate(model, loader, loss_fn, on_batch=None):
    """(mean loss, accuracy) of ``model`` in eval mode over ``loader``, without recording gradients.

    >>> model = nn.Linear(2, 2)
    >>> loader = DataLoader(TensorDataset(np.eye(2, dtype=np.float32), np.array([0, 1])), batch_size=2)
    >>> loss, accuracy = evaluate(model, loader, nn.CrossEntropyLoss())
    >>> accuracy in (0.0, 0.5, 1.0)
    True
    """
    model.eval()
    total_loss, correct, seen = 0.0, 0, 0
    with mt.no_grad():
        for images, labels in loader:
            logits = model(images)
            total_loss += loss_fn(logits, labels).item() * len(labels)
            correct += int((logits.argmax(dim=1) == labels).sum().item())
            seen += len(labels)
            if on_batch is not None:
                on_batch(len(labels))
    return total_loss / seen, correct / seen


# ----- plot -----

def history_figure(history: History, title: str) -> Figure:
    """Loss (train and test) and accuracy (train and test) per epoch, whole epochs on the x axis.

    >>> figure = history_figure(History([0.5], [0.8], [0.6], [0.75], [1.0]), "one epoch")
    >>> low, high = map(float, figure.axes[0].get_xlim())
    >>> low, high, [int(tick) for tick in figure.axes[0].get_xticks() if low <= tick <= high]
    (0.5, 1.5, [1])
    """
    epochs = np.arange(1, len(history.train_loss) + 1)
    figure = Figure(figsize=(10, 4))  # no pyplot: no display or global backend needed
    loss_axes, acc_axes = figure.subplots(1, 2)
    loss_axes.plot(epochs, history.train_loss, "o-", label="train")
    loss_axes.plot(epochs, history.test_loss, "s--", label="test")
    loss_axes.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    acc_axes.plot(epochs, history.train_acc, "o-", label="train")
    acc_axes.plot(epochs, history.test_acc, "s--", label="test")
    acc_axes.set(xlabel="epoch", ylabel="accuracy", title="Accuracy")
    for axes in (loss_axes, acc_axes):
        axes.grid(alpha=0.3)
        axes.legend()
        # Half an epoch of margin: matplotlib would stretch a single point over 0.96-1.04.
        axes.set_xlim(0.5, len(epochs) + 0.5)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    figure.suptitle(title)
    figure.tight_layout()
    return figure


# ----- several processes (--distributed) -----

def _start_distributed(args: argparse.Namespace) -> tuple[int, int]:
    """Joins the processes of ``mpiexec`` (a world of one without it); returns (rank, world size).

    A set-up mistake (no MPI, a batch that does not split evenly) is a UsageError.
    """
    if not mt.distributed.is_initialized():
        try:
            mt.distributed.init_process_group("mpi")
        except (RuntimeError, ValueError) as error:
            raise UsageError(f"--distributed: {error}") from error
    rank, world = mt.distributed.get_rank(), mt.distributed.get_world_size()
    share_of_batch(args.batch_size, world)
    return rank, world


def share_of_batch(batch_size: int, world: int) -> int:
    """Each process's part of a batch of ``batch_size`` split over ``world`` processes; UsageError if uneven.

    >>> share_of_batch(128, 2)
    64
    >>> share_of_batch(33, 2)
    Traceback (most recent call last):
        ...
    minitorch.examples.cli.UsageError: --distributed: --batch-size 33 does not split evenly over 2 processes
    """
    if batch_size % world:
        raise UsageError(f"--distributed: --batch-size {batch_size} does not split evenly over {world} processes")
    return batch_size // world


def _global_means(values, count: int) -> list[float]:
    """Means over every process's samples, from this process's means over its ``count`` samples."""
    totals = mt.tensor([v * count for v in values] + [count], dtype=mt.float64)
    mt.distributed.all_reduce(totals)
    return [float(t) / float(totals[-1]) for t in totals[:-1]]


def _quiet(*values, **options):
    """print() for ranks other than 0."""


# ----- the whole run -----

@dataclasses.dataclass
class Whereabouts:
    """How far a run got, for the line Ctrl-C prints: the epoch in progress, the last checkpoint written.

    >>> Whereabouts(epoch=3, epochs=10, checkpoint="mlp.safetensors").interrupted()
    'interrupted during epoch 3 of 10; the last checkpoint is mlp.safetensors: `--resume mlp.safetensors` continues'
    """

    epoch: int | None = None  # None: before the first epoch of this run
    epochs: int = 0
    checkpoint: str | None = None  # the last one written, or the one this run resumed
    finished: bool = False

    def interrupted(self) -> str:
        if self.finished:
            when = "after the last epoch"
        elif self.epoch is None:
            when = "before the first epoch"
        else:
            when = f"during epoch {self.epoch} of {self.epochs}"
        if self.checkpoint is None:
            return f"interrupted {when}"
        return f"interrupted {when}; the last checkpoint is {self.checkpoint}: `--resume {self.checkpoint}` continues"


@dataclasses.dataclass
class Result:
    """What :func:`run` returns: the trained model, the whole history (a resumed run's earlier epochs too)."""

    model: nn.Module
    history: History
    start_epoch: int  # epochs already done when this run started (non-zero after --resume)
    wall_time: float


def run(name: str, build_model, recipe: Recipe, argv=None, *, prog: str, description: str) -> Result:
    """Parse ``argv``, train ``build_model()`` with Adam + OneCycleLR, print and return the results.

    A mistake in the command line or the files it names exits with status 2 and one line on stderr.

    >>> linear = lambda: nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
    >>> result = run("linear", linear, Recipe(batch_size=32, max_lr=1e-2, epochs_embedded=2, epochs_full=2),
    ...              ["--limit", "64", "--test-limit", "32", "--no-progress"], prog="demo", description="A demo.")
    linear: 7,850 parameters
    embedded: 64 train / 32 test images, mean ..., std ...
    Adam + OneCycleLR(max_lr=0.01) per batch, batch size 32, 2 epochs, seed 0
    per epoch: ...
    epoch 1/2 ...
    epoch 2/2 ...
    done: final test accuracy ...
    2 epochs in ...
    >>> len(result.history.test_acc), result.start_epoch
    (2, 0)
    """
    parser = training_parser(prog, description, recipe)
    args = parse_training_args(parser, recipe, argv)
    where = Whereabouts(epochs=args.epochs, checkpoint=args.resume)
    try:
        return _train(name, build_model, args, where)
    except UsageError as error:
        _exit(parser, args, 2, f"{prog}: error: {one_line(str(error))}")
    except KeyboardInterrupt:
        _exit(parser, args, 130, f"{prog}: {where.interrupted()}")


def _exit(parser, args: argparse.Namespace, status: int, line: str):
    if args.distributed and mt.distributed.is_initialized() and mt.distributed.get_rank() != 0:
        parser.exit(status)  # every rank stops; rank 0 says why
    parser.exit(status, line + "\n")


def _one_cycle(optimizer, args, cycle: Cycle, steps_per_epoch: int):
    return mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=cycle.epochs,
                                            steps_per_epoch=steps_per_epoch)


def _train(name: str, build_model, args: argparse.Namespace, where: Whereabouts) -> Result:
    start = time.perf_counter()
    rank, world = _start_distributed(args) if args.distributed else (0, 1)
    say = print if rank == 0 else _quiet
    check_paths(args)
    resumed, cycle, notes = None, Cycle(0, args.epochs), []
    if args.resume:
        try:
            resumed = checkpoints.read_checkpoint(args.resume, name)
        except mt.CheckpointError as error:
            raise UsageError(f"--resume {error}") from error
        cycle, notes = checkpoints.plan_resume(resumed, args)

    mt.manual_seed(args.seed)  # weight initialisation and dropout
    model = build_model()
    loss_fn = nn.CrossEntropyLoss()
    if resumed:
        try:
            checkpoints.restore_model(resumed, model)
        except mt.CheckpointError as error:
            raise UsageError(f"--resume {error}") from error
    # DDP starts every rank from rank 0's weights; the optimizer and checkpoints hold the plain model's.
    trained = nn.parallel.DistributedDataParallel(model) if args.distributed else model
    train_loader, test_loader, loader_generator, (mean, std) = make_loaders(args)
    train_images = len(train_loader.dataset)
    test_images = len(test_loader.dataset.dataset) if args.distributed else len(test_loader.dataset)
    steps = len(train_loader)
    optimizer = mt.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = _one_cycle(optimizer, args, cycle, steps)
    history, done = History(), 0
    if resumed:
        try:
            checkpoints.restore_training(resumed, optimizer, scheduler, loader_generator, steps)
        except mt.CheckpointError as error:
            raise UsageError(f"--resume {error}") from error
        history, done = resumed.history, resumed.epoch

    n_params = sum(p.numel() for p in model.parameters())
    plural = "s" if args.epochs != 1 else ""
    say(f"{name}: {n_params:,} parameters")
    say(f"{args.dataset}: {train_images:,} train / {test_images:,} test images, mean {mean:.4f}, std {std:.4f}")
    say(f"Adam + OneCycleLR(max_lr={args.lr:g}) per batch, batch size {args.batch_size}"
        + (f" ({share_of_batch(args.batch_size, world)} on each of {world} processes)" if world > 1 else "")
        + f", {args.epochs} epoch{plural}, seed {args.seed}")
    say(LEGEND)
    for note in notes:
        say(textwrap.fill(note, WIDTH, subsequent_indent="  "))
    bars = bars_wanted(args.no_progress) and rank == 0
    for epoch in range(done + 1, args.epochs + 1):
        if epoch > cycle.end:
            cycle = Cycle(cycle.end, args.epochs)
            scheduler = _one_cycle(optimizer, args, cycle, steps)
        where.epoch = epoch
        epoch_start = time.perf_counter()
        if args.distributed:
            train_loader.sampler.set_epoch(epoch)
        with EpochProgress(f"epoch {epoch:>{len(str(args.epochs))}}/{args.epochs}", train_images,
                           enabled=bars, out=None if rank == 0 else io.StringIO()) as progress:
            # Rank 0's bars count its own share times the number of processes: the whole epoch.
            train_loss, train_acc = train_one_epoch(trained, train_loader, loss_fn, optimizer, scheduler,
                                                    lambda size, loss, acc: progress.trained(size * world, loss, acc))
            train_seconds = time.perf_counter() - epoch_start
            with progress.testing(test_images) as test_bar:
                # Through DDP, every rank evaluates with rank 0's BatchNorm statistics (broadcast_buffers).
                test_loss, test_acc = evaluate(trained, test_loader, loss_fn,
                                               lambda size: test_bar.update(size * world))
            if args.distributed:
                train_loss, train_acc = _global_means((train_loss, train_acc), len(train_loader.sampler))
                test_loss, test_acc = _global_means((test_loss, test_acc), len(test_loader.dataset))
            seconds = time.perf_counter() - epoch_start
            history.append(train_loss=train_loss, train_acc=train_acc, test_loss=test_loss, test_acc=test_acc,
                           epoch_time=seconds)
            progress.finish(epoch_results(seconds, train_images / train_seconds, train_loss, train_acc, test_loss,
                                          test_acc))
        if args.save and rank == 0:
            path = args.save.replace("{epoch}", str(epoch))
            with _written("--save", path, where):
                checkpoints.save_checkpoint(path, example=name, model=model, optimizer=optimizer, scheduler=scheduler,
                                            loader_generator=loader_generator, epoch=epoch, cycle=cycle, args=args,
                                            history=history)
            where.checkpoint = path
    where.finished = True
    if args.plot and history.train_loss and rank == 0:
        figure = history_figure(history, f"{name} on {args.dataset}")
        with _written("--plot", args.plot, where), atomic_write(args.plot) as out:
            figure.savefig(out, dpi=100, format=Path(args.plot).suffix.lstrip(".").lower() or "png")
    wall = time.perf_counter() - start
    if rank == 0:
        _print_summary(args, history, done, wall)
    return Result(model=model, history=history, start_epoch=done, wall_time=wall)


@contextlib.contextmanager
def _written(flag: str, path: str, where: Whereabouts):
    """A write that fails when the time comes (a full disk, a folder gone) as a UsageError: one line, status 2."""
    try:
        yield
    except OSError as error:
        last = f"; the last checkpoint is {where.checkpoint}" if where.checkpoint and flag == "--save" else ""
        raise UsageError(f"{flag} {path}: cannot write it: {error.strerror or error}{last}") from None


def _print_summary(args: argparse.Namespace, history: History, done: int, wall: float) -> None:
    if not history.test_acc:
        return
    best = int(np.argmax(history.test_acc))
    trained = args.epochs - done
    print(f"done: final test accuracy {history.test_acc[-1]:.4f} (best {history.test_acc[best]:.4f} "
          f"at epoch {best + 1})")
    if trained:
        per_epoch = sum(history.epoch_time[done:]) / trained
        print(f"{trained} epoch{'s' if trained != 1 else ''} in {wall:.1f} s, {per_epoch:.2f} s/epoch")
    for flag, path in (("checkpoint", args.save), ("plot", args.plot)):
        if path:
            print(f"{flag}: {path}")
