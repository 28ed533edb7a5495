"""Read and write IDX files, the binary array format of MNIST and its relatives.

An IDX file is: two zero bytes, a dtype code byte, a byte with the number of
dimensions, one big-endian uint32 per dimension, then the array data in
big-endian C order. Files may be gzip-compressed (detected by content, not by
the file name). The reader checks every part of the header against the file's
real size and raises :class:`IDXFormatError` naming the file and the problem.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

import numpy as np

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


class IDXFormatError(ValueError):
    """An IDX file is corrupt, truncated or not what the caller expected."""

    def __init__(self, path: str | os.PathLike, problem: str):
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: not a valid IDX file: {problem}")


def _read_bytes(path: Path) -> bytes:
    with open(path, "rb") as raw:
        content = raw.read()
    if not content.startswith(_GZIP_MAGIC):
        return content
    try:
        return gzip.decompress(content)
    except (EOFError, OSError, zlib.error) as err:
        # A truncated download usually shows up here, before any IDX check.
        raise IDXFormatError(path, f"corrupt or truncated gzip data ({err})") from None


def read_idx(
    path: str | os.PathLike,
    *,
    expected_ndim: int | None = None,
    expected_dtype: np.dtype | str | None = None,
) -> np.ndarray:
    """Return the array stored in the IDX file at ``path`` (gzip or raw).

    The result has native byte order and is writable. ``expected_ndim`` and
    ``expected_dtype`` let callers reject a file that is valid IDX but the
    wrong kind (e.g. a label file passed as images).

    >>> images = mt.datasets.read_idx("train-images-idx3-ubyte.gz")  # doctest: +SKIP
    >>> images.shape  # doctest: +SKIP
    (60000, 28, 28)
    """
    path = Path(path)
    content = _read_bytes(path)
    if len(content) < 4:
        raise IDXFormatError(path, f"file is {len(content)} bytes, shorter than the 4-byte magic number")
    zero0, zero1, dtype_code, ndim = content[0], content[1], content[2], content[3]
    if zero0 != 0 or zero1 != 0:
        raise IDXFormatError(
            path,
            f"bad magic number 0x{int.from_bytes(content[:4], 'big'):08X} "
            "(IDX files start with two zero bytes)",
        )
    if dtype_code not in IDX_DTYPES:
        known = ", ".join(f"0x{code:02X}" for code in IDX_DTYPES)
        raise IDXFormatError(path, f"unknown dtype code 0x{dtype_code:02X} (known: {known})")
    if ndim == 0:
        raise IDXFormatError(path, "header declares 0 dimensions")
    if expected_ndim is not None and ndim != expected_ndim:
        raise IDXFormatError(path, f"has {ndim} dimension(s), expected {expected_ndim}")
    dtype = IDX_DTYPES[dtype_code]
    if expected_dtype is not None and dtype.newbyteorder("=") != np.dtype(expected_dtype).newbyteorder("="):
        raise IDXFormatError(path, f"holds {dtype.newbyteorder('=').name}, expected {np.dtype(expected_dtype).name}")

    header_size = 4 + 4 * ndim
    if len(content) < header_size:
        raise IDXFormatError(
            path, f"truncated header: {ndim} dimensions need {header_size} header bytes, file has {len(content)}"
        )
    shape = tuple(int(d) for d in np.frombuffer(content, dtype=">u4", count=ndim, offset=4))
    expected_bytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    actual_bytes = len(content) - header_size
    if actual_bytes < expected_bytes:
        raise IDXFormatError(
            path,
            f"truncated data: dimensions {shape} of {dtype.newbyteorder('=').name} need "
            f"{expected_bytes} bytes after the header, file has {actual_bytes}",
        )
    if actual_bytes > expected_bytes:
        raise IDXFormatError(
            path,
            f"{actual_bytes - expected_bytes} unexpected trailing bytes after the data declared by dimensions {shape}",
        )
    array = np.frombuffer(content, dtype=dtype, count=expected_bytes // dtype.itemsize, offset=header_size)
    # astype copies, which also makes the result writable and native-endian.
    return array.astype(dtype.newbyteorder("="), copy=True).reshape(shape)


def write_idx(path: str | os.PathLike, array: np.ndarray, *, compress: bool | None = None) -> Path:
    """Write ``array`` as an IDX file; gzip it when ``compress`` (default: name ends in .gz).

    Gzip output uses mtime 0 so the same array always gives the same bytes.

    >>> mt.datasets.write_idx("labels-idx1-ubyte.gz", np.arange(10, dtype=np.uint8))  # doctest: +SKIP
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
