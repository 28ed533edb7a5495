"""mt.save on disk: any file name, open()'s permissions and symlinks, kills mid-save, cleaning up their temp files."""
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
import safetensors.numpy

import minitorch as mt
from minitorch.files import _host_tag

pytestmark = pytest.mark.skipif(os.name != "posix", reason="kills and pid checks are POSIX")

HOUR = 3600


def _temp_name(pid, host=None, token="0123456789abcdef"):
    return f".minitorch-save.{pid}.{_host_tag() if host is None else host}.{token}.tmp"


def _leftovers(folder):
    return sorted(name for name in os.listdir(folder) if name.startswith(".minitorch-save."))


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


FILE_NAMES = ["model.pth", "model.pt", "no-extension", ".hidden", "with space.ckpt", "ünïcode.bin"]


@pytest.mark.parametrize("name", FILE_NAMES)
def test_any_file_name_holds_a_safetensors_checkpoint(name, tmp_path):
    path = tmp_path / name
    mt.save({"w": mt.arange(3)}, path)
    np.testing.assert_array_equal(safetensors.numpy.load_file(str(path))["w"], [0, 1, 2])
    np.testing.assert_array_equal(mt.load(path)["w"].numpy(), [0, 1, 2])
    assert os.listdir(tmp_path) == [name]


def test_bytes_paths_work_like_str_paths(tmp_path):
    path = os.fsencode(tmp_path / "model.pth")
    mt.save({"w": mt.ones(2)}, path)
    np.testing.assert_array_equal(mt.load(path)["w"].numpy(), [1.0, 1.0])


def test_permissions_are_those_open_would_give(tmp_path):
    umask = os.umask(0o022)
    try:
        mt.save({}, tmp_path / "new.pth")
        assert stat.S_IMODE(os.stat(tmp_path / "new.pth").st_mode) == 0o644  # mkstemp alone gives 0o600
        (tmp_path / "private.pth").write_bytes(b"")
        os.chmod(tmp_path / "private.pth", 0o600)
        mt.save({}, tmp_path / "private.pth")
        assert stat.S_IMODE(os.stat(tmp_path / "private.pth").st_mode) == 0o600
    finally:
        os.umask(umask)


def test_a_symlink_is_written_through(tmp_path):
    (tmp_path / "runs").mkdir()
    os.symlink(tmp_path / "runs" / "epoch-3.pth", tmp_path / "latest.pth")
    mt.save({"epoch": 3}, tmp_path / "latest.pth")
    assert os.path.islink(tmp_path / "latest.pth")
    assert mt.load(tmp_path / "runs" / "epoch-3.pth") == {"epoch": 3}


def test_a_missing_folder_names_the_path_given(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist") as info:
        mt.save({}, tmp_path / "nope" / "model.pth")
    assert info.value.filename == str(tmp_path / "nope" / "model.pth")


def test_nesting_up_to_the_limit_round_trips_and_deeper_is_refused(tmp_path):
    deepest = {"w": mt.ones(2, requires_grad=True)}  # 100 containers with a tensor inside the last
    for _ in range(99):
        deepest = [deepest]
    mt.save(deepest, tmp_path / "deep.pth")
    loaded = mt.load(tmp_path / "deep.pth")
    for _ in range(99):
        (loaded,) = loaded
    assert loaded["w"].requires_grad and loaded["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="more than 100 deep"):
        mt.save([deepest], tmp_path / "deeper.pth")


_STALLS_BEFORE_RENAME = textwrap.dedent("""
    import os, sys, time
    import minitorch as mt
    def stall(source, target):
        print("written", flush=True)
        time.sleep(60)
    os.replace = stall
    mt.save({"w": mt.zeros(1000, 1000)}, sys.argv[1])
""")


def test_a_save_killed_before_its_rename_leaves_the_old_file_and_the_next_save_cleans_up(tmp_path):
    target = tmp_path / "model.pth"
    mt.save({"epoch": 1}, target)
    child = subprocess.Popen([sys.executable, "-c", _STALLS_BEFORE_RENAME, str(target)], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout.readline() == "written\n"
        (leftover,) = _leftovers(tmp_path)
        assert leftover.startswith(f".minitorch-save.{child.pid}.") and os.path.getsize(tmp_path / leftover) > 4e6
    finally:
        child.kill()  # SIGKILL: no cleanup handler runs
        child.wait()
    assert mt.load(target) == {"epoch": 1}
    mt.save({"epoch": 2}, tmp_path / "other.pth")
    assert sorted(os.listdir(tmp_path)) == ["model.pth", "other.pth"]


_SAVES_FOREVER = textwrap.dedent("""
    import sys
    import minitorch as mt
    for epoch in range(10**6):
        mt.save({"epoch": epoch, "w": mt.full((2000, 1000), float(epoch))}, sys.argv[1])
        if epoch == 0:
            print("saved", flush=True)
""")


@pytest.mark.slow  # stress: five processes killed mid-save
def test_sigkill_while_a_temp_file_is_being_written_never_corrupts_and_leftovers_are_cleaned(tmp_path):
    target = tmp_path / "model.pth"
    for _ in range(5):
        child = subprocess.Popen([sys.executable, "-c", _SAVES_FOREVER, str(target)], stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "saved\n"
        deadline = time.monotonic() + 20
        while not _leftovers(tmp_path) and time.monotonic() < deadline:
            pass  # kill as soon as the next save's temp file shows up, usually mid-write
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        state = mt.load(target)  # a complete checkpoint, old or new
        np.testing.assert_array_equal(state["w"].numpy(), np.full((2000, 1000), state["epoch"], np.float32))
    mt.save({"done": True}, target)
    assert os.listdir(tmp_path) == ["model.pth"]


def _age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_only_stale_temp_files_of_our_naming_are_removed(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        removed = {
            "dead writer on this host": _temp_name(_dead_pid()),
            "this pid but no save of ours running (pid reused after a restart)": _temp_name(os.getpid()),
            "live writer, untouched for two hours": _temp_name(sleeper.pid, token="1" * 16),
            "other host, untouched for two hours": _temp_name(_dead_pid(), host="elsewhere", token="2" * 16),
        }
        kept = {
            "live writer on this host": _temp_name(sleeper.pid),
            "dead pid on another host (pids mean nothing here)": _temp_name(_dead_pid(), host="elsewhere"),
            "another program's temp file": ".tmp-x1y2z3.safetensors",
            "not quite our naming": _temp_name(_dead_pid(), token="not-hex-at-all!!"),
            "user file": "notes.tmp",
        }
        for name in [*removed.values(), *kept.values()]:
            (tmp_path / name).write_bytes(b"partial")
        for name in (removed["live writer, untouched for two hours"], removed["other host, untouched for two hours"],
                     kept["another program's temp file"], kept["not quite our naming"], kept["user file"]):
            _age(tmp_path / name, 2 * HOUR)
        kept["a folder is never ours to remove"] = _temp_name(_dead_pid(), token="3" * 16)
        kept["nor a symlink"] = _temp_name(_dead_pid(), token="4" * 16)
        os.mkdir(tmp_path / kept["a folder is never ours to remove"])
        os.symlink(tmp_path / "notes.tmp", tmp_path / kept["nor a symlink"])
        mt.save({}, tmp_path / "model.pth")
    finally:
        sleeper.kill()
        sleeper.wait()
    remaining = set(os.listdir(tmp_path))
    assert not remaining & set(removed.values())
    assert set(kept.values()) <= remaining
    assert "model.pth" in remaining


def test_a_save_in_progress_in_another_thread_is_left_alone(tmp_path, monkeypatch):
    real_replace, reached_rename, release = os.replace, threading.Event(), threading.Event()

    def slow_replace(source, target):
        if target.endswith("slow.pth"):
            reached_rename.set()
            release.wait(30)
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", slow_replace)
    slow = threading.Thread(target=mt.save, args=({"slow": 1}, str(tmp_path / "slow.pth")))
    slow.start()
    try:
        assert reached_rename.wait(30)
        (in_progress,) = _leftovers(tmp_path)
        mt.save({"fast": 2}, tmp_path / "fast.pth")
        assert _leftovers(tmp_path) == [in_progress]
    finally:
        release.set()
        slow.join()
    assert mt.load(tmp_path / "slow.pth") == {"slow": 1}
    assert sorted(os.listdir(tmp_path)) == ["fast.pth", "slow.pth"]
