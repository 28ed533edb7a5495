"""docs/tutorial.md runs: every ```python block, in order, in one namespace.

A ```text block that comes right after a python block is the output that
block prints; it is compared like a doctest (ELLIPSIS: `...` matches
anything, NORMALIZE_WHITESPACE), so the tutorial cannot go stale.
"""
import contextlib
import doctest
import io
import os
import re
from pathlib import Path

from minitorch.exercises import one_epoch

TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks():
    """[(line number, python source, expected output or None)] in file order."""
    text = TUTORIAL.read_text()
    fences = [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]
    result = []
    for i, (language, body, line) in enumerate(fences):
        if language == "python":
            follows = fences[i + 1] if i + 1 < len(fences) else None
            expected = follows[1] if follows and follows[0] == "text" else None
            result.append((line, body, expected))
    return result


def test_the_tutorial_has_code_and_outputs():
    found = blocks()
    assert len(found) >= 10
    assert sum(expected is not None for _, _, expected in found) >= len(found) - 1


def test_every_tutorial_block_runs_and_prints_what_the_tutorial_shows(tmp_path):
    namespace = {"__name__": "tutorial"}
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    cwd = os.getcwd()
    os.chdir(tmp_path)  # anything a block writes lands here
    try:
        for line, source, expected in blocks():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(source, f"{TUTORIAL.name}:{line}", "exec"), namespace)
            if expected is not None:
                got = out.getvalue()
                assert checker.check_output(expected, got, flags), (
                    f"tutorial block at line {line} printed:\n{got}\nbut the tutorial shows:\n{expected}"
                )
    finally:
        os.chdir(cwd)


def test_every_local_link_and_picture_in_the_docs_exists():
    root = TUTORIAL.parent.parent
    missing = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                missing.append(f"{page.name}: {target}")
    assert missing == []


def test_the_training_accuracy_the_tutorial_shows_is_what_check_prints():
    shown = re.findall(r"^  (?:minitorch's|your) gradients +test accuracy ([\d.]+)", TUTORIAL.read_text(), re.M)
    assert len(shown) == 2
    assert set(shown) == {f"{one_epoch():.4f}"}  # right gradients: the same weights, batches and steps
