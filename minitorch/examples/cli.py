"""The training examples' command line: options with their defaults shown, and every mistake reported on one line.

A mistake (a bad option, a folder that does not exist, a damaged --resume
file, a dataset that is not there) ends the program with exit status 2 and a
single line on stderr, ``python -m minitorch.examples.mlp: error: ...``, as
argparse does but without the multi-line usage. The checks on paths run before
anything is loaded or trained, so a typo costs no training time.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from matplotlib.backend_bases import FigureCanvasBase

from minitorch.files import check_writable_path

DATASETS = ("embedded", "fashion-mnist", "mnist", "kmnist")


class UsageError(Exception):
    """A mistake in the command line or in a file it names: printed as one line, exit status 2.

    >>> str(UsageError("--plot out/curves.png: folder out does not exist"))
    '--plot out/curves.png: folder out does not exist'
    """


def one_line(text: str) -> str:
    """``text`` with its lines joined, for messages (a state_dict error, a download failure) that span several.

    >>> one_line("Error(s) in loading state_dict:\\n\\tsize mismatch for fc1.weight")
    'Error(s) in loading state_dict: size mismatch for fc1.weight'
    """
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (argparse prints the whole usage block first).

    >>> import contextlib, io
    >>> parser = OneLineParser(prog="demo")
    >>> with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.suppress(SystemExit):
    ...     parser.parse_args(["--bogus"])
    >>> err.getvalue()
    'demo: error: unrecognized arguments: --bogus (--help lists the options)\\n'
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {one_line(message)} (--help lists the options)\n")


def example_parser(prog: str, description: str) -> OneLineParser:
    """The parser of an example: usage as ``python -m minitorch.examples.NAME``, the module docstring as help.

    >>> example_parser("python -m minitorch.examples.demo", "A demo.").format_usage()
    'usage: python -m minitorch.examples.demo [-h]\\n'
    """
    return OneLineParser(prog=prog, description=description, formatter_class=argparse.RawDescriptionHelpFormatter)


def training_parser(prog: str, description: str, recipe) -> OneLineParser:
    """The options shared by the training examples (mlp, cnn), with ``recipe``'s defaults.

    >>> from minitorch.examples.mlp import RECIPE
    >>> parser = training_parser("python -m minitorch.examples.mlp", "An MLP.", RECIPE)
    >>> parser.parse_args(["--epochs", "3"]).epochs, parser.get_default("batch_size")
    (3, 128)
    """
    parser = example_parser(prog, description)
    add = parser.add_argument
    add("--dataset", choices=DATASETS, default="embedded",
        help="embedded: the Fashion-MNIST subset shipped with minitorch (6,000 train / 1,000 test images, no file or "
             "network needed); the others read the standard IDX files (default: %(default)s)")
    add("--data-dir", metavar="DIR", default=None,
        help="look for the dataset's files here first (default: $MINITORCH_DATA, then ~/.cache/minitorch, and for "
             "fashion-mnist /usr/share/datasets/fashion-mnist)")
    add("--download", action="store_true",
        help="fetch the dataset's files (MD5-checked) into --data-dir or the cache if they are not found (default: off)")
    epochs = (f"{recipe.epochs_embedded}" if recipe.epochs_embedded == recipe.epochs_full else
              f"{recipe.epochs_embedded} on the embedded set, {recipe.epochs_full} on a full one")
    add("--epochs", type=int, metavar="N", default=None,
        help=f"total epochs, counting those a --resume checkpoint has done (default: {epochs})")
    add("--batch-size", type=int, metavar="N", default=recipe.batch_size, help="(default: %(default)s)")
    add("--lr", type=float, default=recipe.max_lr,
        help="peak learning rate of the OneCycle schedule, stepped every batch (default: %(default)s)")
    add("--seed", type=int, default=0, help="seeds the weights and the shuffling order (default: %(default)s)")
    add("--limit", type=int, metavar="N", default=None, help="train on the first N training images only (default: all)")
    add("--test-limit", type=int, metavar="N", default=None, help="test on the first N test images only (default: all)")
    add("--plot", metavar="PATH", default=None,
        help="write a figure of loss and accuracy per epoch; PNG, or any format matplotlib knows by the extension "
             "(default: none)")
    add("--save", metavar="PATH", default=None,
        help="write a checkpoint after every epoch; a '{epoch}' in PATH keeps one file per epoch (default: none)")
    add("--resume", metavar="PATH", default=None,
        help="continue from a checkpoint of --save; a larger --epochs extends the run: a finished OneCycle schedule "
             "is followed by a new cycle over the extra epochs (default: none)")
    add("--no-progress", action="store_true", help="no progress bars: one plain line per epoch (default: off)")
    add("--distributed", action="store_true",
        help="be one of the N processes of `mpiexec -n N python -m ...`: each trains a DistributedDataParallel "
             "replica on 1/N of every batch and tests 1/N of the test set; losses and accuracies are over all of "
             "them; rank 0 prints, plots and saves (default: off)")
    return parser


def parse_training_args(parser: OneLineParser, recipe, argv=None) -> argparse.Namespace:
    """Parse ``argv``, fill in the epoch default, and refuse values no run can use (one line, exit status 2).

    >>> from minitorch.examples.cnn import RECIPE
    >>> parser = training_parser("python -m minitorch.examples.cnn", "A CNN.", RECIPE)
    >>> parse_training_args(parser, RECIPE, ["--dataset", "mnist"]).epochs
    5
    """
    args = parser.parse_args(argv)
    if args.epochs is None:
        args.epochs = recipe.epochs_embedded if args.dataset == "embedded" else recipe.epochs_full
    for name in ("epochs", "batch_size", "limit", "test_limit"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be a positive integer, got {value}")
    if not args.lr > 0:
        parser.error(f"--lr must be positive, got {args.lr}")
    if args.dataset == "embedded" and (args.download or args.data_dir is not None):
        flag = "--download" if args.download else "--data-dir"
        parser.error(f"{flag} applies to --dataset fashion-mnist, mnist or kmnist; the embedded set needs no files")
    return args


def check_paths(args: argparse.Namespace) -> None:
    """Raise UsageError, before any work, for a path the run would fail on later (after training, for --plot).

    >>> import argparse
    >>> check_paths(argparse.Namespace(plot="out/curves.png", save=None, resume=None, data_dir=None))
    Traceback (most recent call last):
        ...
    minitorch.examples.cli.UsageError: --plot out/curves.png: the folder 'out' does not exist
    """
    if args.plot is not None:
        check_figure_path("--plot", args.plot)
    if args.save is not None:
        check_output("--save", args.save.replace("{epoch}", "1"), shown=args.save)
    if args.resume is not None and not Path(args.resume).is_file():
        path = Path(args.resume)
        problem = "is a folder" if path.is_dir() else "is not a regular file" if path.exists() else "no such file"
        raise UsageError(f"--resume {args.resume}: {problem}")
    if args.data_dir is not None:
        data_dir = Path(args.data_dir).expanduser()
        if data_dir.exists() and not data_dir.is_dir():
            raise UsageError(f"--data-dir {args.data_dir}: not a folder")
        if not data_dir.exists() and not args.download:
            raise UsageError(f"--data-dir {args.data_dir}: no such folder (add --download to create it and fetch "
                             f"the {args.dataset} files into it)")


def check_figure_path(flag: str, path: str) -> None:
    """UsageError unless a figure can be written to ``path``: a format matplotlib knows, a place to write it.

    >>> check_figure_path("--out", "graph.xyz")
    Traceback (most recent call last):
        ...
    minitorch.examples.cli.UsageError: --out graph.xyz: matplotlib cannot write .xyz files (it writes ..., png, ...)
    """
    extension = Path(path).suffix.lstrip(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if extension and extension not in formats:
        raise UsageError(f"{flag} {path}: matplotlib cannot write .{extension} files "
                         f"(it writes {', '.join(sorted(formats))})")
    check_output(flag, path)


def check_output(flag: str, path: str, shown: str | None = None) -> None:
    """UsageError unless ``path`` can be written (atomically) when the time comes: its folder exists and takes a
    new file, and ``path`` is not a folder, a FIFO or a device, which a write would replace.

    >>> check_output("--save", "/proc/model.safetensors")
    Traceback (most recent call last):
        ...
    minitorch.examples.cli.UsageError: --save /proc/model.safetensors: cannot create a file in the folder '/proc': ...
    """
    try:
        check_writable_path(path)
    except OSError as error:
        raise UsageError(f"{flag} {shown or path}: {error.strerror}") from None
