"""Writing a file so that it is either complete or absent, with the permissions ``open()`` would give it."""
from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write"]


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike):
    """Open a temporary binary file next to ``path``; when the block ends without an exception it replaces ``path``.

    A crash or an exception mid-write leaves ``path`` as it was and removes the
    temporary file. The file gets the permissions ``open(path, "wb")`` (and
    ``torch.save``) would give it: those of the file it replaces, else 0o666
    minus the umask, where ``tempfile.mkstemp`` would impose 0o600.

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
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    # O_EXCL: never write through a file (or symlink) someone else put there; the kernel applies the umask.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(descriptor, "wb") as out:
            if path.exists():
                os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
