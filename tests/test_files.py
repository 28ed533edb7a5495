"""minitorch.utils.files.atomic_write: complete or absent, never a leftover, permissions as open() gives them."""
import os

import pytest

from minitorch.utils.files import atomic_write


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
