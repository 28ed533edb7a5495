"""The examples' --distributed flag under mpiexec: the global batch split across ranks, rank 0 prints and saves.

With the same --seed, the DistributedSampler's order depends on the seed and
the epoch only, and the union of the ranks' shares of batch k is batch k of a
world of one: so `mpiexec -n 2 ... --distributed` trains the MLP (no
BatchNorm) as `python ... --distributed` does on one process.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import minitorch as mt
from distributed_launcher import REPO_ROOT, check, mpiexec_path, require_mpi

# Jobs of several processes under mpiexec: long-running checks (pyproject.toml: markers), run by -m slow and CI.
pytestmark = pytest.mark.slow

SMALL = ["--limit", "256", "--test-limit", "200", "--batch-size", "32", "--epochs", "2", "--no-progress"]
EPOCH_NUMBERS = re.compile(r"loss ([0-9.]+)/([0-9.]+) acc ([0-9.]+)/([0-9.]+)")


def run_example(example, nprocs, *flags):
    """`python -m minitorch.examples.EXAMPLE FLAGS` on one process (no mpiexec) or under mpiexec -n NPROCS."""
    require_mpi()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(filter(None, [REPO_ROOT, os.environ.get("PYTHONPATH")])))
    command = [sys.executable, "-m", f"minitorch.examples.{example}", *map(str, flags)]
    if nprocs:
        command = [mpiexec_path(), "-n", str(nprocs), *command]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def numbers(output):
    """The train loss, test loss, train accuracy and test accuracy of each epoch line."""
    return np.array([[float(v) for v in EPOCH_NUMBERS.search(line).groups()]
                     for line in output.splitlines() if line.startswith("epoch")])


def test_mlp_on_two_processes_trains_as_one_process_with_the_whole_batch(tmp_path):
    two = check(run_example("mlp", 2, *SMALL, "--distributed", "--save", tmp_path / "two.safetensors"))
    one = check(run_example("mlp", 0, *SMALL, "--distributed", "--save", tmp_path / "one.safetensors"))
    assert two.count("done: final test accuracy") == 1  # rank 0 alone prints
    assert "batch size 32 (16 on each of 2 processes)" in two
    assert numbers(two).shape == (2, 4)  # two epochs: losses and accuracies, train and test
    np.testing.assert_allclose(numbers(two), numbers(one), atol=2e-4)  # printed with 4 decimals
    saved_by_two, saved_by_one = mt.load(tmp_path / "two.safetensors"), mt.load(tmp_path / "one.safetensors")
    assert list(saved_by_two["model"]) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]
    for key, value in saved_by_one["model"].items():
        np.testing.assert_allclose(np.asarray(saved_by_two["model"][key]), np.asarray(value), rtol=1e-4, atol=1e-6)


def test_cnn_trains_on_two_processes_and_its_checkpoint_resumes_on_one(tmp_path):
    checkpoint = tmp_path / "cnn-{epoch}.safetensors"
    out = check(run_example("cnn", 2, *SMALL, "--distributed", "--save", checkpoint, "--plot", tmp_path / "cnn.png"))
    losses = numbers(out)[:, 0]
    assert len(losses) == 2 and losses[1] < losses[0]
    assert sorted(os.listdir(tmp_path)) == ["cnn-1.safetensors", "cnn-2.safetensors", "cnn.png"]
    resumed = check(run_example("cnn", 0, *SMALL, "--resume", tmp_path / "cnn-1.safetensors"))
    assert "resumed from" in resumed and "epoch 2/2" in resumed


def test_a_batch_that_does_not_split_evenly_is_one_line_and_status_2():
    result = run_example("mlp", 2, *SMALL, "--batch-size", "33", "--distributed")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == ("python -m minitorch.examples.mlp: error: --distributed: "
                                                      "--batch-size 33 does not split evenly over 2 processes")
    assert result.stderr.count("does not split evenly") == 1
    assert result.stdout == ""


def test_without_mpi4py_distributed_is_one_line_and_status_2():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "from minitorch.examples import mlp\n"
            "mlp.main(['--distributed', '--limit', '64'])\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=REPO_ROOT))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "python -m minitorch.examples.mlp: error: --distributed: init_process_group(backend='mpi') needs mpi4py and "
        "an MPI library, which are not installed: pip install mpi4py mpich   "
        '(or: pip install "minitorch[distributed]")'
    ]
