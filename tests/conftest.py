import importlib.util
import os
import random
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

# Under pytest-xdist every core runs a worker: one BLAS thread each, else the workers' BLAS threads compete for
# the cores and wait for one another at every GEMM (minitorch/threads.py says what that costs).
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("OMP_NUM_THREADS", "1")

# After the check above, which turns their absence into one line. minitorch before numpy, as its users import it:
# minitorch/threads.py sets OpenBLAS's environment before numpy loads the library.
import minitorch as mt  # noqa: E402
import numpy as np  # noqa: E402


_module_rng_states = {}  # a test module's RNG as collection left it (its parametrize values may draw from it)


@pytest.fixture(autouse=True)
def seeded(request):
    """Every test starts from the same random state, whatever ran before it or beside it (in any order, under
    xdist): numpy's global generator, Python's `random`, minitorch's generator, PyTorch's once imported, and the
    test module's own numpy Generator `RNG` if it has one."""
    module_rng = getattr(request.module, "RNG", None)
    if isinstance(module_rng, np.random.Generator):
        state = _module_rng_states.setdefault(request.module.__name__, module_rng.bit_generator.state)
        module_rng.bit_generator.state = state
    random.seed(0)
    np.random.seed(0)
    mt.manual_seed(0)
    if "torch" in sys.modules:  # never imported here just for this: most tests do not use PyTorch
        sys.modules["torch"].manual_seed(0)


@pytest.fixture
def umask():
    """Lets a test set the process umask (the fixture's value is os.umask); restores it afterwards."""
    previous = os.umask(0o022)
    os.umask(previous)
    yield os.umask
    os.umask(previous)
