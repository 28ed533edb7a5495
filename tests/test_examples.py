"""The training examples' command line, run in-process through main(argv) on a few hundred samples.

Checks what a user relies on: the loss falls, the plot is a real PNG, a
checkpoint resumes exactly where the run stopped, and a seed makes two runs
print the same numbers. Real images (the embedded Fashion-MNIST subset), tiny
budgets: --limit/--test-limit keep each run to a few batches.
"""
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.examples import cnn, mlp

SMALL = ["--limit", "256", "--test-limit", "200", "--batch-size", "32", "--no-progress"]


def weights(model):
    return {key: np.array(value) for key, value in model.state_dict().items()}


def assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def printed_numbers(output):
    """The printed epoch and summary lines without their wall times (which differ from run to run)."""
    lines = [line for line in output.splitlines() if line.startswith(("epoch", "done"))]
    return [re.sub(r"[\d.]+ s\b|[\d.]+ s/epoch", "<time>", line) for line in lines]


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
    assert re.search(r"epoch  2/2  train loss [\d.]+  train acc [\d.]+  test loss [\d.]+  test acc [\d.]+", out)
    assert "done: final test accuracy" in out


def test_a_seed_makes_two_runs_identical_and_another_seed_differs(capsys):
    first = mlp.main([*SMALL, "--epochs", "2", "--seed", "3"])
    out_first = capsys.readouterr().out
    second = mlp.main([*SMALL, "--epochs", "2", "--seed", "3"])
    out_second = capsys.readouterr().out
    assert printed_numbers(out_first) == printed_numbers(out_second) and len(printed_numbers(out_first)) == 3
    assert_same_weights(weights(first.model), weights(second.model))
    other = mlp.main([*SMALL, "--epochs", "2", "--seed", "4"])
    assert not np.array_equal(weights(other.model)["fc1.weight"], weights(first.model)["fc1.weight"])


def test_resuming_continues_exactly_where_the_checkpoint_stopped(tmp_path, capsys):
    # --save with {epoch} keeps one checkpoint per epoch of an uninterrupted 3-epoch run.
    template = str(tmp_path / "ckpt-{epoch}.safetensors")
    run = [*SMALL, "--limit", "96", "--test-limit", "64", "--epochs", "3"]
    uninterrupted = cnn.main([*run, "--save", template])
    saved_after_1 = mt.load(tmp_path / "ckpt-1.safetensors")
    assert saved_after_1["epoch"] == 1
    capsys.readouterr()

    # Resuming from a finished run trains nothing: the model is exactly the saved one.
    finished = cnn.main([*run, "--resume", str(tmp_path / "ckpt-3.safetensors")])
    assert finished.start_epoch == 3
    assert_same_weights(weights(finished.model), weights(uninterrupted.model))

    resumed = cnn.main([*run, "--resume", str(tmp_path / "ckpt-1.safetensors")])
    out = capsys.readouterr().out
    assert resumed.start_epoch == 1
    assert "resumed from" in out and "epoch  1/3" not in out and "epoch  2/3" in out and "epoch  3/3" in out
    # The history of epoch 1 comes from the checkpoint; epochs 2-3 retrace the uninterrupted run
    # (same weights, optimizer moments, schedule position, BatchNorm statistics and shuffling order).
    assert resumed.history.train_loss[0] == uninterrupted.history.train_loss[0]
    assert resumed.history.test_acc == uninterrupted.history.test_acc
    assert_same_weights(weights(resumed.model), weights(uninterrupted.model))


def test_resuming_with_a_different_schedule_is_refused(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    mlp.main([*SMALL, "--epochs", "1", "--save", str(path)])
    with pytest.raises(ValueError, match="--epochs 1"):
        mlp.main([*SMALL, "--epochs", "2", "--resume", str(path)])


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


@pytest.mark.parametrize("flags", [["--epochs", "0"], ["--limit", "-1"], ["--lr", "0"], ["--dataset", "cifar"]])
def test_bad_flags_are_refused_by_the_parser(flags, capsys):
    with pytest.raises(SystemExit):
        mlp.main(flags)
    assert "error" in capsys.readouterr().err
