"""The training examples run in-process through main(argv) on a few hundred samples.

Checks what a user relies on: the loss falls, the plot is a real figure with a
sane epoch axis, a checkpoint resumes exactly where the run stopped (and can
extend a finished run), a seed makes two runs print the same numbers, and the
output is one line per epoch within 80 columns. Real images (the embedded
Fashion-MNIST subset), tiny budgets: --limit/--test-limit keep each run to a
few batches. The command line's mistakes are in test_examples_cli.py.
"""
import errno
import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import interrupting
import minitorch as mt
from minitorch.examples import checkpoint, cnn, mlp, progress
from minitorch.examples.training import history_figure

# One pytest-xdist worker runs this module (README's --dist loadgroup): its module-scoped fixture runs once.
pytestmark = pytest.mark.xdist_group("test_examples")

SMALL = ["--limit", "256", "--test-limit", "200", "--batch-size", "32", "--no-progress"]
EPOCH_LINE = re.compile(r"^epoch (\d+)/(\d+) ([\d.]+s|\d\d:\d\d) [\d.]+k? img/s "
                        r"loss ([\d.]+)/([\d.]+) acc ([\d.]+)/([\d.]+)$")


def weights(model):
    return {key: np.array(value) for key, value in model.state_dict().items()}


def assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def epoch_numbers(output):
    """(epoch, losses and accuracies) of each printed epoch line, without its time and speed."""
    return [(m[1], m[4], m[5], m[6], m[7]) for m in map(EPOCH_LINE.match, output.splitlines()) if m]


@pytest.mark.parametrize("example", [mlp, cnn], ids=["mlp", "cnn"])
def test_training_lowers_the_loss_and_writes_a_plot(example, tmp_path, capsys):
    plot = tmp_path / "curves.png"
    result = example.main([*SMALL, "--epochs", "2", "--plot", str(plot)])
    history = result.history
    assert len(history.train_loss) == len(history.test_acc) == 2
    assert history.train_loss[1] < history.train_loss[0] < np.log(10) * 1.2
    assert history.test_acc[1] > 0.3  # ten classes: chance is 0.1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 5000
    out = capsys.readouterr().out
    # One line per epoch, carrying train/test loss and accuracy as printed in the history.
    printed = epoch_numbers(out)
    assert [p[0] for p in printed] == ["1", "2"]
    assert printed[1][1:] == tuple(f"{v:.4f}" for v in (history.train_loss[1], history.test_loss[1],
                                                        history.train_acc[1], history.test_acc[1]))
    assert "done: final test accuracy" in out and "2 epochs in" in out
    # 80 columns, but for the line naming the plot: a path is as long as it is (pytest-xdist's make longer ones)
    assert all(len(line) <= 80 for line in out.splitlines() if str(tmp_path) not in line), out


def test_one_epoch_is_one_epoch_and_its_plot_axis_is_whole_epochs(tmp_path, capsys):
    mlp.main([*SMALL, "--epochs", "1"])
    out = capsys.readouterr().out
    assert "1 epoch," in out and "1 epoch in" in out and "1 epochs" not in out and "nan" not in out
    figure = history_figure(checkpoint.History([0.5], [0.8], [0.6], [0.75], [1.0]), "one epoch")
    for axes in figure.axes:
        low, high = axes.get_xlim()
        assert (low, high) == (0.5, 1.5)
        assert [tick for tick in axes.get_xticks() if low <= tick <= high] == [1]


def test_a_seed_makes_two_runs_identical_and_another_seed_differs(capsys):
    first = mlp.main([*SMALL, "--epochs", "2", "--seed", "3"])
    out_first = capsys.readouterr().out
    second = mlp.main([*SMALL, "--epochs", "2", "--seed", "3"])
    out_second = capsys.readouterr().out
    assert epoch_numbers(out_first) == epoch_numbers(out_second) and len(epoch_numbers(out_first)) == 2
    assert_same_weights(weights(first.model), weights(second.model))
    other = mlp.main([*SMALL, "--epochs", "2", "--seed", "4"])
    assert not np.array_equal(weights(other.model)["fc1.weight"], weights(first.model)["fc1.weight"])


RUN = [*SMALL, "--limit", "96", "--test-limit", "64"]


@pytest.fixture(scope="module")
def three_epochs(tmp_path_factory):
    """An uninterrupted 3-epoch CNN run keeping one checkpoint per epoch."""
    directory = tmp_path_factory.mktemp("checkpoints")
    result = cnn.main([*RUN, "--epochs", "3", "--save", str(directory / "ckpt-{epoch}.safetensors")])
    return result, directory


def test_resuming_continues_exactly_where_the_checkpoint_stopped(three_epochs, capsys):
    uninterrupted, directory = three_epochs
    assert mt.load(directory / "ckpt-1.safetensors")["epoch"] == 1
    resumed = cnn.main([*RUN, "--epochs", "3", "--resume", str(directory / "ckpt-1.safetensors")])
    out = capsys.readouterr().out
    assert resumed.start_epoch == 1
    assert "resumed from" in out and [p[0] for p in epoch_numbers(out)] == ["2", "3"]
    # The history of epoch 1 comes from the checkpoint; epochs 2-3 retrace the uninterrupted run
    # (same weights, optimizer moments, schedule position, BatchNorm statistics and shuffling order).
    assert resumed.history.train_loss[0] == uninterrupted.history.train_loss[0]
    assert resumed.history.test_acc == uninterrupted.history.test_acc
    assert_same_weights(weights(resumed.model), weights(uninterrupted.model))


def test_resuming_a_finished_run_with_the_same_epochs_trains_nothing(three_epochs, capsys):
    uninterrupted, directory = three_epochs
    finished = cnn.main([*RUN, "--epochs", "3", "--resume", str(directory / "ckpt-3.safetensors")])
    assert finished.start_epoch == 3 and epoch_numbers(capsys.readouterr().out) == []
    assert_same_weights(weights(finished.model), weights(uninterrupted.model))


def test_a_finished_run_extends_with_a_new_one_cycle_and_resumes_exactly_inside_it(three_epochs, tmp_path, capsys):
    uninterrupted, directory = three_epochs
    extended = cnn.main([*RUN, "--epochs", "5", "--resume", str(directory / "ckpt-3.safetensors"),
                         "--save", str(tmp_path / "ext-{epoch}.safetensors")])
    out = capsys.readouterr().out
    assert "OneCycle schedule ended at epoch 3" in " ".join(out.split())
    assert "new OneCycle cycle" in out and [p[0] for p in epoch_numbers(out)] == ["4", "5"]
    assert extended.history.test_acc[:3] == uninterrupted.history.test_acc
    # The new cycle spans epochs 4-5 and has run to its end; the checkpoint says so.
    saved = mt.load(tmp_path / "ext-5.safetensors")
    steps = 96 // 32
    assert (saved["cycle_start"], saved["cycle_end"], saved["epochs"]) == (3, 5, 5)
    assert saved["scheduler"]["total_steps"] == saved["scheduler"]["last_epoch"] == 2 * steps
    # Warm restart: epoch 4 starts again from max_lr / 25, not from the annealed ~0.
    after_4 = mt.load(tmp_path / "ext-4.safetensors")["optimizer"]["param_groups"][0]["lr"]
    assert after_4 > 2e-3 / 25

    # Resuming inside the new cycle retraces it exactly ...
    again = cnn.main([*RUN, "--epochs", "5", "--resume", str(tmp_path / "ext-4.safetensors")])
    assert_same_weights(weights(again.model), weights(extended.model))
    # ... and so does extending straight from epoch 1: the first cycle finishes, then the same new one runs.
    from_one = cnn.main([*RUN, "--epochs", "5", "--resume", str(directory / "ckpt-1.safetensors")])
    out = capsys.readouterr().out
    assert "first finishes (epochs 2-3)" in " ".join(out.split())
    assert from_one.history.test_acc == extended.history.test_acc
    assert_same_weights(weights(from_one.model), weights(extended.model))


def test_checkpoints_respect_the_umask(tmp_path, umask):
    umask(0o027)
    mlp.main([*SMALL, "--epochs", "1", "--save", str(tmp_path / "ckpt.safetensors")])
    assert (tmp_path / "ckpt.safetensors").stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]


def test_a_dataset_read_from_idx_files_in_data_dir(tmp_path):
    rng = np.random.default_rng(0)
    for prefix, n in (("train", 96), ("t10k", 32)):
        labels = np.arange(n) % 10
        # Class k is a bright k-th band of rows: easy to learn from a few batches.
        images = rng.integers(0, 40, size=(n, 28, 28)).astype(np.uint8)
        for i, label in enumerate(labels):
            images[i, 2 * label : 2 * label + 4] = 250
        mt.datasets.write_idx(tmp_path / f"{prefix}-images-idx3-ubyte", images)
        mt.datasets.write_idx(tmp_path / f"{prefix}-labels-idx1-ubyte", labels.astype(np.uint8))
    result = mlp.main(["--dataset", "mnist", "--data-dir", str(tmp_path), "--epochs", "3", "--batch-size", "16",
                       "--no-progress"])
    assert result.history.test_acc[-1] >= 0.9


# ----- the progress display -----

@pytest.mark.parametrize("columns", ["80", "200"])
def test_the_bar_ends_as_one_line_of_at_most_80_columns_with_train_and_test_results(columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    bar_output = io.StringIO()
    display = progress.EpochProgress("epoch 10/10", train_size=60_000, enabled=True, bar_file=bar_output)
    for _ in range(10):
        display.trained(6000, loss=0.41234, acc=0.853)
    with display.testing(10_000) as test_bar:
        test_bar.update(10_000)
    display.finish(progress.epoch_results(83.4, 723.9, 0.41234, 0.853, 0.44111, 0.842))
    drawn = [line for line in re.split(r"[\r\n]", bar_output.getvalue()) if line.strip()]
    assert drawn and all(len(line) <= 80 for line in drawn)
    assert re.fullmatch(r"epoch 10/10 [█#]+ 01:23 724 img/s loss 0\.4123/0\.4411 acc 0\.8530/0\.8420", drawn[-1])
    assert len(drawn) >= 2 and "%" in drawn[0]  # the live bar was drawn before the finished line


def test_without_bars_each_epoch_is_one_printed_line():
    out = io.StringIO()
    display = progress.EpochProgress("epoch 1/2", train_size=64, enabled=False, out=out)
    display.trained(64, loss=0.7, acc=0.5)
    with display.testing(100) as test_bar:
        test_bar.update(100)
    display.finish(progress.epoch_results(0.25, 256.0, 0.7, 0.5, 0.6, 0.55))
    assert out.getvalue() == "epoch 1/2 0.25s 256 img/s loss 0.7000/0.6000 acc 0.5000/0.5500\n"


# ----- what a user does to a run: Ctrl-C, a disk that fills up, a terminal that reports no width -----

@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="process groups, SIGINT and /proc: Linux")
def test_ctrl_c_names_the_epoch_and_the_checkpoint_that_resumes_and_exits_130(tmp_path):
    save = tmp_path / "mlp-{epoch}.safetensors"
    command = interrupting.start([sys.executable, "-m", "minitorch.examples.mlp", *SMALL, "--epochs", "1000",
                                  "--save", str(save)])
    try:
        lines = iter(command.stdout.readline, "")
        assert any(line.startswith("epoch    2/1000 ") for line in lines)  # two checkpoints written
        interrupting.ctrl_c(command)
        _, err = command.communicate(timeout=60)
    finally:
        command.kill()
    assert command.returncode == 130
    match = re.fullmatch(r"python -m minitorch.examples.mlp: interrupted during epoch (\d+) of 1000; the last "
                         r"checkpoint is (\S+): `--resume (\S+)` continues\n", err)
    assert match and match[2] == match[3], err
    epoch = int(match[1])  # the signal came after epoch 2's line: in its checkpoint's save, or later
    saved = next(k for k in (epoch, epoch - 1) if match[2] == str(save).replace("{epoch}", str(k)))
    assert epoch >= 2 and mt.load(match[2])["epoch"] == saved


def test_a_checkpoint_that_cannot_be_written_is_one_line_and_status_2(tmp_path, monkeypatch, capsys):
    real_save = checkpoint.save_checkpoint

    def disk_full_after_epoch_1(path, **state):
        if state["epoch"] > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        real_save(path, **state)

    monkeypatch.setattr(checkpoint, "save_checkpoint", disk_full_after_epoch_1)
    save = tmp_path / "mlp-{epoch}.safetensors"
    with pytest.raises(SystemExit) as info:
        mlp.main([*SMALL, "--epochs", "3", "--save", str(save)])
    assert info.value.code == 2
    assert capsys.readouterr().err == (f"python -m minitorch.examples.mlp: error: --save {tmp_path}/mlp-2.safetensors: "
                                       f"cannot write it: No space left on device; the last checkpoint is "
                                       f"{tmp_path}/mlp-1.safetensors\n")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="a pseudo-terminal")
def test_a_terminal_of_0_columns_gets_the_epoch_lines_as_text():
    leader, follower = os.openpty()  # a new pty reports 0 rows and 0 columns, as under `script -c` and some CI runners
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    try:
        run = subprocess.Popen([sys.executable, "-m", "minitorch.examples.mlp", "--limit", "256", "--test-limit", "100",
                                "--epochs", "2"], stdin=follower, stdout=follower, stderr=follower, env=environment)
        os.close(follower)
        output = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the pty's other end closed: the run ended
                break
            if not chunk:
                break
            output += chunk
        assert run.wait(timeout=120) == 0
    finally:
        os.close(leader)
    printed = output.decode().replace("\r\n", "\n").splitlines()
    assert [n[0] for n in epoch_numbers("\n".join(printed))] == ["1", "2"], printed
