"""Ctrl-C as a terminal sends it: SIGINT to the whole process group of the command in the foreground.

`start` runs a command in a process group of its own with SIGINT at its default: a SIGINT ignored in this
process (by whatever ran before in it) would be ignored in the command too, as exec keeps an ignored signal,
and Python installs no KeyboardInterrupt handler then. `ctrl_c` signals the command and every process it started.
"""
import os
import signal
import subprocess
import time


def start(command, **options):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, **options)
    finally:
        signal.signal(signal.SIGINT, previous)


def catches_sigint(pid):
    """True once process `pid` has a handler for SIGINT (Python's, installed as it starts)."""
    with open(f"/proc/{pid}/status") as status:
        caught = next(line for line in status if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def ctrl_c(process):
    assert catches_sigint(process.pid), "the command does not catch SIGINT"
    os.killpg(process.pid, signal.SIGINT)


def gone_within(process_group, seconds):
    """True once no process of `process_group` is left; False if some still is after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(process_group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False
