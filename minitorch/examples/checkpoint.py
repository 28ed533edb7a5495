"""The training examples' checkpoints: what --save writes, and what --resume checks before trusting one.

A checkpoint is an ``mt.save`` file with the model, optimizer and scheduler
states, both random generators' states (weights/dropout and shuffling), the
per-epoch history, and the settings that fix the schedule's shape. Reading one
checks every field's presence, type and range, so a damaged or foreign file ends
in one ``CheckpointError`` naming it, never in a KeyError halfway through.

OneCycle schedules have a fixed length, so a run is a series of cycles: the
first spans epochs 1..--epochs. Resuming with a larger --epochs lets the
current cycle finish, then starts a new cycle (warm-up to --lr, then annealing)
over the extra epochs; ``Cycle`` records the one in progress.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import reprlib

import numpy as np

import minitorch as mt
from minitorch.files import atomic_write

from .cli import UsageError, one_line

FORMAT = "minitorch-example-checkpoint-2"
FORMAT_1 = "minitorch-example-checkpoint-1"  # before extension: one cycle over all epochs, no lr or example recorded
DAMAGED = "damaged training state"


@dataclasses.dataclass
class History:
    """Per-epoch numbers, kept in checkpoints so a resumed run plots the whole curve.

    >>> history = History()
    >>> history.append(train_loss=0.5, train_acc=0.8, test_loss=0.6, test_acc=0.75, epoch_time=2.0)
    >>> history.test_acc
    [0.75]
    """

    train_loss: list = dataclasses.field(default_factory=list)
    train_acc: list = dataclasses.field(default_factory=list)
    test_loss: list = dataclasses.field(default_factory=list)
    test_acc: list = dataclasses.field(default_factory=list)
    epoch_time: list = dataclasses.field(default_factory=list)

    def append(self, **values):
        for name, value in values.items():
            getattr(self, name).append(float(value))


@dataclasses.dataclass(frozen=True)
class Cycle:
    """The OneCycle schedule in progress: it started after epoch ``start`` and ends with epoch ``end``.

    >>> Cycle(start=3, end=5).epochs
    2
    """

    start: int
    end: int

    @property
    def epochs(self) -> int:
        return self.end - self.start


@dataclasses.dataclass
class Checkpoint:
    """A checkpoint that passed every check of :func:`read_checkpoint`."""

    path: str
    epoch: int  # epochs completed
    epochs: int  # the run's total when it was saved
    cycle: Cycle
    lr: float | None
    settings: dict  # dataset, batch_size, limit: they fix the number of steps per epoch
    history: History
    states: dict  # model, optimizer, scheduler, loader_rng, global_rng


def save_checkpoint(path, *, example, model, optimizer, scheduler, loader_generator, epoch, cycle, args, history):
    """Write everything a resumed run needs to retrace this one exactly (atomically, with the umask's permissions).

    >>> import argparse
    >>> model = mt.nn.Linear(2, 2)
    >>> optimizer = mt.optim.Adam(model.parameters(), lr=0.1)
    >>> scheduler = mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4)
    >>> args = argparse.Namespace(epochs=2, lr=0.1, dataset="embedded", batch_size=32, limit=None)
    >>> save_checkpoint("run.safetensors", example="demo", model=model, optimizer=optimizer, scheduler=scheduler,
    ...                 loader_generator=np.random.default_rng(0), epoch=1, cycle=Cycle(0, 2), args=args,
    ...                 history=History([0.5], [0.8], [0.6], [0.75], [1.0]))
    >>> read_checkpoint("run.safetensors", "demo").cycle
    Cycle(start=0, end=2)
    """
    state = {
        "format": FORMAT, "example": example,
        "epoch": epoch, "epochs": args.epochs, "cycle_start": cycle.start, "cycle_end": cycle.end, "lr": args.lr,
        "dataset": args.dataset, "batch_size": args.batch_size, "limit": args.limit,
        "model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
        "loader_rng": loader_generator.bit_generator.state,
        "global_rng": mt.random.generator().bit_generator.state,
        "history": dataclasses.asdict(history),
    }
    with atomic_write(path) as out:
        mt.save(state, out)


def read_checkpoint(path, example: str) -> Checkpoint:
    """Load ``path`` and check it field by field; raises CheckpointError naming the file.

    >>> mt.save({"format": FORMAT, "example": "demo", "epoch": "two"}, "damaged.safetensors")
    >>> read_checkpoint("damaged.safetensors", "demo")
    Traceback (most recent call last):
        ...
    minitorch...CheckpointError: damaged.safetensors: damaged training state: 'epoch' should be a count of epochs, found 'two'
    """
    raw = mt.load(path)
    if not isinstance(raw, dict) or raw.get("format") not in (FORMAT, FORMAT_1):
        raise mt.CheckpointError(f"{path}: not a checkpoint written by the examples' --save")
    if raw["format"] == FORMAT_1:
        raw = {"cycle_start": 0, "cycle_end": raw.get("epochs"), "lr": None, "example": example, **raw}
    field = _FieldReader(raw, path)
    if field("example", lambda v: isinstance(v, str), "a string") != example:
        raise mt.CheckpointError(f"{path}: written by the {raw['example']} example, not {example}")
    epoch = field("epoch", lambda v: _is_int(v) and v >= 0, "a count of epochs")
    epochs = field("epochs", lambda v: _is_int(v) and v >= max(epoch, 1), f"a count of epochs >= {max(epoch, 1)}")
    start = field("cycle_start", lambda v: _is_int(v) and 0 <= v <= epoch, f"an epoch between 0 and {epoch}")
    end = field("cycle_end", lambda v: _is_int(v) and max(start + 1, epoch) <= v <= epochs,
                f"an epoch between {max(start + 1, epoch)} and {epochs}")
    lr = field("lr", lambda v: v is None or (_is_number(v) and v > 0), "a positive number")
    settings = {
        "dataset": field("dataset", lambda v: isinstance(v, str), "a dataset name"),
        "batch_size": field("batch_size", lambda v: _is_int(v) and v >= 1, "a positive integer"),
        "limit": field("limit", lambda v: v is None or (_is_int(v) and v >= 1), "None or a positive integer"),
    }
    history = field("history", lambda v: _is_history(v, epoch), f"per-epoch lists of {epoch} numbers")
    states = {
        "model": field("model", lambda v: isinstance(v, dict) and all(isinstance(t, mt.Tensor) for t in v.values()),
                       "a state_dict of tensors"),
        "optimizer": field("optimizer", lambda v: isinstance(v, dict) and isinstance(v.get("state"), dict)
                           and isinstance(v.get("param_groups"), list), "an optimizer state_dict"),
        "scheduler": field("scheduler", lambda v: isinstance(v, dict), "a scheduler state_dict"),
        "loader_rng": field("loader_rng", _is_generator_state, "a numpy PCG64 generator state"),
        "global_rng": field("global_rng", _is_generator_state, "a numpy PCG64 generator state"),
    }
    return Checkpoint(path=str(path), epoch=epoch, epochs=epochs, cycle=Cycle(start, end), lr=lr, settings=settings,
                      history=History(**history), states=states)


class _FieldReader:
    def __init__(self, raw, path):
        self.raw, self.path = raw, path

    def __call__(self, key, valid, expected):
        if key not in self.raw:
            raise mt.CheckpointError(f"{self.path}: {DAMAGED}: '{key}' is missing")
        value = self.raw[key]
        if not valid(value):
            raise mt.CheckpointError(f"{self.path}: {DAMAGED}: '{key}' should be {expected}, "
                                     f"found {reprlib.repr(value)}")
        return value


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_history(value, epochs: int) -> bool:
    names = [f.name for f in dataclasses.fields(History)]
    return (isinstance(value, dict) and sorted(value) == sorted(names)
            and all(isinstance(value[n], list) and len(value[n]) == epochs and all(map(_is_number, value[n]))
                    for n in names))


def _is_generator_state(value) -> bool:
    trial = np.random.PCG64()
    try:
        trial.state = value
    except (TypeError, ValueError, KeyError, OverflowError):
        return False
    return True


# ----- resuming -----

def plan_resume(checkpoint: Checkpoint, args: argparse.Namespace) -> tuple[Cycle, list[str]]:
    """The cycle to continue and what to tell the user; UsageError when this command line cannot continue it.

    >>> import argparse
    >>> finished = Checkpoint("run.safetensors", epoch=3, epochs=3, cycle=Cycle(0, 3), lr=0.002, history=History(),
    ...                       settings={"dataset": "embedded", "batch_size": 128, "limit": None}, states={})
    >>> args = argparse.Namespace(epochs=5, lr=0.002, dataset="embedded", batch_size=128, limit=None)
    >>> cycle, notes = plan_resume(finished, args)
    >>> cycle, notes[1][:58]
    (Cycle(start=0, end=3), 'extending the run to 5 epochs: its OneCycle schedule ended')
    """
    path, done, cycle = checkpoint.path, checkpoint.epoch, checkpoint.cycle
    for key, flag in (("dataset", "--dataset"), ("batch_size", "--batch-size"), ("limit", "--limit")):
        saved = checkpoint.settings[key]
        if saved != getattr(args, key):
            # Another batch count per epoch would shift the per-batch OneCycle schedule.
            raise UsageError(f"--resume {path}: the checkpoint's run used {flag} {saved}, this one "
                             f"{getattr(args, key)}; pass {flag} {saved} to continue it")
    if args.epochs < done:
        raise UsageError(f"--resume {path}: the checkpoint has already trained {done} epochs; "
                         f"pass --epochs {done} or more")
    if done < cycle.end:
        if args.epochs < cycle.end:
            raise UsageError(f"--epochs {args.epochs} would stop inside the checkpoint's OneCycle schedule, which "
                             f"runs to epoch {cycle.end}; pass --epochs {cycle.end} to finish it, or more to extend")
        if checkpoint.lr is not None and not math.isclose(args.lr, checkpoint.lr):
            raise UsageError(f"--resume {path}: the checkpoint's OneCycle schedule peaks at --lr {checkpoint.lr:g}; "
                             f"pass --lr {checkpoint.lr:g} to continue it")
    notes = [f"resumed from {path} after epoch {done} of {checkpoint.epochs}"]
    if args.epochs == done:
        notes.append(f"nothing to train: the run has done all {done} epochs (a larger --epochs extends it)")
    elif args.epochs > cycle.end:
        before = (f"its OneCycle schedule first finishes (epochs {done + 1}-{cycle.end}), then" if done < cycle.end
                  else f"its OneCycle schedule ended at epoch {cycle.end} with the learning rate annealed to ~0, so")
        notes.append(f"extending the run to {args.epochs} epochs: {before} a new OneCycle cycle warms up again to "
                     f"--lr {args.lr:g} and anneals over epochs {cycle.end + 1}-{args.epochs}")
    return cycle, notes


def restore_model(checkpoint: Checkpoint, model) -> None:
    """Load the checkpoint's weights into ``model``; CheckpointError if they do not fit it.

    >>> wider = Checkpoint("run.safetensors", 1, 1, Cycle(0, 1), None, {}, History(),
    ...                    states={"model": mt.nn.Linear(2, 3).state_dict()})
    >>> restore_model(wider, mt.nn.Linear(2, 2))
    Traceback (most recent call last):
        ...
    minitorch...CheckpointError: run.safetensors: its model does not fit this one: ...size mismatch for weight...
    """
    try:
        model.load_state_dict(checkpoint.states["model"])
    except (RuntimeError, KeyError, TypeError, ValueError) as error:
        raise mt.CheckpointError(f"{checkpoint.path}: its model does not fit this one: {one_line(str(error))}") from error


def restore_training(checkpoint: Checkpoint, optimizer, scheduler, loader_generator, steps_per_epoch: int) -> None:
    """Load the optimizer, scheduler and both generators; CheckpointError if a state is damaged or does not fit.

    >>> optimizer = mt.optim.Adam(mt.nn.Linear(2, 2).parameters(), lr=0.1)
    >>> scheduler = mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4)
    >>> damaged = Checkpoint("run.safetensors", 1, 2, Cycle(0, 2), 0.1, {}, History(),
    ...                      states={"optimizer": optimizer.state_dict(), "scheduler": {"last_epoch": 2}})
    >>> restore_training(damaged, optimizer, scheduler, np.random.default_rng(0), steps_per_epoch=2)
    Traceback (most recent call last):
        ...
    minitorch...CheckpointError: run.safetensors: damaged training state: the scheduler state is not a OneCycleLR's ...
    """
    path, states = checkpoint.path, checkpoint.states
    fresh_scheduler = scheduler.state_dict()
    try:
        optimizer.load_state_dict(states["optimizer"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        raise mt.CheckpointError(f"{path}: {DAMAGED}: the optimizer state does not load: {one_line(str(error))}") \
            from error
    for parameter, state in optimizer.state.items():
        for name, value in state.items():
            if isinstance(value, mt.Tensor) and value.ndim and tuple(value.shape) != tuple(parameter.shape):
                raise mt.CheckpointError(f"{path}: {DAMAGED}: optimizer '{name}' of shape {tuple(value.shape)} "
                                         f"for a parameter of shape {tuple(parameter.shape)}")
    saved_scheduler = states["scheduler"]
    mismatched = [key for key, value in fresh_scheduler.items()
                  if key not in saved_scheduler or type(saved_scheduler[key]) is not type(value)]
    if mismatched or set(saved_scheduler) != set(fresh_scheduler):
        raise mt.CheckpointError(f"{path}: {DAMAGED}: the scheduler state is not a OneCycleLR's "
                                 f"(bad or missing {', '.join(mismatched) or 'keys'})")
    steps_done = (checkpoint.epoch - checkpoint.cycle.start) * steps_per_epoch
    if (saved_scheduler["total_steps"], saved_scheduler["last_epoch"]) != (fresh_scheduler["total_steps"], steps_done):
        raise mt.CheckpointError(f"{path}: {DAMAGED}: its scheduler is at step {saved_scheduler['last_epoch']} of "
                                 f"{saved_scheduler['total_steps']}, expected {steps_done} of "
                                 f"{fresh_scheduler['total_steps']} for this data set")
    scheduler.load_state_dict(saved_scheduler)
    loader_generator.bit_generator.state = states["loader_rng"]
    mt.random.generator().bit_generator.state = states["global_rng"]
