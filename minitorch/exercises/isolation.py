"""The student's file runs in a child process, each exercise with a time limit, so that nothing in it can stop `check`.

The file is the student's code, and code being written loops forever (at its
top level or in a gradient), calls sys.exit or os._exit, or crashes the
interpreter. `check DIR` therefore loads it and checks it in a worker process
(multiprocessing's "spawn": a fresh interpreter, alike on every platform), one
exercise at a time, waiting at most `limit` seconds for each verdict, as
nbgrader and pytest-timeout do. An exercise that does not finish FAILs with
"did not finish in N s", one that ends the process FAILs with its exit status;
either way the worker is ended and a new one checks the exercises left. The
parent alone answers Ctrl-C (the worker starts with it ignored) and ends the
worker on its way out.
"""
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from pathlib import Path

from . import check, page, passing_functions
from .checks import FAIL, PASS, Verdict
from .student_file import StudentFileError, load
from .training import one_epoch

START_LIMIT = 300.0  # seconds for a fresh interpreter to import minitorch (minutes on a loaded machine, seconds else)


class TimedOut(Exception):
    """The worker gave no answer within its limit (it has been ended)."""


class Ended(Exception):
    """The worker process ended before it answered (sys.exit at the top level, os._exit, a crash)."""


def _serve(connection, path):
    """The worker: load the student's file, then answer ("check", name), ("page", verdicts, path) and
    ("train", names) until ("stop",)."""
    threading.Thread(target=_end_with_the_parent, daemon=True).start()
    connection.send(("started",))
    try:
        module = load(path)
    except StudentFileError as error:
        connection.send(("not loaded", str(error)))
        return
    connection.send(("loaded",))
    while True:
        request = connection.recv()
        if request[0] == "stop":
            return
        if request[0] == "check":
            # The file as its frames name it, so that a FAIL names the student's line
            verdict = check(module, [request[1]], Path(module.__file__))[request[1]]
            answer = ("verdict", verdict.status, verdict.message)
        elif request[0] == "page":  # the stepping page of a small network on the student's gradients
            verdicts = {name: Verdict(status, message) for name, (status, message) in request[1].items()}
            try:
                answer = ("paged", page.write(module, verdicts, request[2]))
            except OSError as error:
                answer = ("not paged", error.strerror or str(error))
        else:  # the exercises named passed in this process's checks, or in an earlier worker's
            passed = {name: Verdict(PASS, "") for name in request[1]}
            answer = ("trained", one_epoch(*passing_functions(module, passed)))
        sys.stdout.flush()  # what the student printed comes out before the parent prints the verdict
        sys.stderr.flush()
        connection.send(answer)


def _end_with_the_parent():
    """Ends the worker when its parent is gone, even killed (SIGKILL runs no cleanup there), so that a student's
    endless loop never outlives `check`; a thread of its own, since the main thread may be in that loop."""
    multiprocessing.parent_process().join()
    os._exit(1)


class Worker:
    """A worker process with the student's file loaded; :meth:`ask` a request, with a time limit."""

    def __init__(self, path, limit):
        self.path = path
        parent_end, child_end = multiprocessing.Pipe()
        self.connection = parent_end
        self.process = multiprocessing.get_context("spawn").Process(target=_serve, args=(child_end, path),
                                                                    daemon=True)
        with _interrupts_ignored():
            self.process.start()
        child_end.close()  # the parent's copy: with it closed, the worker's end reads as end-of-file here
        try:
            self._receive(START_LIMIT, "start")
            answer = self._receive(limit, "load")
        except TimedOut:
            raise StudentFileError(f"{path}: did not finish loading in {limit:g} s (a loop at its top level that "
                                   f"never ends?)") from None
        except Ended as ended:
            raise StudentFileError(f"{path}: ended the checking process while loading ({ended})") from None
        if answer[0] == "not loaded":
            self.close()
            raise StudentFileError(answer[1])

    def ask(self, request, limit):
        """The worker's answer to `request`; TimedOut or Ended (the worker is gone) if there is none."""
        try:
            self.connection.send(request)
        except OSError:
            raise self._ended() from None
        return self._receive(limit, request[0])

    def _receive(self, limit, what):
        try:
            ready = self.connection.poll(limit)
            if ready:
                return self.connection.recv()
        except EOFError:
            raise self._ended() from None
        except BaseException:  # Ctrl-C while waiting: the worker goes with the parent
            self.close()
            raise
        self.close()
        raise TimedOut(what)

    def _ended(self):
        self.process.join(5)
        code = self.process.exitcode
        self.close()
        if code is not None and code < 0:
            return Ended(f"killed by signal {signal.Signals(-code).name}")
        return Ended(f"exit status {code}")

    def close(self):
        if self.process.is_alive():
            with contextlib.suppress(OSError):
                self.connection.send(("stop",))
            self.process.join(0.5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


@contextlib.contextmanager
def _interrupts_ignored():
    """SIGINT ignored while the worker starts: it keeps that through exec, and Python then installs no
    KeyboardInterrupt handler, so a Ctrl-C (which the terminal sends to both) prints no traceback of the worker."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGINT"):
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class StudentCode:
    """The student's file, loaded in a worker: :meth:`verdict`, :meth:`page` and :meth:`train`, each within its time limit.

    A file that cannot be loaded (it raises, or does not finish within `limit`) raises StudentFileError.
    """

    def __init__(self, path, limit):
        self.path, self.limit = path, limit
        self.worker = Worker(path, limit)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._drop()

    def _drop(self):
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def _ask(self, request, limit):
        if self.worker is None:  # the last one was ended: a fresh one for what is left
            self.worker = Worker(self.path, self.limit)
        try:
            return self.worker.ask(request, limit)
        except (TimedOut, Ended):
            self.worker = None
            raise

    def verdict(self, name):
        """The Verdict on exercise `name`; FAIL if it does not finish within the limit or ends the process."""
        try:
            return Verdict(*self._ask(("check", name), self.limit)[1:])
        except TimedOut:
            return Verdict(FAIL, f"did not finish in {self.limit:g} s (a loop that never ends?)")
        except Ended as ended:
            return Verdict(FAIL, f"ended the checking process ({ended}): a gradient must return its result")

    def page(self, verdicts, path):
        """Writes the stepping page of a small network on the student's gradients (exercises/page.py); returns the
        first step where they differ from minitorch's, or None. OSError if the file cannot be written; TimedOut
        or Ended if the worker gives no answer within the limit."""
        request = ("page", {name: (v.status, v.message) for name, v in verdicts.items()}, str(path))
        answer = self._ask(request, self.limit)
        if answer[0] == "not paged":
            raise OSError(answer[1])
        return answer[1]

    def train(self, names, limit):
        """Test accuracy of one MLP epoch with the student's functions for the exercises `names` (which passed).

        Raises TimedOut or Ended if the epoch does not finish within `limit` seconds.
        """
        return self._ask(("train", list(names)), limit)[1]
