"""The one op table (engine/registry.py) and the method table built on it (tensor_methods.py)."""
import pydoc

import minitorch as mt
from minitorch import tensor_methods
from minitorch.engine.registry import OPS, TRANSPOSE


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
