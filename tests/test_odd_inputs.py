"""Odd inputs (issue 12), each against PyTorch: the same code run on both libraries must
raise the same kind of error, or give the same values, and print no warning PyTorch does not."""
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import minitorch as mt
from non_finite_cases import CASES

# One pytest-xdist worker runs this module (README's --dist loadgroup): its module-scoped fixture runs once.
pytestmark = pytest.mark.xdist_group("test_odd_inputs")

torch = pytest.importorskip("torch")

LIBRARIES = [pytest.param(mt, id="minitorch"), pytest.param(torch, id="torch")]
inf, nan = float("inf"), float("nan")


def quietly(fn):
    """Calls fn() with every warning shown (none hidden by an earlier print); returns (result, warnings)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", append=True)  # after the filters already there: they still apply
        result = fn()
    return result, [w for w in caught if issubclass(w.category, (RuntimeWarning, UserWarning))]


# ----- convolution -----


@pytest.mark.parametrize("L", LIBRARIES)
def test_a_zero_kernel_size_is_refused_when_the_convolution_runs(L):
    layer, _ = quietly(lambda: L.nn.Conv2d(1, 1, kernel_size=0))  # made (with a warning), as in PyTorch
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        layer(L.ones(1, 1, 5, 5))


@pytest.mark.parametrize("L", LIBRARIES)
def test_a_weight_with_an_empty_spatial_dimension_is_refused(L):
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 3"):
        L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(1, 1, 0, 3))


@pytest.mark.parametrize("L", LIBRARIES)
def test_a_weight_with_no_output_channel_is_refused(L):
    with pytest.raises(RuntimeError, match=r"expected weight to be at least 1 at dimension 0, but got weight of size \[0, 1, 3, 3\]"):
        L.nn.functional.conv2d(L.ones(1, 1, 5, 5), L.ones(0, 1, 3, 3))


@pytest.mark.parametrize("L", LIBRARIES)
def test_a_negative_kernel_size_is_refused_at_construction(L):
    with pytest.raises(RuntimeError, match="negative dimension"):
        L.nn.Conv2d(1, 1, kernel_size=-1)


@pytest.mark.parametrize("options", [{}, {"padding": 1}, {"stride": 2, "padding": 1}, {"dilation": 2}, {"groups": 2}])
def test_a_convolution_of_an_empty_batch_is_an_empty_batch_with_pytorch_gradients(options):
    rng = np.random.RandomState(0)
    weight = rng.standard_normal((4, 2 // options.get("groups", 1), 3, 3))
    results = {}
    for L in (mt, torch):
        x = L.tensor(np.zeros((0, 2, 7, 7)), requires_grad=True)
        w = L.tensor(weight, requires_grad=True)
        b = L.tensor(rng.standard_normal(4), requires_grad=True)
        y = L.nn.functional.conv2d(x, w, b, **options)
        y.sum().backward()
        results[L] = [tuple(y.shape), x.grad.shape, w.grad.detach().numpy(), b.grad.detach().numpy()]
    (shape, x_grad_shape, w_grad, b_grad), expected = results[mt], results[torch]
    assert shape == tuple(expected[0]) and shape[0] == 0
    assert tuple(x_grad_shape) == tuple(expected[1])
    np.testing.assert_array_equal(w_grad, expected[2])
    np.testing.assert_array_equal(b_grad, expected[3])


def test_the_conv2d_layer_runs_on_an_empty_batch():
    layer = mt.nn.Conv2d(3, 8, 3, padding=1)
    assert tuple(layer(mt.zeros(0, 3, 6, 6)).shape) == (0, 8, 6, 6)


# ----- cat, stack, arange -----


@pytest.mark.parametrize("L", LIBRARIES)
@pytest.mark.parametrize("position", [0, 1])
def test_cat_refuses_zero_dimensional_tensors(L, position):
    tensors = [L.tensor([1.0]), L.tensor([2.0])]
    tensors[position] = L.tensor(3.0)
    with pytest.raises(RuntimeError, match=rf"zero-dimensional tensor \(at position {position}\) cannot be concatenated"):
        L.cat(tensors)


@pytest.mark.parametrize("L", LIBRARIES)
@pytest.mark.parametrize("join, dim, bounds", [("cat", 2, r"\[-2, 1\]"), ("cat", -3, r"\[-2, 1\]"), ("stack", 3, r"\[-3, 2\]"),
                                               ("stack", -4, r"\[-3, 2\]")])
def test_cat_and_stack_refuse_a_dimension_out_of_range(L, join, dim, bounds):
    with pytest.raises(IndexError, match=rf"(?i)dimension out of range \(expected to be in range of {bounds}, but got {dim}\)"):
        getattr(L, join)([L.ones(2, 2), L.ones(2, 2)], dim=dim)


@pytest.mark.parametrize("L", LIBRARIES)
@pytest.mark.parametrize("args, message", [
    ((0, 10, 0), "step must be nonzero"),
    ((0.0, 10.0, 0.0), "step must be nonzero"),
    ((0, 10, nan), "step must be nonzero"),
    ((0, 10, -1), "upper bound and lower bound inconsistent with step sign"),
    ((10, 0, 2), "upper bound and lower bound inconsistent with step sign"),
    ((0, inf), "unsupported range: 0 -> inf"),
    ((nan, 10), "unsupported range: nan -> 10"),
])
def test_arange_refuses_what_pytorch_refuses(L, args, message):
    with pytest.raises(RuntimeError, match=message):
        L.arange(*args)


@pytest.mark.parametrize("args", [(5, 5), (5, 5, -1), (10, 0, -3), (0, 1, 0.25), (3,)])
def test_arange_still_makes_what_pytorch_makes(args):
    np.testing.assert_array_equal(mt.arange(*args).numpy(), torch.arange(*args).numpy())


# ----- boolean masks -----


MASKS = {
    "too short": lambda L: (L.tensor([True, False]),),
    "too long": lambda L: (L.tensor([True] * 6),),
    "two-dimensional, wrong width": lambda L: (L.ones(5, 2, dtype=L.bool),),
    "on the second dimension": lambda L: (slice(None), L.tensor([True, False])),
    "after an ellipsis": lambda L: (Ellipsis, L.tensor([True, False])),
    "a list of bools": lambda L: ([True, False],),
}


@pytest.mark.parametrize("L", LIBRARIES)
@pytest.mark.parametrize("mask", MASKS.values(), ids=MASKS.keys())
def test_a_boolean_mask_of_the_wrong_shape_raises_index_error(L, mask):
    x = L.ones(5, 3)
    with pytest.raises(IndexError, match="The shape of the mask .* does not match the shape of the indexed tensor"):
        x[mask(L)]
    with pytest.raises(IndexError, match="The shape of the mask"):
        x[mask(L)] = 0.0


def test_the_mask_error_names_the_shapes_and_dimensions():
    with pytest.raises(IndexError, match=r"mask \[2\] at index 0 does not match the shape of the indexed tensor \[5, 3\] at index 1"):
        mt.ones(5, 3)[:, mt.tensor([True, False])]


GOOD_MASKS = {
    "rows": lambda L: (L.tensor([True, False, True, False, True]),),
    "all dimensions": lambda L: (L.tensor(np.arange(15).reshape(5, 3) % 2 == 0),),
    "after an integer": lambda L: (1, L.tensor([True, False, True])),
    "after an ellipsis": lambda L: (Ellipsis, L.tensor([False, True, True])),
    "after None": lambda L: (None, L.tensor([True, False, True, True, False])),
}


@pytest.mark.parametrize("mask", GOOD_MASKS.values(), ids=GOOD_MASKS.keys())
def test_a_boolean_mask_of_the_right_shape_selects_what_pytorch_selects(mask):
    data = np.arange(15.0).reshape(5, 3)
    np.testing.assert_array_equal(mt.tensor(data)[mask(mt)].numpy(), torch.tensor(data)[mask(torch)].numpy())


# ----- NaN and inf without numpy's warnings -----
#
# minitorch silences numpy's floating-point warnings with a warnings filter installed when
# it is imported (engine/execute.py). pytest imports this file inside a catch_warnings
# block, which drops filters added meanwhile, so the warnings are looked for in a fresh
# interpreter, as a user's script would see them.

CHILD = r"""
import json, sys, warnings
sys.path.insert(0, sys.argv[1])
import minitorch as mt
from non_finite_cases import CASES
seen = {}
for name, case in CASES.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", append=True)  # behind minitorch's filter: it still applies
        case(mt)
    seen[name] = [str(w.message) for w in caught]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", append=True)
    np = __import__("numpy")
    np.array([1.0]) / 0
seen["numpy outside minitorch"] = [str(w.message) for w in caught]
print(json.dumps(seen))
"""



@pytest.fixture(scope="module")
def warnings_seen():
    tests = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", CHILD, tests], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", CASES)
def test_nan_and_inf_come_silently_with_pytorch_values(name, warnings_seen):
    assert warnings_seen[name] == []
    _, torch_warned = quietly(lambda: CASES[name](torch))
    assert not torch_warned  # the case is one where PyTorch is silent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = CASES[name](mt), CASES[name](torch)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=0)  # nan where PyTorch has nan


def test_numpy_warnings_outside_minitorch_are_left_alone(warnings_seen):
    assert warnings_seen["numpy outside minitorch"] == ["divide by zero encountered in divide"]
