"""mt.load reads a checkpoint's header first and then only what it declares (issue 27, item 8):
/dev/zero, a huge sparse file and truncated files are refused with a CheckpointError naming the
file after a few bytes, in well under 0.1 s; a valid file allocates its declared content once."""
import io
import os
import struct
import time
import tracemalloc

import numpy as np
import pytest

import minitorch as mt
from minitorch.serialization import CheckpointError

GIB = 2**30
TIME_LIMIT = 0.1  # seconds: the bound (typical: well under a millisecond)


def _checkpoint_bytes(obj):
    buffer = io.BytesIO()
    mt.save(obj, buffer)
    return buffer.getvalue()


def _refused_quickly(path):
    """The CheckpointError that loading `path` raises, and the fastest of three attempts in seconds."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        with pytest.raises(CheckpointError) as info:
            mt.load(path)
        times.append(time.perf_counter() - start)
    assert os.fsdecode(path) in str(info.value)
    return info.value, min(times)


class Pipe(io.RawIOBase):
    """An unseekable stream (no size to check up front): `prefix`, then zeros without end, or the end
    of the stream if `endless` is False. Counts the bytes read from it."""

    def __init__(self, prefix=b"", endless=True):
        self.prefix, self.endless, self.consumed = prefix, endless, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        start = min(self.consumed, len(self.prefix))
        chunk = self.prefix[start:start + len(view)]
        count = len(view) if self.endless else len(chunk)
        view[:len(chunk)] = chunk
        view[len(chunk):count] = bytes(count - len(chunk))
        self.consumed += count
        return count


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_at_once():
    error, seconds = _refused_quickly("/dev/zero")
    assert "not a safetensors file" in str(error)
    assert seconds < TIME_LIMIT


def test_an_endless_stream_is_refused_after_its_first_8_bytes():
    stream = Pipe()
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        mt.load(stream)
    assert stream.consumed <= 8 + 64  # the size field, an empty header, nothing more


def test_a_valid_checkpoint_followed_by_an_endless_stream_reads_only_what_it_declares():
    content = _checkpoint_bytes({"w": mt.arange(6.0), "step": 3})
    stream = Pipe(prefix=content)
    loaded = mt.load(stream)
    np.testing.assert_array_equal(loaded["w"].numpy(), np.arange(6.0))
    assert stream.consumed == len(content)


def _sparse_file(path, size, prefix=b""):
    with open(path, "wb") as out:
        out.write(prefix)
        out.truncate(size)
    return path


@pytest.mark.parametrize("what", ["zeros", "valid header then zeros"])
def test_a_64_gib_sparse_file_is_refused_at_once(tmp_path, what):
    prefix = b"" if what == "zeros" else _checkpoint_bytes({"w": mt.ones(2)})
    path = _sparse_file(tmp_path / "huge.safetensors", 64 * GIB, prefix)
    error, seconds = _refused_quickly(path)
    expected = "not a safetensors file" if what == "zeros" else "bytes follow the data it declares"
    assert expected in str(error)
    assert seconds < TIME_LIMIT


def test_a_header_declaring_more_than_the_file_holds_is_refused_before_allocating(tmp_path):
    header = b'{"w": {"dtype": "F64", "shape": [8589934592], "data_offsets": [0, 68719476736]}}'
    path = tmp_path / "liar.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + bytes(16))
    tracemalloc.start()
    try:
        error, seconds = _refused_quickly(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "truncated" in str(error)
    assert seconds < TIME_LIMIT and peak < 2**20


def test_every_truncation_of_a_checkpoint_is_refused_at_once(tmp_path):
    content = _checkpoint_bytes({"model": {"w": mt.randn(64, 64), "b": mt.zeros(64)}, "epoch": 2})
    for length in sorted({0, 1, 7, 8, 9, 100, len(content) // 2, len(content) - 1}):
        path = tmp_path / f"cut-{length}.safetensors"
        path.write_bytes(content[:length])
        _, seconds = _refused_quickly(path)
        assert seconds < TIME_LIMIT, f"{length} bytes: {seconds:.3f} s"


def test_a_truncated_stream_names_the_tensor_it_ends_in():
    content = _checkpoint_bytes({"w": mt.ones(100)})
    with pytest.raises(CheckpointError, match=r"ends 360 bytes into tensor 'w', which its header declares as 400 bytes"):
        mt.load(Pipe(content[:-40], endless=False))


def test_loading_allocates_the_declared_content_once(tmp_path):
    weights = {f"layer{i}": mt.randn(256, 1024) for i in range(8)}  # 8 MiB of float32
    path = tmp_path / "model.safetensors"
    mt.save(weights, path)
    content = sum(t.numpy().nbytes for t in weights.values())
    tracemalloc.start()
    try:
        loaded = mt.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sorted(loaded) == sorted(weights)
    assert peak < content + 2**20, f"peak {peak} bytes for {content} bytes of tensors"
