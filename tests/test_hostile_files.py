"""Damaged and hostile files (tests/make_hostile_files.py): one clear error naming the file, little memory."""
import json
import struct
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import minitorch as mt
from minitorch.datasets import IDXFormatError, read_idx
from minitorch.serialization import CheckpointError

from make_hostile_files import LOADED, REFUSED, REFUSED_OR_LOADED, checkpoint_cases, idx_cases

CHECKPOINT_CASES = checkpoint_cases()
IDX_CASES = idx_cases()
READERS = {"checkpoint": (mt.load, CheckpointError, object), "idx": (read_idx, IDXFormatError, np.ndarray)}


def _peak_bytes_while(call):
    """Runs `call`; returns (its result or the exception it raised, the tracemalloc peak in bytes)."""
    tracemalloc.start()
    try:
        outcome = call()
    except Exception as error:  # the caller checks which kind
        outcome = error
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return outcome, peak


def _check(case, kind, tmp_path):
    reader, error_type, result_type = READERS[kind]
    path = tmp_path / case.name
    path.write_bytes(case.content)
    outcome, peak = _peak_bytes_while(lambda: reader(path))
    if isinstance(outcome, Exception):
        assert case.expect in (REFUSED, REFUSED_OR_LOADED), f"{case.name} must load, got {outcome!r}"
        assert type(outcome) is error_type, f"{case.name}: {type(outcome).__name__}: {outcome}"
        assert str(path) in str(outcome)
        assert case.message in str(outcome)
    else:
        assert case.expect in (LOADED, REFUSED_OR_LOADED), f"{case.name} must be refused, it loaded"
        assert isinstance(outcome, result_type)
    # The file is read whole, then each tensor copied out once (about twice its size); JSON
    # becomes Python objects about ten times its size.
    json_bytes = _header_bytes(case.content) if kind == "checkpoint" else 0
    assert peak <= 3 * len(case.content) + 16 * json_bytes + 2**20, \
        f"{case.name}: peak {peak} bytes for a {len(case.content)}-byte file"


def _header_bytes(content):
    """How much of a safetensors file is its JSON header."""
    return min(len(content), 8 + struct.unpack("<Q", content[:8])[0]) if len(content) >= 8 else 0


@pytest.mark.parametrize("case", CHECKPOINT_CASES, ids=[case.name for case in CHECKPOINT_CASES])
def test_damaged_checkpoint(case, tmp_path):
    _check(case, "checkpoint", tmp_path)


@pytest.mark.parametrize("case", IDX_CASES, ids=[case.name for case in IDX_CASES])
def test_damaged_idx_file(case, tmp_path):
    _check(case, "idx", tmp_path)


def test_the_corpus_is_deterministic_and_mixed():
    again = checkpoint_cases() + idx_cases()
    assert [(c.name, c.content) for c in again] == [(c.name, c.content) for c in CHECKPOINT_CASES + IDX_CASES]
    expectations = {case.expect for case in again}
    assert expectations == {LOADED, REFUSED, REFUSED_OR_LOADED}


def test_gzip_bomb_stops_after_the_declared_image(tmp_path):
    bomb = next(case for case in IDX_CASES if case.name == "idx-gzip-bomb-1GiB")
    path = tmp_path / "bomb-idx3-ubyte.gz"
    path.write_bytes(bomb.content)
    assert len(bomb.content) < 2 * 2**20  # about 1 MB that would decompress to 1 GiB
    outcome, peak = _peak_bytes_while(lambda: read_idx(path))
    assert isinstance(outcome, IDXFormatError) and str(path) in str(outcome)
    assert "more than 65536 unexpected trailing bytes after the data declared by dimensions (1, 28, 28)" in str(outcome)
    assert peak < 2**20  # the old reader decompressed everything first: 2 GiB


def test_int64_overflowing_dimensions_name_the_file(tmp_path):
    path = tmp_path / "overflow-idx3-ubyte"
    path.write_bytes(next(case.content for case in IDX_CASES if case.name == "idx-int64-overflow"))
    with pytest.raises(IDXFormatError) as info:
        read_idx(path)
    assert str(info.value) == (f"{path}: not a valid IDX file: truncated data: dimensions (4194304, 2097152, 2097152) "
                               f"of uint8 need 18446744073709551616 bytes after the header, file has 16")


_LOAD_ALL = textwrap.dedent("""
    import json, resource, sys
    from pathlib import Path
    import minitorch as mt
    from minitorch.datasets import read_idx
    folder = Path(sys.argv[1])
    manifest = json.loads((folder / "manifest.json").read_text())
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcomes = {}
    for name, case in manifest.items():
        try:
            (mt.load if case["kind"] == "checkpoint" else read_idx)(folder / name)
            outcomes[name] = "loaded"
        except Exception as error:
            outcomes[name] = type(error).__name__
    growth_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"growth_kib": growth_kib, "outcomes": outcomes}))
""")


@pytest.mark.slow  # every hostile file in a fresh process
def test_whole_corpus_in_a_fresh_process_keeps_peak_memory_flat(tmp_path):
    """ru_maxrss also sees memory that tracemalloc does not (safetensors' Rust parser, zlib)."""
    pytest.importorskip("resource")
    script = Path(__file__).with_name("make_hostile_files.py")
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True, capture_output=True)
    run = subprocess.run([sys.executable, "-c", _LOAD_ALL, str(tmp_path)], check=True, capture_output=True, text=True)
    report = json.loads(run.stdout)
    assert len(report["outcomes"]) == len(CHECKPOINT_CASES) + len(IDX_CASES)
    assert set(report["outcomes"].values()) <= {"loaded", "CheckpointError", "IDXFormatError"}, report["outcomes"]
    assert report["growth_kib"] < 64 * 1024, f"peak RSS grew by {report['growth_kib']} KiB"
