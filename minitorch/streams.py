"""Reading exactly what a file's header declares, and no more: the file formats' readers
(checkpoints in serialization.py, IDX in datasets/idx.py) parse a header, check the sizes
it declares against what the file holds, then read only those bytes.

`read()` of a file object may return fewer bytes than asked before the end (a pipe, a
socket, a raw file), so these loop until the count is reached or the stream ends.
"""
import io
import os
import stat


def read_exactly(stream, size):
    """Up to `size` bytes of `stream`: fewer only at its end."""
    chunks, remaining = [], size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_into(stream, buffer):
    """Fills `buffer` (a writable memoryview of bytes) from `stream`; the number of bytes read,
    less than its size only at the end of the stream."""
    filled = 0
    while filled < len(buffer):
        count = stream.readinto(buffer[filled:])
        if not count:
            break
        filled += count
    return filled


def remaining_size(stream):
    """The bytes left in `stream` from where it stands, or None where nothing says (a pipe, a device
    such as /dev/zero, a socket): a regular file's size, or a seekable stream's end."""
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        return None
    try:
        if info is not None:
            return max(info.st_size - stream.tell(), 0)
        if not stream.seekable():
            return None
        position = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(position)
        return max(end - position, 0)
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None


def last_bytes(stream, count):
    """The last `count` bytes of a seekable stream (b"" for one that is not); the position is kept."""
    try:
        if not stream.seekable():
            return b""
        position = stream.tell()
        end = stream.seek(0, os.SEEK_END)
        stream.seek(max(end - count, 0))
        tail = stream.read(count)
        stream.seek(position)
        return tail
    except (AttributeError, OSError, io.UnsupportedOperation):
        return b""
