"""Read and write IDX files, the binary array format of MNIST and its relatives.

An IDX file is: two zero bytes, a dtype code byte, a byte with the number of
dimensions, one big-endian uint32 per dimension, then the array data in
big-endian C order. Files may be gzip-compressed (detected by content, not by
the file name). The reader parses the header from the (decompressed) stream,
then reads exactly the bytes it declares and refuses missing or trailing data;
every problem raises :class:`IDXFormatError` naming the file and the problem.
"""

from __future__ import annotations

import gzip
import math
import os
import stat
import sys
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..streams import read_exactly, read_into

__all__ = ["IDXFormatError", "read_idx", "write_idx", "IDX_DTYPES"]

# IDX dtype code -> big-endian numpy dtype (the format is always big-endian).
IDX_DTYPES: dict[int, np.dtype] = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
_CODE_FOR_KIND = {(dt.kind, dt.itemsize): code for code, dt in IDX_DTYPES.items()}

_GZIP_MAGIC = b"\x1f\x8b"
# zlib's documented limit on deflate's expansion (zlib FAQ: "the limit is 1032:1").
_MAX_DEFLATE_RATIO = 1032
# Trailing garbage is counted up to this many bytes, so a gzip bomb is never decompressed.
_TRAILING_BYTES_COUNTED = 64 * 1024


class IDXFormatError(ValueError):
    """An IDX file is corrupt, truncated or not what the caller expected (a ValueError naming the file).

    >>> _ = open("bad-idx1-ubyte", "wb").write(b"hello")
    >>> mt.datasets.read_idx("bad-idx1-ubyte")
    Traceback (most recent call last):
        ...
    minitorch.datasets.idx.IDXFormatError: bad-idx1-ubyte: not a valid IDX file: bad magic number 0x68656C6C (IDX files start with two zero bytes)
    """

    def __init__(self, path: str | os.PathLike, problem: str):
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: not a valid IDX file: {problem}")


def read_idx(
    path: str | os.PathLike,
    *,
    expected_ndim: int | None = None,
    expected_dtype: np.dtype | str | None = None,
) -> np.ndarray:
    """Return the array stored in the IDX file at ``path`` (gzip or raw).

    The result has native byte order and is writable. ``expected_ndim`` and
    ``expected_dtype`` let callers reject a file that is valid IDX but the
    wrong kind (e.g. a label file passed as images). The header is read first
    and then exactly the bytes it declares, so memory is bounded by the
    declared array even for a gzip stream that would decompress to far more.

    >>> _ = mt.datasets.write_idx("labels-idx1-ubyte.gz", np.array([3, 1, 4], np.uint8))
    >>> mt.datasets.read_idx("labels-idx1-ubyte.gz")
    array([3, 1, 4], dtype=uint8)
    """
    path = Path(path)
    with open(path, "rb") as raw:
        info = os.fstat(raw.fileno())
        file_size = info.st_size if stat.S_ISREG(info.st_mode) else None  # a pipe has no size to check against
        compressed = raw.peek(len(_GZIP_MAGIC))[: len(_GZIP_MAGIC)] == _GZIP_MAGIC
        if not compressed:
            return _read_stream(raw, path, file_size, expected_ndim, expected_dtype)
        # Deflate cannot expand a byte into more than _MAX_DEFLATE_RATIO bytes.
        most = None if file_size is None else file_size * _MAX_DEFLATE_RATIO
        try:
            with gzip.GzipFile(fileobj=raw, mode="rb") as stream:
                return _read_stream(stream, path, most, expected_ndim, expected_dtype, bound_is_exact=False)
        except (EOFError, gzip.BadGzipFile, zlib.error) as err:
            # A truncated download usually shows up here.
            raise IDXFormatError(path, f"corrupt or truncated gzip data ({err})") from None


def _read_stream(
    stream: BinaryIO,
    path: Path,
    size_bound: int | None,
    expected_ndim: int | None,
    expected_dtype: np.dtype | str | None,
    bound_is_exact: bool = True,
) -> np.ndarray:
    """Parse the header from ``stream``, then read exactly the data it declares and check nothing follows.

    ``size_bound`` is the most bytes the stream can hold (the file size for a raw
    file, the deflate limit for gzip; None if unknown): a header declaring more
    is refused before anything is allocated.
    """
    magic = read_exactly(stream, 4)
    if len(magic) < 4:
        raise IDXFormatError(path, f"file is {len(magic)} bytes, shorter than the 4-byte magic number")
    zero0, zero1, dtype_code, ndim = magic
    if zero0 != 0 or zero1 != 0:
        raise IDXFormatError(
            path,
            f"bad magic number 0x{int.from_bytes(magic, 'big'):08X} (IDX files start with two zero bytes)",
        )
    if dtype_code not in IDX_DTYPES:
        known = ", ".join(f"0x{code:02X}" for code in IDX_DTYPES)
        raise IDXFormatError(path, f"unknown dtype code 0x{dtype_code:02X} (known: {known})")
    if ndim == 0:
        raise IDXFormatError(path, "header declares 0 dimensions")
    if expected_ndim is not None and ndim != expected_ndim:
        raise IDXFormatError(path, f"has {ndim} dimension(s), expected {expected_ndim}")
    dtype = IDX_DTYPES[dtype_code]
    native = dtype.newbyteorder("=")
    if expected_dtype is not None and native != np.dtype(expected_dtype).newbyteorder("="):
        raise IDXFormatError(path, f"holds {native.name}, expected {np.dtype(expected_dtype).name}")

    header_size = 4 + 4 * ndim
    dims = read_exactly(stream, 4 * ndim)
    if len(dims) < 4 * ndim:
        raise IDXFormatError(
            path, f"truncated header: {ndim} dimensions need {header_size} header bytes, file has {4 + len(dims)}"
        )
    shape = tuple(int.from_bytes(dims[i : i + 4], "big") for i in range(0, len(dims), 4))
    # Python ints: (2**22, 2**21, 2**21) must not wrap around in int64.
    expected_bytes = math.prod(shape) * dtype.itemsize
    need = f"dimensions {shape} of {native.name} need {expected_bytes} bytes after the header"
    if size_bound is not None and header_size + expected_bytes > size_bound:
        holds = f"file has {size_bound - header_size}" if bound_is_exact else (
            f"a gzip file of {size_bound // _MAX_DEFLATE_RATIO} bytes holds at most {size_bound}")
        raise IDXFormatError(path, f"truncated data: {need}, {holds}")
    if expected_bytes > sys.maxsize:
        raise IDXFormatError(path, f"{need}, more than this machine can address")

    try:
        array = np.empty(expected_bytes // dtype.itemsize, dtype=native)
    except MemoryError:
        raise IDXFormatError(path, f"{need}, more memory than is available") from None
    received = read_into(stream, memoryview(array).cast("B"))
    if received < expected_bytes:
        raise IDXFormatError(path, f"truncated data: {need}, file has {received}")
    trailing = len(read_exactly(stream, _TRAILING_BYTES_COUNTED + 1))
    if trailing:
        count = f"{trailing}" if trailing <= _TRAILING_BYTES_COUNTED else f"more than {_TRAILING_BYTES_COUNTED}"
        raise IDXFormatError(path, f"{count} unexpected trailing bytes after the data declared by dimensions {shape}")
    if not dtype.isnative:
        array.byteswap(inplace=True)  # the file's big-endian bytes are now native values
    return array.reshape(shape)


def write_idx(path: str | os.PathLike, array: np.ndarray, *, compress: bool | None = None) -> Path:
    """Write ``array`` as an IDX file; gzip it when ``compress`` (default: name ends in .gz).

    Gzip output uses mtime 0 so the same array always gives the same bytes.

    >>> mt.datasets.write_idx("images-idx3-ubyte", np.zeros((2, 4, 4), np.uint8))
    PosixPath('images-idx3-ubyte')
    >>> mt.datasets.read_idx("images-idx3-ubyte").shape
    (2, 4, 4)
    """
    path = Path(path)
    array = np.asarray(array)
    code = _CODE_FOR_KIND.get((array.dtype.kind, array.dtype.itemsize))
    if code is None:
        raise ValueError(f"{path}: IDX cannot store dtype {array.dtype} (uint8, int8, int16, int32, float32, float64)")
    if not 1 <= array.ndim <= 255:
        raise ValueError(f"{path}: IDX stores 1 to 255 dimensions, array has shape {array.shape}")
    if any(d >= 2**32 for d in array.shape):
        raise ValueError(f"{path}: dimension too large for IDX: shape {array.shape}")
    header = bytes([0, 0, code, array.ndim]) + np.asarray(array.shape, dtype=">u4").tobytes()
    payload = header + np.ascontiguousarray(array, dtype=IDX_DTYPES[code]).tobytes()
    if compress is None:
        compress = path.name.endswith(".gz")
    if compress:
        payload = gzip.compress(payload, compresslevel=9, mtime=0)
    path.write_bytes(payload)
    return path
