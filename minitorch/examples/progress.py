"""One line per epoch, as Keras prints it: a live bar while the epoch trains, then the finished bar with its results.

    epoch  3/10 ━━━━━━━━━━━ 2.61s 2.31k img/s loss 0.4123/0.4411 acc 0.8530/0.8420

The finished line carries the epoch's time (training and testing), the training
speed, and the loss and accuracy as train/test. Lines fit 80 columns; a test
evaluation that takes more than half a second (the full 10,000-image test
sets) gets its own bar, which disappears when done. ``tqdm.auto`` gives
notebooks widgets. Without a terminal (a log file, a pipe), in a terminal
narrower than the line or one that reports no size (0 x 0, as `script -c`
and some CI ptys do: tqdm would draw nothing), or with --no-progress, there
are no bars, and the same line is printed at the end of each epoch.
"""
from __future__ import annotations

import os
import sys

from tqdm.auto import tqdm
from tqdm.notebook import tqdm_notebook

WIDTH = 80
LIVE_FORMAT = "{desc} {bar} {percentage:3.0f}% {elapsed}<{remaining} {rate_fmt}{postfix}"
UNIT = " img"
LEGEND = "per epoch: time (train+test), training speed, loss and accuracy as train/test"


def bars_wanted(no_progress: bool) -> bool:
    """Bars in a notebook, or in a terminal that has room for the epoch's line; never in a log file or a pipe, and
    never with --no-progress.

    >>> bars_wanted(no_progress=True)
    False
    """
    if no_progress:
        return False
    if issubclass(tqdm, tqdm_notebook):
        return True
    if not sys.stderr.isatty():
        return False
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except OSError:
        return False
    # tqdm cuts its line to the terminal's width, and draws nothing in a terminal of 0 rows (a new pty reports
    # 0 x 0 until it is told its size: `script -c`, some CI runners).
    return size.lines > 0 and size.columns >= WIDTH


def _columns():
    # A notebook widget takes ncols as pixels: leave its width alone.
    return None if issubclass(tqdm, tqdm_notebook) else WIDTH


def duration(seconds: float) -> str:
    """``0.28s`` or ``12.6s`` under a minute, ``01:23`` or ``1:02:03`` above.

    >>> duration(0.284), duration(12.61), duration(83.2)
    ('0.28s', '12.6s', '01:23')
    """
    if seconds < 10:
        return f"{seconds:.2f}s"
    return f"{seconds:.1f}s" if seconds < 60 else tqdm.format_interval(seconds)


def epoch_results(seconds, images_per_second, train_loss, train_acc, test_loss, test_acc) -> str:
    """What the finished epoch line says after its label and bar.

    >>> epoch_results(2.61, 2310.4, 0.41234, 0.853, 0.44111, 0.842)
    '2.61s 2.31k img/s loss 0.4123/0.4411 acc 0.8530/0.8420'
    """
    return (f"{duration(seconds)} {tqdm.format_sizeof(images_per_second)}{UNIT}/s "
            f"loss {train_loss:.4f}/{test_loss:.4f} acc {train_acc:.4f}/{test_acc:.4f}")


class EpochProgress:
    """The display of one epoch: :meth:`trained` after each batch, :meth:`testing` for the test pass, :meth:`finish`.

    >>> import io
    >>> out = io.StringIO()
    >>> progress = EpochProgress("epoch 1/1", train_size=64, enabled=False, out=out)
    >>> progress.trained(64, loss=0.7, acc=0.5)
    >>> progress.finish("0.1s 640 img/s loss 0.7000/0.6000 acc 0.5000/0.6000")
    >>> out.getvalue()
    'epoch 1/1 0.1s 640 img/s loss 0.7000/0.6000 acc 0.5000/0.6000\\n'
    """

    def __init__(self, label: str, train_size: int, enabled: bool, out=None, bar_file=None):
        self.label, self.enabled = label, enabled
        self.out = out if out is not None else sys.stdout
        self.bar_file = bar_file
        self.bar = tqdm(total=train_size, desc=label, unit=UNIT, unit_scale=True, bar_format=LIVE_FORMAT,
                        ncols=_columns(), leave=True, disable=not enabled, file=bar_file)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.bar.close()  # an exception (Ctrl-C) leaves the bar's line as it was, with the cursor on the next one

    def trained(self, batch: int, loss: float, acc: float) -> None:
        """``batch`` more images trained; ``loss`` and ``acc`` are the epoch's running means."""
        self.bar.set_postfix_str(f"loss {loss:.4f} acc {acc:.4f}", refresh=False)
        self.bar.update(batch)

    def testing(self, test_size: int):
        """A bar for the test pass, shown only if it lasts over half a second and erased when it ends."""
        self.bar.refresh()  # the training bar's last batch, which tqdm's rate limit may not have drawn yet
        return tqdm(total=test_size, desc="test", unit=UNIT, unit_scale=True, bar_format=LIVE_FORMAT,
                    ncols=_columns(), leave=False, delay=0.5, disable=not self.enabled, file=self.bar_file)

    def finish(self, results: str) -> None:
        """Turn the bar into the epoch's line with ``results`` (or print that line, without bars)."""
        if not self.enabled:
            print(f"{self.label} {results}", file=self.out, flush=True)
            return
        self.bar.bar_format = "{desc} {bar} " + results.replace("{", "{{").replace("}", "}}")
        self.bar.close()
