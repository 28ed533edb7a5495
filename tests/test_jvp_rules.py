"""Forward mode against reverse mode and finite differences, for every op with a gradient case.

For each case, with random tangents v and cotangents u (float64):
  <u, J v> (ForwardAccumulator)  ==  <J^T u, v> (GradientTape)
and J v agrees with central differences of the function along v. Each case
runs twice: with the op table's forward rules, and with every rule swapped
for the fallback that transposes the op's backward function (TensorFlow's
ForwardpropFromTape, tensorflow/c/eager/tape.h).
"""
import numpy as np
import pytest

import minitorch as mt
from minitorch.engine.registry import OPS, TRANSPOSE

from op_cases import all_cases

CASES = all_cases()
FORWARD_CASES = [case for case in CASES if case.forward_mode]  # CTCLoss has no forward mode, as in PyTorch


def _case_inputs(case, seed):
    rng = np.random.default_rng(seed)
    values = case.make_inputs(rng)
    inputs, wrt = [], []
    for i, v in enumerate(values):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            t = mt.tensor(v, dtype=mt.float64)
            if i not in case.constants:
                wrt.append(t)
        else:
            t = v
        inputs.append(t)
    return inputs, wrt


def _float_outputs(result):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if isinstance(o, mt.Tensor) and o.is_floating_point()]


def _perturbed(case, inputs, wrt, tangents, step):
    shifted = []
    moved = {id(t): v for t, v in zip(wrt, tangents)}
    for t in inputs:
        if isinstance(t, mt.Tensor) and id(t) in moved:
            t = mt.tensor(t._data + step * moved[id(t)], dtype=mt.float64)
        shifted.append(t)
    return [o._data for o in _float_outputs(case.fn(*shifted))]


def _check_case(case, seed=0):
    inputs, wrt = _case_inputs(case, seed)
    rng = np.random.default_rng(seed + 100)
    tangents = [rng.standard_normal(t.shape) for t in wrt]

    with mt.ForwardAccumulator(wrt, [mt.tensor(v, dtype=mt.float64) for v in tangents]) as acc:
        outputs = _float_outputs(case.fn(*inputs))
    jvps = [acc.jvp(o, unconnected_gradients="zero")._data for o in outputs]

    cotangents = [rng.standard_normal(o.shape) for o in outputs]
    with mt.GradientTape() as tape:
        tape.watch(wrt)
        outputs_again = _float_outputs(case.fn(*inputs))
    vjps = tape.gradient(outputs_again, wrt, output_gradients=[mt.tensor(u, dtype=mt.float64) for u in cotangents],
                         unconnected_gradients="zero")

    forward = sum(float(np.sum(u * j)) for u, j in zip(cotangents, jvps))
    reverse = sum(float(np.sum(g._data * v)) for g, v in zip(vjps, tangents))
    rel = 1e-8 if case.eps < 1e-4 else 1e-5  # cases with a large eps pass through float32
    assert forward == pytest.approx(reverse, rel=rel, abs=1e-10), f"{case.id()}: <u, Jv> = {forward} but <J^T u, v> = {reverse}"

    eps = max(case.eps, 1e-6)
    plus = _perturbed(case, inputs, wrt, tangents, eps)
    minus = _perturbed(case, inputs, wrt, tangents, -eps)
    tol = 1e-6 if eps < 1e-4 else 1e-2
    for j, p, m in zip(jvps, plus, minus):
        np.testing.assert_allclose(j, (p - m) / (2 * eps), rtol=tol, atol=tol, err_msg=f"{case.id()}: J v vs finite differences")


@pytest.mark.parametrize("case", FORWARD_CASES, ids=lambda c: c.id())
def test_jvp_by_rule_or_fallback_is_the_transpose_of_the_vjp(case):
    _check_case(case)


@pytest.mark.parametrize("case", FORWARD_CASES, ids=lambda c: c.id())
def test_jvp_by_fallback_is_the_transpose_of_the_vjp(case, monkeypatch):
    for row in OPS.values():
        monkeypatch.setattr(row, "jvp", TRANSPOSE)
    _check_case(case, seed=1)


def _rules():
    return {name: row.jvp for name, row in OPS.items() if row.jvp is not None and row.jvp is not TRANSPOSE}


def test_every_rule_belongs_to_a_registered_differentiable_op_with_a_case():
    covered = {case.op for case in CASES}
    for name in _rules():
        assert OPS[name].kernel is not None and OPS[name].grad is not None, name
    untested = sorted(name for name in _rules() if name not in covered)
    assert untested == []


def test_rules_cover_the_ops_of_a_training_step():
    for name in ("Add", "Sub", "Mul", "RealDiv", "Neg", "Exp", "Log", "Sqrt", "Tanh", "Sigmoid", "Relu", "MatMul",
                 "Sum", "Mean", "Reshape", "Transpose", "BroadcastTo", "StridedSlice", "GatherNd", "ConcatV2",
                 "Pack", "Cast", "Identity", "AddN", "Softmax", "LogSoftmax", "ReluGrad"):
        assert name in _rules(), name


def test_fallback_is_used_for_an_op_without_a_rule(monkeypatch):
    calls = []
    original = mt.ForwardAccumulator._forwardprop_from_tape

    def spy(self, op_name, *args):
        calls.append(op_name)
        return original(self, op_name, *args)

    monkeypatch.setattr(mt.ForwardAccumulator, "_forwardprop_from_tape", spy)
    assert "Pow" not in _rules()
    x = mt.tensor([1.5, 2.0], dtype=mt.float64)
    with mt.ForwardAccumulator(x, mt.tensor([1.0, -1.0], dtype=mt.float64)) as acc:
        y = x ** 3
    assert calls == ["Pow"]
    np.testing.assert_allclose(acc.jvp(y)._data, 3 * x._data ** 2 * np.array([1.0, -1.0]))
