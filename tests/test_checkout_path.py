"""A checkout at any path works: `git clone <url>/minitorch` puts a folder named `minitorch` above the package.

Anomaly reports must keep the user's frames there (they used to drop every frame whose path held
"/minitorch/"), both for a script kept in that folder and for this project's own tests run from it.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """\
import minitorch as mt
assert mt.__file__.startswith(%r), mt.__file__
with mt.autograd.detect_anomaly():
    try:
        mt.log(mt.tensor([0.0]))  # the user's line
    except mt.autograd.AnomalyError as error:
        print(error)
"""


def checkout_under_a_minitorch_folder(tmp_path):
    """A copy of the package and the anomaly tests at tmp_path/minitorch/, as a clone named minitorch lays them out."""
    checkout = tmp_path / "minitorch"
    shutil.copytree(ROOT / "minitorch", checkout / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    (checkout / "tests").mkdir()
    for name in ("conftest.py", "test_trace_hooks_anomaly.py"):
        shutil.copy(ROOT / "tests" / name, checkout / "tests" / name)
    shutil.copy(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    return checkout


def test_anomaly_reports_keep_the_users_frames_in_a_checkout_under_a_folder_named_minitorch(tmp_path):
    checkout = checkout_under_a_minitorch_folder(tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"}
    (checkout / "script.py").write_text(SCRIPT % str(checkout / "minitorch"))
    script = subprocess.run([sys.executable, "script.py"], cwd=checkout, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert script.returncode == 0, script.stderr
    assert "script.py" in script.stdout and "the user's line" in script.stdout, script.stdout
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=checkout,
                           env=environment, capture_output=True, text=True, timeout=300)
    assert tests.returncode == 0, tests.stdout[-3000:]
