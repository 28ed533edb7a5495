"""The command line: `start DIR`, `check DIR [NAME ...]`, `list`. A mistake is one line and exit status 2;
Ctrl-C is one line and exit status 130. `check` runs the student's file in a worker process (isolation.py)."""
import argparse
import sys
import time
from pathlib import Path

from ..examples.cli import UsageError
from .catalogue import BY_NAME, EXERCISES, GROUPS
from .checks import PASS
from .isolation import Ended, StudentCode, TimedOut
from .student_file import FILE_NAME, StudentFileError, render, require
from .training import MLP_EXERCISES, one_epoch

PROG = "python -m minitorch.exercises"
COMMANDS = "start DIR, check DIR [NAME ...], list"
TIMEOUT = 30.0  # seconds per exercise: the slowest right one (conv2d) takes under a second
TRAINING_ALLOWANCE = 10  # the student's epoch may take --timeout plus this many times minitorch's


class _Parser(argparse.ArgumentParser):
    """Errors as UsageError; a command's options and positionals in any order (`check work --no-train mul`).

    argparse alone gives `names` nothing once an option follows the directory;
    parse_intermixed_args fixes that, but refuses a parser with subcommands, so a
    subcommand's parser (which argparse calls through parse_known_args) uses it.
    """

    _intermixing = False

    def error(self, message):
        raise UsageError(message)

    def parse_known_args(self, args=None, namespace=None):
        if self._subparsers is not None or self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a positive number of seconds, got {text!r}")
    return value


def _parser():
    parser = _Parser(prog=PROG, description="Write the gradients and the reverse pass yourself; check them.")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    start = commands.add_parser("start", help="write DIR/gradients.py with a stub per exercise")
    start.add_argument("directory", help="where to write gradients.py (made if missing)")
    start.add_argument("--force", action="store_true", help="overwrite an existing gradients.py")
    check_command = commands.add_parser("check", help="check DIR/gradients.py, then train the MLP on it")
    check_command.add_argument("directory")
    check_command.add_argument("names", nargs="*", metavar="NAME", help="exercises to check (default: all)")
    check_command.add_argument("--no-train", action="store_true", help="skip the one-epoch MLP training at the end")
    check_command.add_argument("--timeout", type=_seconds, metavar="SECONDS", default=TIMEOUT,
                               help="an exercise that takes longer FAILs (default: %(default)g); the training run "
                                    f"on your gradients may take this plus {TRAINING_ALLOWANCE} times minitorch's")
    check_command.add_argument("--html", metavar="PATH", help="also write a page that steps through a small network's "
                                                             "reverse pass on your gradients")
    commands.add_parser("list", help="the exercises, by group")
    return parser


def main(argv=None, out=None):
    """Runs the command line; returns the exit status (0: done / all checked pass, 1: some do not, 2: a mistake,
    130: interrupted by Ctrl-C).

    >>> main(["check", "no/such/dir", "nonsense"])
    2
    """
    out = out or sys.stdout
    try:
        args = _parser().parse_args(argv)
        if args.command is None:
            raise UsageError(f"give a command: {COMMANDS} (--help says more)")
        if args.command == "start":
            return _write_exercises(Path(args.directory), args.force, out)
        if args.command == "list":
            return _list(out)
        return _check(Path(args.directory), args.names, not args.no_train, args.timeout, out, args.html)
    except (UsageError, StudentFileError) as error:
        print(f"{PROG}: error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def _write_exercises(directory, force, out):
    path = directory / FILE_NAME
    if path.exists() and not path.is_file():  # a folder, or a FIFO, which writing would wait on forever
        raise UsageError(f"{path} is not a regular file")
    if path.exists() and not force:
        raise UsageError(f"{path} exists: your work would be lost (pass --force to overwrite it)")
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is a file, not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(render(directory))
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
    print(f"wrote {path}: {len(EXERCISES)} exercises, each a function that raises NotImplementedError.", file=out)
    print(f"Fill them in (docs/exercises.md explains each), then: {PROG} check {directory}", file=out)
    return 0


def _list(out):
    for group, title in GROUPS.items():
        print(title, file=out)
        for exercise in EXERCISES:
            if exercise.group == group:
                print(f"  {exercise.name:<14} {exercise.function}({exercise.signature})", file=out)
    return 0


def _check(directory, names, train, limit, out, html=None):
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise UsageError(f"unknown exercise {unknown[0]!r} (choose from {', '.join(BY_NAME)})")
    if not directory.is_dir():
        raise UsageError(f"no directory {directory}: run `{PROG} start {directory}` first")
    path = directory / FILE_NAME
    require(path)
    with StudentCode(path, limit) as code:
        print(f"checking {path}", file=out, flush=True)
        verdicts = {}
        for exercise in EXERCISES:
            if names and exercise.name not in names:
                continue
            if not any(BY_NAME[name].group == exercise.group for name in verdicts):
                print(GROUPS[exercise.group], file=out)
            verdict = verdicts[exercise.name] = code.verdict(exercise.name)
            print(f"  {exercise.name:<14} {verdict.status}  {verdict.message}", file=out, flush=True)
        passed = sum(v.status == PASS for v in verdicts.values())
        print(f"{passed} of {len(verdicts)} pass", file=out, flush=True)
        if html:
            _write_page(code, verdicts, html, out)
        trained = _train_with_your_gradients(code, verdicts, out) if train else True
    return 0 if passed == len(verdicts) and trained else 1


def _write_page(code, verdicts, path, out):
    try:
        marked = code.page(verdicts, path)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    except TimedOut:
        print(f"wrote no page: your gradients did not finish the small network's pass in {code.limit:g} s", file=out)
        return
    except Ended as ended:
        print(f"wrote no page: your gradients ended the checking process ({ended})", file=out)
        return
    where = f"; step {marked} is the first where yours differ from minitorch's" if marked else "; they agree with minitorch's"
    print(f"wrote {path}: a small network's reverse pass on your gradients, step by step{where}", file=out)


def _train_with_your_gradients(code, verdicts, out):
    """Trains on minitorch's gradients, then on the student's that passed; False if the student's run did not end."""
    used = [name for name in MLP_EXERCISES if verdicts.get(name) is not None and verdicts[name].status == PASS]
    print("training the MLP example (784-256-128-10) for one epoch on 6,000 images:", file=out)
    start = time.perf_counter()
    builtin = one_epoch()
    builtin_seconds = time.perf_counter() - start
    print(f"  minitorch's gradients  test accuracy {builtin:.4f}  ({builtin_seconds:.1f} s)", file=out, flush=True)
    if not used:
        print(f"  yours: nothing to train with yet (the MLP needs {', '.join(MLP_EXERCISES)})", file=out)
        return True
    limit = code.limit + TRAINING_ALLOWANCE * builtin_seconds  # a loaded machine slows both runs alike
    start = time.perf_counter()
    mine = ", ".join(used)
    try:
        yours = code.train(used, limit)
    except TimedOut:
        print(f"  your gradients         did not finish the epoch in {limit:.0f} s (--timeout plus "
              f"{TRAINING_ALLOWANCE} times minitorch's; yours: {mine})", file=out)
        return False
    except Ended as ended:
        print(f"  your gradients         ended the training process ({ended}; yours: {mine})", file=out)
        return False
    print(f"  your gradients         test accuracy {yours:.4f}  ({time.perf_counter() - start:.1f} s; yours: {mine})",
          file=out)
    return True
