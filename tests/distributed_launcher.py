"""Runs a worker function of a test module under `mpiexec -n N`, with a timeout, for the distributed tests.

A test module `test_distributed_X.py` defines worker functions and ends with
`if __name__ == "__main__": run_worker(WORKERS)`; its tests call
`launch(__file__, "worker_name", n)`, which starts `mpiexec -n N python
test_distributed_X.py worker_name ARGS...` and returns the finished process
(its stdout, stderr and return code). Every rank runs the worker after
`init_process_group("mpi", timeout=...)`; a failed assertion on any rank
aborts the job, so a nonzero return code is a failure.
"""
import datetime
import os
import shutil
import signal
import subprocess
import sys

import pytest

import minitorch.distributed as dist

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=20)  # inside the job: a hang fails within this


def mpiexec_path():
    """The mpiexec next to this Python (the mpich wheel's), else one on PATH, else None."""
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return beside if os.access(beside, os.X_OK) else shutil.which("mpiexec")


def require_mpi():
    pytest.importorskip("mpi4py", reason="the distributed tests need the distributed extra: pip install mpi4py mpich")
    if mpiexec_path() is None:
        pytest.skip("no mpiexec found (pip install mpich)")


def launch(module_file, worker, nprocs=2, *args, timeout=60, env=None):
    """Runs `worker` of `module_file` on `nprocs` processes; kills the whole job after `timeout` seconds."""
    require_mpi()
    environment = dict(os.environ)
    environment.update({"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                        "PYTHONPATH": os.pathsep.join(filter(None, [REPO_ROOT, os.environ.get("PYTHONPATH")]))})
    environment.update(env or {})
    command = [mpiexec_path(), "-n", str(nprocs), sys.executable, module_file, worker, *map(str, args)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the job's own process group: mpiexec and its ranks
        stdout, stderr = process.communicate()
        pytest.fail(f"{worker} on {nprocs} processes did not finish in {timeout} s\n{stdout}\n{stderr}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def check(result):
    """Fails the test with the job's output unless every rank finished cleanly; returns stdout."""
    assert result.returncode == 0, f"exit status {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    return result.stdout


def run_worker(workers, init=True):
    """The `__main__` of a test module: runs the worker named on the command line on this rank."""
    name, args = sys.argv[1], sys.argv[2:]
    if init:
        dist.init_process_group("mpi", timeout=COLLECTIVE_TIMEOUT)
    workers[name](*args)
