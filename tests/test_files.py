"""minitorch.files: atomic_write is complete or absent, cleans up after killed writes, gives the permissions open()
gives, and never replaces what is not a regular file; check_writable_path finds the errors before the work."""
import os
import stat
import subprocess
import sys
import time

import pytest

from minitorch.files import atomic_write, check_writable_path


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_a_new_file_gets_the_mode_open_would_give(tmp_path, umask, mask, mode):
    umask(mask)
    with atomic_write(tmp_path / "new.bin") as out:
        out.write(b"data")
    with open(tmp_path / "by-open.bin", "wb") as out:
        out.write(b"data")
    assert (tmp_path / "new.bin").stat().st_mode & 0o777 == mode == (tmp_path / "by-open.bin").stat().st_mode & 0o777


def test_a_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "kept.bin"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    with atomic_write(path) as out:
        out.write(b"new")
    assert path.read_bytes() == b"new" and path.stat().st_mode & 0o777 == 0o640


def test_an_error_mid_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "file.bin"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_write(path) as out:
            out.write(b"partial")
            raise RuntimeError("disk full")
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["file.bin"]


def test_a_missing_folder_is_a_file_not_found_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        with atomic_write(tmp_path / "missing" / "file.bin") as out:
            out.write(b"x")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_as_it_is(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    for name, error, message in (("pipe", FileExistsError, "is a FIFO, not a regular file: writing would replace it"),
                                 ("folder", IsADirectoryError, "is a folder")):
        for attempt in (check_writable_path, lambda path: atomic_write(path).__enter__()):
            with pytest.raises(error, match=message) as info:
                attempt(tmp_path / name)
            assert info.value.filename == str(tmp_path / name)
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode) and sorted(os.listdir(tmp_path)) == ["folder", "pipe"]


def test_check_writable_tries_the_folder_and_leaves_nothing(tmp_path):
    check_writable_path(tmp_path / "model.bin")
    assert os.listdir(tmp_path) == []
    with pytest.raises(FileNotFoundError, match="the folder .*missing' does not exist"):
        check_writable_path(tmp_path / "missing" / "model.bin")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="a folder that refuses new files: Linux's /proc")
def test_a_folder_that_refuses_new_files_is_an_error_naming_the_target():
    with pytest.raises(OSError, match="cannot create a file in the folder '/proc'") as info:
        check_writable_path("/proc/model.bin")
    assert info.value.filename == "/proc/model.bin"


_KILLED_MID_WRITE = """
import sys, time
from minitorch.files import atomic_write
with atomic_write(sys.argv[1]) as out:
    out.write(b"x" * 1000)
    out.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


@pytest.mark.skipif(os.name != "posix", reason="kills and pid checks are POSIX")
def test_the_temporary_of_a_killed_write_is_removed_by_the_next_write(tmp_path):
    path = tmp_path / "checkpoint.bin"
    path.write_bytes(b"previous")
    for _ in range(2):  # each killed write leaves its temporary; the next write, killed too, removed the one before
        child = subprocess.Popen([sys.executable, "-c", _KILLED_MID_WRITE, str(path)], stdout=subprocess.PIPE,
                                 text=True)
        try:
            assert child.stdout.readline() == "writing\n"
        finally:
            child.kill()  # SIGKILL: no cleanup runs
            child.wait()
        (leftover,) = set(os.listdir(tmp_path)) - {"checkpoint.bin"}
        assert leftover.startswith(f".minitorch-save.{child.pid}.") and path.read_bytes() == b"previous"
    with atomic_write(path) as out:
        out.write(b"next")
    assert os.listdir(tmp_path) == ["checkpoint.bin"] and path.read_bytes() == b"next"


def test_leftovers_of_the_earlier_naming_go_once_an_hour_old(tmp_path):
    old, recent, other = (tmp_path / name for name in (".model.bin.0123456789ab.part", ".model.bin.ba9876543210.part",
                                                        ".other.bin.0123456789ab.part"))
    for leftover in (old, recent, other):
        leftover.write_bytes(b"partial")
    hours_ago = time.time() - 7200
    os.utime(old, (hours_ago, hours_ago))
    os.utime(other, (hours_ago, hours_ago))
    with atomic_write(tmp_path / "model.bin") as out:
        out.write(b"data")
    assert sorted(os.listdir(tmp_path)) == sorted([recent.name, other.name, "model.bin"])  # only model.bin's own
