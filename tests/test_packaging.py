"""Packaging: the wheel that README's install builds, its metadata, and README's commands.

The wheel is built the way `pip install` builds it (an isolated build
environment with the setuptools that pyproject.toml's build-system allows), from
a copy of the sources so that no build/ or *.egg-info lands in the checkout.
Any Python warning from the build backend (e.g. setuptools' deprecations,
which turn into errors once their deadline passes) fails the test.
"""
import email.parser
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON_WARNING = re.compile(r"\b[A-Z]\w*Warning\b")  # e.g. "SetuptoolsDeprecationWarning: ..."


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "minitorch", source / "minitorch", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", str(source), "-w", str(work / "out")],
                           capture_output=True, text=True, timeout=600)
    output = build.stdout + build.stderr
    assert build.returncode == 0, output[-3000:]
    (path,) = (work / "out").glob("*.whl")
    return path, output


@pytest.mark.slow  # builds the wheel
def test_the_build_prints_no_python_warning(wheel):
    _, output = wheel
    warnings = [line.strip() for line in output.splitlines() if PYTHON_WARNING.search(line)]
    assert warnings == []


@pytest.mark.slow  # builds the wheel
def test_wheel_metadata_names_the_distribution_and_its_licence(wheel):
    path, _ = wheel
    assert path.name.startswith("minitorch_tape-0.1.0-py3-none-any")
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(archive.read(metadata_name).decode())
        licence = archive.read("minitorch_tape-0.1.0.dist-info/licenses/LICENSE").decode()
    assert metadata["Name"] == "minitorch-tape"
    assert metadata["License-Expression"] == "MIT" and metadata["License"] is None
    assert metadata.get_all("License-File") == ["LICENSE", "minitorch/datasets/embedded/LICENSE"]
    assert licence == (ROOT / "LICENSE").read_text() and licence.startswith("MIT License")
    assert "minitorch_tape-0.1.0.dist-info/licenses/minitorch/datasets/embedded/LICENSE" in names
    # The import name stays minitorch, and the embedded data set ships inside it.
    assert "minitorch/__init__.py" in names and "minitorch/datasets/embedded/t10k-images-idx3-ubyte.gz" in names
    requirements = metadata.get_all("Requires-Dist")
    assert 'torch==2.13.0; extra == "parity"' in requirements
    # The test extra installs alone, without torch; the package itself never needs torch.
    assert [r for r in requirements if r.startswith("torch")] == ['torch==2.13.0; extra == "parity"']
    assert set(metadata.get_all("Provides-Extra")) == {"test", "parity", "distributed"}


def test_build_requirements_are_bounded():
    text = (ROOT / "pyproject.toml").read_text()
    (requires,) = re.findall(r"^requires = \[(.*)\]$", text, flags=re.M)
    assert re.fullmatch(r'"setuptools>=[\d.]+,<\d+"', requires), requires


def test_readme_test_command_is_the_ci_command():
    readme = (ROOT / "README.md").read_text()
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    commands = [line.strip() for line in readme.splitlines() if line.startswith("    python3 -m venv")]
    install_and_run, install_and_test = commands[:2]  # the two at the top
    assert install_and_run.endswith("pip install -e . && python -m minitorch.examples.mlp")
    assert '".[test,parity]"' in install_and_test
    assert install_and_test.endswith("python -m pytest -q -n auto --dist loadgroup")
    assert install_and_test in ci
    # The long-running checks README names run in CI too.
    assert "`python -m pytest -q -m slow`" in readme and "python -m pytest -q -m slow" in ci


def test_no_document_points_outside_the_repository():
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for document in documents:
        assert "../shared" not in document.read_text(), document.name
