"""Every op in the registry: first and second derivatives against finite differences (float64)."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.engine.registry import OPS

from op_cases import all_cases

CASES = all_cases()


def _inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    values = case.make_inputs(rng)
    return [
        mt.tensor(v, dtype=mt.float64, requires_grad=i not in case.constants) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v
        for i, v in enumerate(values)
    ]


def test_every_registered_op_is_checked_or_marked_not_differentiable():
    covered = {case.op for case in CASES}
    unchecked = sorted(name for name, row in OPS.items() if row.differentiable and name not in covered)
    assert unchecked == [], f"ops with a kernel but no gradient check: {unchecked}"


def test_every_differentiable_op_has_a_gradient():
    missing = sorted(name for name, row in OPS.items() if row.differentiable and row.grad is None)
    assert missing == []


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id())
def test_case_runs_its_op(case):
    inputs = _inputs(case)
    with mt.GradientTape() as tape:
        tape.watch([t for t in inputs if isinstance(t, mt.Tensor)])
        outputs = case.fn(*inputs)  # noqa: F841  (alive, so the tape keeps its entries)
        recorded = {entry.op_type for entry in tape._tape.live_entries()}
    assert case.op in recorded


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id())
def test_first_order(case):
    assert mt.autograd.gradcheck(case.fn, _inputs(case), eps=case.eps, atol=1e-6 if case.eps < 1e-4 else 1e-4, rtol=1e-4)


@pytest.mark.parametrize("case", [c for c in CASES if c.second_order], ids=lambda c: c.id())
def test_second_order(case):
    assert mt.autograd.gradgradcheck(case.fn, _inputs(case), eps=1e-6, atol=1e-5, rtol=1e-3)
