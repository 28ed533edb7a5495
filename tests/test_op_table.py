"""The one op table (engine/registry.py), the method table built on it (tensor_methods.py), and the one
table of in-place twins (ops/in_place_twins.py)."""
import ast
import pathlib
import pydoc

import numpy as np
import pytest

import minitorch as mt
from minitorch import tensor_methods
from minitorch.engine.registry import OPS, TRANSPOSE
from minitorch.ops import in_place_twins
from minitorch.ops.rows import op

PACKAGE = pathlib.Path(mt.__file__).parent


def test_every_op_has_a_kernel():
    assert sorted(name for name, row in OPS.items() if row.kernel is None) == []


def test_every_differentiable_op_has_a_gradient_and_a_forward_rule_or_declares_the_transpose():
    missing = sorted(name for name, row in OPS.items() if row.differentiable and (row.grad is None or row.jvp is None))
    assert missing == [], f"differentiable ops without a gradient, or without a JVP rule or jvp=TRANSPOSE: {missing}"
    assert any(row.jvp is TRANSPOSE for row in OPS.values()) and any(callable(row.jvp) for row in OPS.values())


def test_every_gradient_function_states_its_formula():
    undocumented = sorted(name for name, row in OPS.items() if row.grad is not None and not (row.grad.__doc__ or "").strip())
    assert undocumented == []


def test_not_differentiable_ops_keep_nothing():
    for name, row in OPS.items():
        if not row.differentiable:
            assert row.grad is None and not row.needs_inputs and not row.needs_outputs, name


def test_every_method_of_the_table_is_bound_to_tensor():
    for name, fn in tensor_methods.METHODS.items():
        assert getattr(mt.Tensor, name) is fn, name
    for name in tensor_methods.PROPERTIES:
        assert isinstance(getattr(mt.Tensor, name), property), name


def test_a_method_shows_its_functions_documentation():
    assert mt.Tensor.exp.__doc__ == mt.exp.__doc__
    assert "e to the power of each element" in pydoc.render_doc(mt.Tensor.exp)
    x = mt.tensor([0.0, 1.0])
    assert mt.Tensor.exp(x).tolist() == mt.exp(x).tolist() == x.exp().tolist()


def test_a_row_is_written_once_and_whole():
    with pytest.raises(ValueError, match="'Mul' is defined twice"):
        op("Mul", np.multiply)
    with pytest.raises(ValueError, match="a gradient comes with its needs="):
        op("TestNoNeeds", np.negative, lambda op, grad: -grad)
    with pytest.raises(ValueError, match="needs='input' is none of"):
        op("TestBadNeeds", np.negative, lambda op, grad: -grad, needs="input")
    with pytest.raises(ValueError, match="a forward rule only with a gradient"):
        op("TestRuleAlone", np.negative, jvp=TRANSPOSE)
    assert not {"TestNoNeeds", "TestBadNeeds", "TestRuleAlone"} & set(OPS)


def _executed_names():
    """(op name, file) of every `execute("Name", ...)` in the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "execute" and node.args \
                    and isinstance(node.args[0], ast.Constant):
                yield node.args[0].value, path.name


def test_every_op_the_package_runs_by_name_is_a_row():
    """A misspelt op name fails here, not in the rare branch that runs it."""
    executed = set(_executed_names())
    assert len(executed) > 100
    assert sorted(name for name in executed if name[0] not in OPS) == []


def test_the_in_place_twins_are_one_table_for_tensor_and_mt():
    for name, twin in in_place_twins.IN_PLACE.items():
        assert getattr(mt.Tensor, name) is twin, name
    for name in in_place_twins.TOP_LEVEL:
        assert getattr(mt, name) is in_place_twins.IN_PLACE[name], name
    assert mt.Tensor.arccos_ is mt.Tensor.acos_ is mt.acos_ and mt.Tensor.__iadd__ is mt.Tensor.add_
    made = {name for name, value in vars(mt.Tensor).items() if getattr(value, "__code__", None) is not None
            and value.__code__ is in_place_twins.IN_PLACE["exp_"].__code__}
    assert made == {name for name, twin in in_place_twins.IN_PLACE.items() if twin is not in_place_twins.float_power_} \
        | {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
           "__ior__", "__ixor__", "__ilshift__", "__irshift__"}
