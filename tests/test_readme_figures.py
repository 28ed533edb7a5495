"""The accuracies README's results table gives for the embedded subset are what the examples print.

Each row gives the accuracy at 2 BLAS threads (the project machine's default) and at one: the thread count
changes how sums are split, and so the last digit. The MLP at one thread runs in the default suite (a few
seconds); the others are long-running checks (-m slow).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
ROW = re.compile(r"^\| `python -m minitorch\.examples\.(\w+)` \(embedded subset, \d+ epochs\) \| "
                 r"([\d.]+) \(([\d.]+) with one thread\) \|", re.M)


def shown():
    """{(example, threads): accuracy as README gives it}."""
    rows = ROW.findall(README.read_text())
    assert [example for example, _, _ in rows] == ["mlp", "cnn"]
    return {**{(example, 2): two for example, two, _ in rows}, **{(example, 1): one for example, _, one in rows}}


def printed(example, threads):
    # All three: OpenBLAS reads OPENBLAS_NUM_THREADS before OMP_NUM_THREADS, and mt.set_num_threads (which tests
    # call) records its count in both.
    environment = {**os.environ, **dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"),
                                                 str(threads))}
    run = subprocess.run([sys.executable, "-m", f"minitorch.examples.{example}", "--no-progress"], env=environment,
                         capture_output=True, text=True, timeout=1800, check=True)
    return re.search(r"^done: final test accuracy ([\d.]+) ", run.stdout, re.M)[1]


@pytest.mark.parametrize("example, threads", [
    ("mlp", 1),
    pytest.param("mlp", 2, marks=pytest.mark.slow),
    pytest.param("cnn", 1, marks=pytest.mark.slow),
    pytest.param("cnn", 2, marks=pytest.mark.slow),
])
def test_the_accuracy_readme_shows_is_what_the_example_prints(example, threads):
    figure = shown()[example, threads]
    assert printed(example, threads).startswith(figure), f"README shows {figure}"
