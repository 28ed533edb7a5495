"""minitorch/allocator.py: glibc keeps freed array memory, so a training loop's next step reuses its pages."""
import os
import subprocess
import sys

import pytest

# In a fresh process: how many page faults the second and later rounds of allocating, touching and
# freeing 16 MiB arrays (a step's activations) cost.
PROBE = """
import resource
import numpy as np
import minitorch as mt
def round_():
    arrays = [np.ones(2 * 1024 * 1024) for _ in range(4)]  # 4 x 16 MiB, every page written
    del arrays
round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(5):
    round_()
print(mt.allocator.applied, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _probe(**env):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "MINITORCH_MALLOC"))}
    environment.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE], env=environment, capture_output=True, text=True, check=True)
    applied, faults = out.stdout.split()
    return applied == "True", int(faults)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_arrays_are_reused_instead_of_faulted_in_again():
    applied, faults = _probe()
    if not applied:
        pytest.skip("not glibc")
    default_applied, default_faults = _probe(MINITORCH_MALLOC_TUNING="0")
    assert not default_applied
    pages = 5 * 4 * 16 * 1024 * 1024 // 4096
    assert faults < pages // 100  # kept: the later rounds reuse the first round's pages
    assert default_faults > 10 * max(faults, 100)  # glibc's defaults give the memory back and fault it in again


def test_a_malloc_setting_in_the_environment_is_kept():
    applied, _ = _probe(MALLOC_TRIM_THRESHOLD_="131072")
    assert not applied
