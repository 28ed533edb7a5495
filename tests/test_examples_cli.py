"""Every command-line mistake ends as a user sees it: exit status 2 and ONE line on stderr, before any training.

Each case runs the example as a real subprocess (``python -m minitorch.examples.NAME``).
The processes are started together by one fixture and each test checks its own,
so the suite pays for the interpreter start-ups about once per core rather than
once per case. Damaged --resume files (missing fields, wrong types, broken
generator states) are also checked in-process, at the library level: one
CheckpointError naming the file.
"""
import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from matplotlib import font_manager

import minitorch as mt
from minitorch.examples import checkpoint, mlp

# One pytest-xdist worker runs this module (README's --dist loadgroup): its module-scoped fixture runs once.
pytestmark = pytest.mark.xdist_group("test_examples_cli")

TINY = ["--limit", "64", "--test-limit", "32", "--batch-size", "32", "--epochs", "2", "--no-progress"]


def damaged(source: Path, target: Path, change) -> Path:
    """A copy of checkpoint ``source`` with ``change(state)`` applied."""
    state = mt.load(source)
    change(state)
    mt.save(state, target)
    return target


def without(key):
    return lambda state: state.pop(key)


def setter(path, value):
    def change(state):
        *parents, last = path
        node = state
        for key in parents:
            node = node[key]
        node[last] = value
    return change


def first_moment_of_wrong_shape(state):
    state["optimizer"]["state"][0]["exp_avg"] = mt.zeros(3)


DAMAGES = {
    "missing-epochs": (without("epochs"), "'epochs' is missing"),
    "epoch-as-text": (setter(["epoch"], "2"), "'epoch' should be a count of epochs, found '2'"),
    "history-of-text": (setter(["history", "train_loss"], "low"), "'history' should be per-epoch lists of 2 numbers"),
    "history-too-short": (setter(["history", "test_acc"], [0.5]), "'history' should be per-epoch lists of 2 numbers"),
    "history-not-a-dict": (setter(["history"], [1, 2]), "'history' should be per-epoch lists"),
    "negative-rng-state": (setter(["loader_rng", "state", "state"], -1), "'loader_rng' should be a numpy PCG64"),
    "huge-rng-state": (setter(["global_rng", "state", "inc"], 2**200), "'global_rng' should be a numpy PCG64"),
    "rng-of-another-kind": (setter(["global_rng", "bit_generator"], "MT19937"), "'global_rng' should be a numpy"),
    "rng-not-a-dict": (setter(["loader_rng"], "seed 0"), "'loader_rng' should be a numpy PCG64"),
    "cycle-past-the-run": (setter(["cycle_end"], 7), "'cycle_end' should be an epoch between 2 and 2"),
    "model-not-tensors": (setter(["model"], {"fc1.weight": [1, 2]}), "'model' should be a state_dict of tensors"),
    "optimizer-without-groups": (setter(["optimizer"], {"state": {}}), "'optimizer' should be an optimizer state"),
    "scheduler-missing-key": (lambda s: s["scheduler"].pop("total_steps"), "scheduler state is not a OneCycleLR's"),
    "scheduler-wrong-type": (setter(["scheduler", "last_epoch"], "4"), "bad or missing last_epoch"),
    "scheduler-off-schedule": (setter(["scheduler", "last_epoch"], 1), "scheduler is at step 1 of 4, expected 4 of 4"),
    "moment-of-wrong-shape": (first_moment_of_wrong_shape, "optimizer 'exp_avg' of shape (3,)"),
    "weights-of-wrong-shape": (setter(["model", "fc1.weight"], mt.zeros(2, 2)), "its model does not fit this one"),
    "not-an-example-checkpoint": (lambda s: s.clear(), "not a checkpoint written by the examples' --save"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A real 2-epoch MLP checkpoint, damaged copies of it, and other files the cases point at."""
    directory = tmp_path_factory.mktemp("cli")
    good = directory / "good.safetensors"
    mlp.main([*TINY, "--save", str(good)])
    for name, (change, _) in DAMAGES.items():
        damaged(good, directory / f"{name}.safetensors", change)
    (directory / "random.safetensors").write_bytes(np.random.default_rng(0).bytes(300))
    if hasattr(os, "mkfifo"):  # opened for writing or reading, a FIFO waits for the other end: forever
        os.mkfifo(directory / "pipe")
        (directory / "fifos").mkdir()
        for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                     "t10k-labels-idx1-ubyte"):
            os.mkfifo(directory / "fifos" / name)
    mt.save(mt.nn.Linear(2, 2).state_dict(), directory / "weights-only.safetensors")
    return directory


def case(args, *expected, module="mlp", env=None):
    return {"args": args, "expected": expected, "module": module, "env": env or {}}


D = "{dir}"  # replaced by the fixture's directory
CASES = {
    "plot-into-missing-folder": case(["--plot", "nowhere/curves.png"],
                                     "--plot nowhere/curves.png: the folder 'nowhere' does not exist"),
    "plot-unknown-format": case(["--plot", "curves.xyz"], "matplotlib cannot write .xyz files", "png"),
    "save-into-missing-folder": case(["--save", "nowhere/ckpt-{epoch}.safetensors"],
                                     "--save nowhere/ckpt-{epoch}.safetensors: the folder 'nowhere' does not exist"),
    "resume-missing-file": case(["--resume", "gone.safetensors"], "--resume gone.safetensors: no such file"),
    "explain-into-missing-folder": case(["--out", "nowhere/g.png"],
                                        "--out nowhere/g.png: the folder 'nowhere' does not exist", module="explain"),
    "explain-unknown-format": case(["--out", "g.xyz"], "--out g.xyz: matplotlib cannot write .xyz files", "png",
                                   module="explain"),
    "resume-random-bytes": case(["--resume", f"{D}/random.safetensors"], "random.safetensors: not a safetensors file"),
    "resume-weights-only": case(["--resume", f"{D}/weights-only.safetensors"],
                                "weights-only.safetensors: not a checkpoint written by the examples' --save"),
    "resume-other-batch-size": case([*TINY, "--batch-size", "16", "--resume", f"{D}/good.safetensors"],
                                    "the checkpoint's run used --batch-size 32, this one 16; pass --batch-size 32"),
    "resume-other-example": case([*TINY, "--resume", f"{D}/good.safetensors"],
                                 "written by the MLP 784-256-128-10 example, not CNN", module="cnn"),
    "resume-fewer-epochs": case([*TINY, "--epochs", "1", "--resume", f"{D}/good.safetensors"],
                                "has already trained 2 epochs; pass --epochs 2 or more"),
    "resume-missing-epochs": case([*TINY, "--resume", f"{D}/missing-epochs.safetensors"], "'epochs' is missing"),
    "resume-damaged-rng": case([*TINY, "--resume", f"{D}/negative-rng-state.safetensors"], "'loader_rng' should be"),
    "dataset-missing": case(["--dataset", "mnist"], "--dataset mnist: the MNIST IDX files", "pass --download",
                            "--data-dir DIR"),
    "download-offline": case(["--dataset", "kmnist", "--data-dir", f"{D}/download-here", "--download"],
                             "--download: could not download train-images-idx3-ubyte.gz", "Connection refused",
                             env={"MINITORCH_DATASETS_MIRROR": "http://127.0.0.1:1/"}),
    "data-dir-missing": case(["--dataset", "mnist", "--data-dir", "nowhere"], "--data-dir nowhere: no such folder"),
    "download-with-embedded": case(["--download"], "--download applies to --dataset fashion-mnist, mnist or kmnist"),
    "epochs-zero": case(["--epochs", "0"], "--epochs must be a positive integer, got 0"),
    "unknown-dataset": case(["--dataset", "cifar"], "argument --dataset: invalid choice: 'cifar'"),
    "higher-order-unknown-option": case(["--verbose"], "unrecognized arguments: --verbose", module="higher_order"),
    "examples-listing-takes-no-argument": case(["mlp"], "unrecognized arguments: mlp", module=""),
}
if hasattr(os, "mkfifo") and os.path.isdir("/proc/self"):  # a FIFO; a folder that takes no new file: Linux's /proc
    CASES.update({
        "save-over-a-fifo": case(["--save", f"{D}/pipe"],
                                 "pipe: is a FIFO, not a regular file: writing would replace it"),
        "save-into-proc": case(["--save", "/proc/ckpt.safetensors"],
                               "--save /proc/ckpt.safetensors: cannot create a file in the folder '/proc'"),
        "plot-over-a-fifo": case(["--plot", f"{D}/pipe"], "pipe: is a FIFO, not a regular file"),
        "resume-a-fifo": case(["--resume", f"{D}/pipe"], "pipe: is not a regular file"),
        "explain-over-a-fifo": case(["--out", f"{D}/pipe"], "pipe: is a FIFO, not a regular file", module="explain"),
        "data-dir-of-fifos": case(["--dataset", "mnist", "--data-dir", f"{D}/fifos"], "the MNIST IDX files"),
    })
HELP_CASES = {"mlp": ["--help"], "higher_order": ["--help"], "": []}


def start(module, args, env, cwd):
    target = "minitorch.examples" + (f".{module}" if module else "")
    return subprocess.Popen([sys.executable, "-m", target, *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def runs(files, tmp_path_factory):
    """Starts every case (and the help/listing runs) at once; returns {name: CompletedProcess}."""
    home = tmp_path_factory.mktemp("home")  # an empty cache: no data set is found there
    base = {k: v for k, v in os.environ.items() if k not in ("MINITORCH_DATA", "MINITORCH_DATASETS_MIRROR")}
    # Matplotlib's font cache, built by this process's import of font_manager, so that the
    # subprocesses (with another HOME) find it rather than each building and announcing its own.
    assert font_manager.fontManager.ttflist
    base.update(HOME=str(home), MPLCONFIGDIR=matplotlib.get_cachedir(), COLUMNS="80")
    processes = {}
    for name, spec in CASES.items():
        args = [a.replace(D, str(files)) for a in spec["args"]]
        processes[name] = start(spec["module"], args, {**base, **spec["env"]}, files)
    for module, args in HELP_CASES.items():
        processes[f"help:{module}"] = start(module, args, base, files)
    results = {}
    for name, process in processes.items():
        out, err = process.communicate(timeout=300)
        results[name] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    return results


@pytest.mark.parametrize("name", list(CASES))
def test_a_mistake_is_one_line_and_exit_status_2(name, runs, files):
    spec, result = CASES[name], runs[name]
    prog = "python -m minitorch.examples" + (f".{spec['module']}" if spec["module"] else "")
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), result.stderr
    for fragment in spec["expected"]:
        assert fragment.replace(D, str(files)) in lines[0]
    assert result.stdout == ""  # found before anything was trained or printed


def test_an_offline_download_leaves_no_folder_behind(runs, files):
    assert runs["download-offline"].returncode == 2
    assert not (files / "download-here").exists()


def test_usage_lines_name_the_module_and_help_shows_defaults(runs):
    mlp_help = runs["help:mlp"]
    assert mlp_help.returncode == 0 and mlp_help.stdout.startswith("usage: python -m minitorch.examples.mlp ")
    text = " ".join(mlp_help.stdout.split())
    for default in ("(default: embedded)", "(default: 128)", "(default: 0.002)", "(default: 10)", "(default: 0)"):
        assert default in text


def test_higher_order_help_shows_help_and_runs_nothing(runs):
    result = runs["help:higher_order"]
    assert result.returncode == 0 and result.stdout.startswith("usage: python -m minitorch.examples.higher_order")
    assert "Hessian-vector product vs" not in result.stdout and "--seed SEED" in result.stdout


def test_python_m_minitorch_examples_lists_the_examples(runs):
    result = runs["help:"]
    assert result.returncode == 0 and result.stderr == ""
    for name in ("mlp", "cnn", "explain", "higher_order"):
        assert f"python -m minitorch.examples.{name}\n" in result.stdout
    assert "Train a multi-layer perceptron" in result.stdout


# ----- damaged training state, at the library level (issue: one error naming the file) -----

@pytest.mark.parametrize("name", list(DAMAGES))
def test_a_damaged_checkpoint_is_one_checkpoint_error_naming_the_file(name, files):
    path = files / f"{name}.safetensors"
    _, expected = DAMAGES[name]
    model = mlp.MLP()
    optimizer = mt.optim.Adam(model.parameters(), lr=2e-3)
    scheduler = mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=2e-3, epochs=2, steps_per_epoch=2)
    with pytest.raises(mt.CheckpointError) as info:
        read = checkpoint.read_checkpoint(path, "MLP 784-256-128-10")
        checkpoint.restore_model(read, model)
        checkpoint.restore_training(read, optimizer, scheduler, np.random.default_rng(0), steps_per_epoch=2)
    assert str(path) in str(info.value) and expected in str(info.value)
