"""The command line: `start DIR`, `check DIR [NAME ...]`, `list`. A mistake is one line and exit status 2."""
import argparse
import sys
import time
from pathlib import Path

from . import check, page, passing_functions
from .catalogue import BY_NAME, EXERCISES, GROUPS
from .checks import PASS
from .student_file import FILE_NAME, StudentFileError, load, render
from .training import MLP_EXERCISES, one_epoch

PROG = "python -m minitorch.exercises"


class UsageError(Exception):
    """A mistake on the command line or in the files it names: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def _parser():
    parser = _Parser(prog=PROG, description="Write the gradients and the reverse pass yourself; check them.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    start = commands.add_parser("start", help="write DIR/gradients.py with a stub per exercise")
    start.add_argument("directory", help="where to write gradients.py (made if missing)")
    start.add_argument("--force", action="store_true", help="overwrite an existing gradients.py")
    check_command = commands.add_parser("check", help="check DIR/gradients.py, then train the MLP on it")
    check_command.add_argument("directory")
    check_command.add_argument("names", nargs="*", metavar="NAME", help="exercises to check (default: all)")
    check_command.add_argument("--no-train", action="store_true", help="skip the one-epoch MLP training at the end")
    check_command.add_argument("--html", metavar="PATH", help="also write a page that steps through a small network's "
                                                             "reverse pass on your gradients")
    commands.add_parser("list", help="the exercises, by group")
    return parser


def main(argv=None, out=None):
    """Runs the command line; returns the exit status (0: done / all checked pass, 1: some do not, 2: a mistake).

    >>> main(["check", "no/such/dir", "nonsense"])
    2
    """
    out = out or sys.stdout
    try:
        args = _parser().parse_args(argv)
        if args.command == "start":
            return _start(Path(args.directory), args.force, out)
        if args.command == "list":
            return _list(out)
        return _check(Path(args.directory), args.names, not args.no_train, out, args.html)
    except (UsageError, StudentFileError) as error:
        print(f"{PROG}: error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2


def _start(directory, force, out):
    path = directory / FILE_NAME
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


def _check(directory, names, train, out, html=None):
    unknown = [name for name in names if name not in BY_NAME]
    if unknown:
        raise UsageError(f"unknown exercise {unknown[0]!r} (choose from {', '.join(BY_NAME)})")
    if not directory.is_dir():
        raise UsageError(f"no directory {directory}: run `{PROG} start {directory}` first")
    path = directory / FILE_NAME
    module = load(path)
    print(f"checking {path}", file=out)
    verdicts = check(module, names or None, path.resolve())
    for group, title in GROUPS.items():
        shown = [(name, v) for name, v in verdicts.items() if BY_NAME[name].group == group]
        if shown:
            print(title, file=out)
        for name, verdict in shown:
            print(f"  {name:<14} {verdict.status}  {verdict.message}", file=out)
    passed = sum(v.status == PASS for v in verdicts.values())
    print(f"{passed} of {len(verdicts)} pass", file=out)
    if html:
        _write_page(module, verdicts, html, out)
    if train:
        _train(module, verdicts, out)
    return 0 if passed == len(verdicts) else 1


def _write_page(module, verdicts, path, out):
    try:
        marked = page.write(module, verdicts, path)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
    where = f"; step {marked} is the first where yours differ from minitorch's" if marked else "; they agree with minitorch's"
    print(f"wrote {path}: a small network's reverse pass on your gradients, step by step{where}", file=out)


def _train(module, verdicts, out):
    gradients, reverse_pass = passing_functions(module, verdicts)
    used = [name for name in MLP_EXERCISES if verdicts.get(name) is not None and verdicts[name].status == PASS]
    print("training the MLP example (784-256-128-10) for one epoch on 6,000 images:", file=out)
    start = time.perf_counter()
    builtin = one_epoch()
    print(f"  minitorch's gradients  test accuracy {builtin:.4f}  ({time.perf_counter() - start:.1f} s)", file=out)
    if not used:
        print(f"  yours: nothing to train with yet (the MLP needs {', '.join(MLP_EXERCISES)})", file=out)
        return
    start = time.perf_counter()
    yours = one_epoch(gradients, reverse_pass)
    mine = ", ".join(used)
    print(f"  your gradients         test accuracy {yours:.4f}  ({time.perf_counter() - start:.1f} s; yours: {mine})",
          file=out)
