"""Writing a file so that it is complete or absent: a temporary file beside it, renamed over it when complete.

`atomic_write(path)` serves `mt.save`, the examples' checkpoints and the
dataset downloads; `check_writable_path(path)` lets a command find out before its
work whether the write at the end can happen.

A write killed mid-way (SIGKILL, OOM killer, power cut) leaves its temporary file
behind. The next write into the same folder removes such leftovers, but only files
this code named (".minitorch-save.<pid>.<host>.<random>.tmp") and only stale ones:
  - written by a process of this host that no longer exists (checked with
    kill(pid, 0), POSIX only), or by this very process but not by a write still
    running in it (the pid of a killed run is often reused, e.g. PID 1 in a container).
    The host name is in the file name because pids only mean something on their own
    host (containers get their own host name by default; two pid namespaces sharing a
    folder under one host name would defeat this rule);
  - or not modified for _ABANDONED_AFTER seconds, whatever wrote it. This covers
    writers on other hosts sharing the folder (their pids mean nothing here) and pids
    reused by unrelated processes. A live writer touches its file as it writes, so an
    hour without change means it is gone; the margin also absorbs clock skew between
    hosts on a network file system. Deleting a live writer's file would not corrupt
    anything (its rename fails), but it would fail that write, so this errs on the
    side of keeping files.
The leftovers of this code's earlier naming for a write of NAME (".NAME.<12 hex digits>.part")
are removed by the next write of NAME once untouched for _ABANDONED_AFTER seconds. Other
namings (".tmp-*.safetensors") are left alone: other programs may use similar names.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import socket
import stat
import time

__all__ = ["atomic_write", "check_writable_path"]

_TEMP_PREFIX = ".minitorch-save"
_TEMP_NAME = re.compile(r"\.minitorch-save\.(?P<pid>[0-9]+)\.(?P<host>[A-Za-z0-9_-]*)\.[0-9a-f]{16}\.tmp")
_ABANDONED_AFTER = 3600.0  # seconds without a write before any of our temp files counts as stale
_writes_in_progress = set()  # temp file paths this process is writing right now (any thread)

_KINDS = {stat.S_IFIFO: "FIFO", stat.S_IFCHR: "character device", stat.S_IFBLK: "block device",
          stat.S_IFSOCK: "socket"}


@contextlib.contextmanager
def atomic_write(path, *, sync: bool = True):
    """Open a temporary binary file next to ``path``; when the block ends without an exception it replaces ``path``.

    A crash or an exception mid-write leaves ``path`` as it was and removes the
    temporary file; a killed write's temporary file is removed by a later one
    (see the module's docstring). The file gets the permissions ``open(path, "wb")``
    (and ``torch.save``) would give it: those of the file it replaces, else 0o666
    minus the umask, where ``tempfile.mkstemp`` would impose 0o600. A symlink is
    written through, as ``open`` does. A ``path`` that exists and is not a regular
    file (a folder, a FIFO, a device) is refused: a rename would replace it.
    ``sync``: the data reaches the disk before the rename, so that a power cut
    leaves the old file or the new one, never an empty one.

    >>> with atomic_write("greeting.txt") as f:
    ...     _ = f.write(b"hello")
    >>> open("greeting.txt", "rb").read()
    b'hello'
    >>> with atomic_write("greeting.txt") as f:
    ...     _ = f.write(b"half a gree")
    ...     raise ValueError("interrupted")
    Traceback (most recent call last):
        ...
    ValueError: interrupted
    >>> open("greeting.txt", "rb").read()
    b'hello'
    """
    target = _target(path)
    directory = os.path.dirname(target)
    _remove_stale_temp_files(directory, os.path.basename(target))
    descriptor, temporary = _create_temp_file(directory, path)
    try:
        with os.fdopen(descriptor, "wb") as out:
            if os.path.exists(target):
                os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
            yield out
            out.flush()
            if sync:
                os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    finally:
        _writes_in_progress.discard(temporary)


def check_writable_path(path) -> None:
    """Raises the OSError that writing ``path`` with :func:`atomic_write` would meet in its folder, before the work
    whose result it will hold: a missing folder, a target that is not a regular file, a folder that refuses a new
    file (permissions, a read-only file system, /proc). A full disk shows only when the data is written.

    >>> check_writable_path("no-such-folder/model.safetensors")
    Traceback (most recent call last):
        ...
    FileNotFoundError: [Errno 2] the folder 'no-such-folder' does not exist: 'no-such-folder/model.safetensors'
    """
    target = _target(path)
    descriptor, temporary = _create_temp_file(os.path.dirname(target), path)
    os.close(descriptor)
    os.unlink(temporary)
    _writes_in_progress.discard(temporary)


def _target(path) -> str:
    """The file a write of ``path`` replaces (through symlinks), after the checks that need no writing."""
    path = os.fsdecode(path)
    target = os.path.realpath(path)  # write through a symlink, as open(path, "wb") does
    if not os.path.isdir(os.path.dirname(target)):
        folder = os.path.dirname(path) or "."
        raise FileNotFoundError(errno.ENOENT, f"the folder {folder!r} does not exist", path)
    with contextlib.suppress(FileNotFoundError):
        mode = os.stat(target).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder: give a file name", path)
        if not stat.S_ISREG(mode):
            kind = _KINDS.get(stat.S_IFMT(mode), "special file")
            raise FileExistsError(errno.EEXIST, f"is a {kind}, not a regular file: writing would replace it", path)
    return target


def _host_tag() -> str:
    """This host's name, reduced to characters that cannot break the temp file name."""
    return re.sub(r"[^A-Za-z0-9-]", "_", socket.gethostname())[:63]


def _create_temp_file(directory, path):
    """(fd, path) of a new file named for `_TEMP_NAME`, with the permissions `open()` gives (0666 minus umask).

    The path joins `_writes_in_progress` before the file exists, so a write in another
    thread never sees it unregistered and removes it. An error names `path`, the file being written.
    """
    for _ in range(100):
        name = f"{_TEMP_PREFIX}.{os.getpid()}.{_host_tag()}.{secrets.token_hex(8)}.tmp"
        temp = os.path.join(directory, name)
        _writes_in_progress.add(temp)
        try:
            # O_EXCL: never write through a file (or symlink) someone else put there; the kernel applies the umask.
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), temp
        except FileExistsError:
            _writes_in_progress.discard(temp)
        except OSError as error:  # permissions, a read-only file system, /proc: same error class, about `path`
            _writes_in_progress.discard(temp)
            raise type(error)(error.errno, f"cannot create a file in the folder {directory!r}: {error.strerror}",
                              os.fsdecode(path)) from None
        except BaseException:
            _writes_in_progress.discard(temp)
            raise
    raise FileExistsError(errno.EEXIST, "could not create a unique temporary file", os.fsdecode(path))


def _remove_stale_temp_files(directory, name):
    """Deletes the stale temp files of killed writes in `directory` (see above); never fails the write."""
    now = time.time()
    earlier_naming = re.compile(rf"\.{re.escape(name)}\.[0-9a-f]{{12}}\.part")
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        earlier = match is None and earlier_naming.fullmatch(entry.name) is not None
        if match is None and not earlier:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            age = now - info.st_mtime
            stale = age > _ABANDONED_AFTER if earlier else _is_stale(entry.path, match, age)
            if stat.S_ISREG(info.st_mode) and stale:
                os.unlink(entry.path)
        except OSError:  # already removed by another write, or not ours to remove
            continue


def _is_stale(path, match, seconds_since_write):
    if seconds_since_write > _ABANDONED_AFTER:
        return True
    if match["host"] != _host_tag() or os.name != "posix":
        return False
    pid = int(match["pid"])
    if pid == os.getpid():
        return path not in _writes_in_progress
    return not _process_exists(pid)


def _process_exists(pid):
    try:
        os.kill(pid, 0)  # signal 0: only checks that the process exists
    except (ProcessLookupError, OverflowError):  # no such process; a pid no process can have
        return False
    except PermissionError:  # it exists, owned by another user
        return True
    return True
