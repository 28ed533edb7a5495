import importlib.util
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# minitorch's run-time dependencies (pyproject.toml): without them every test module fails to import,
# which pytest reports as dozens of collection errors; one line says what to do instead.
RUNTIME = ("numpy", "scipy", "tqdm", "matplotlib", "safetensors")
_missing = [name for name in RUNTIME if importlib.util.find_spec(name) is None]
if _missing:
    pytest.exit(f"this Python ({sys.executable}) lacks minitorch's dependencies {', '.join(_missing)}: "
                f"install them with README's command, pip install -e \".[test,parity]\"", returncode=4)


@pytest.fixture
def umask():
    """Lets a test set the process umask (the fixture's value is os.umask); restores it afterwards."""
    previous = os.umask(0o022)
    os.umask(previous)
    yield os.umask
    os.umask(previous)
