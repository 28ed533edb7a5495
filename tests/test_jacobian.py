"""GradientTape.jacobian and batch_jacobian (TensorFlow's shapes, checks and messages)."""
import numpy as np
import pytest

import minitorch as mt


def f64(values):
    return mt.tensor(values, dtype=mt.float64)


def _numeric_jacobian(fn, x, eps=1e-6):
    base = fn(x._data)
    jac = np.zeros(base.shape + x._data.shape)
    for idx in np.ndindex(*x._data.shape):
        step = np.zeros_like(x._data)
        step[idx] = eps
        jac[(...,) + idx] = (fn(x._data + step) - fn(x._data - step)) / (2 * eps)
    return jac


def test_jacobian_shape_and_values_match_finite_differences():
    rng = np.random.default_rng(0)
    x = f64(rng.standard_normal((2, 3)))
    w = f64(rng.standard_normal((3, 4)))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.tanh(x @ w)
    jac = tape.jacobian(y, x)
    assert jac.shape == (2, 4, 2, 3)
    np.testing.assert_allclose(jac._data, _numeric_jacobian(lambda a: np.tanh(a @ w._data), x), rtol=1e-7, atol=1e-9)


def test_jacobian_of_several_sources_keeps_their_structure():
    a, b = f64([1.0, 2.0]), f64(3.0)
    with mt.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    jac = tape.jacobian(y, {"a": a, "b": b})
    np.testing.assert_array_equal(jac["a"]._data, np.eye(2) * 3.0)
    np.testing.assert_array_equal(jac["b"]._data, [1.0, 2.0])
    assert jac["b"].shape == (2,)


def test_unconnected_sources_give_none_or_zeros():
    x, unused = f64([1.0, 2.0]), f64([5.0, 6.0, 7.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([x, unused])
        y = x * x
    assert tape.jacobian(y, unused) is None
    zero = tape.jacobian(y, unused, unconnected_gradients="zero")
    assert zero.shape == (2, 3) and not zero._data.any()


def test_a_non_persistent_tape_gives_one_jacobian_then_raises():
    x = f64([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x.exp()
    np.testing.assert_allclose(tape.jacobian(y, x)._data, np.diag(np.exp(x._data)))
    with pytest.raises(RuntimeError, match="only be used to compute one set of gradients"):
        tape.jacobian(y, x)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x.exp()
    with pytest.raises(ValueError, match="persistent=True"):
        tape.jacobian(y, x, experimental_use_pfor=False)


def test_a_persistent_tape_recording_its_jacobian_gives_the_hessian():
    x = f64([0.5, -1.0, 2.0])
    with mt.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = (x ** 3).sum() * x[0]
        g = inner.gradient(y, x)
    hessian = outer.jacobian(g, x)
    xs = x._data
    expected = np.diag(6 * xs * xs[0])
    expected[0, :] += 3 * xs ** 2
    expected[:, 0] += 3 * xs ** 2
    np.testing.assert_allclose(hessian._data, expected, rtol=1e-12)


def test_batch_jacobian_equals_the_diagonal_blocks_of_the_full_jacobian():
    rng = np.random.default_rng(1)
    x = f64(rng.standard_normal((4, 3)))
    w = f64(rng.standard_normal((3, 2)))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.sigmoid(x @ w) * x.sum(dim=1, keepdim=True)
    batch = tape.batch_jacobian(y, x)
    full = tape.jacobian(y, x)
    assert batch.shape == (4, 2, 3)
    np.testing.assert_allclose(batch._data, np.einsum("bibj->bij", full._data), rtol=1e-12)


def test_batch_jacobian_checks_ranks_and_first_dimensions_like_tensorflow():
    x = f64(np.ones((3, 2)))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2
        flat = x.sum(dim=1)
        other = x[:2] * 1
    with pytest.raises(ValueError, match=r"Shape \(3,\) must have rank at least 2"):
        tape.batch_jacobian(flat, x)
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(2, 2\)\) and source shape \(\(3, 2\)\) to match."):
        tape.batch_jacobian(other, x)
    assert tape.batch_jacobian(y, x).shape == (3, 2, 2)


def test_jacobian_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    values = rng.standard_normal((3, 2))
    tj = torch.autograd.functional.jacobian(lambda t: torch.softmax(t, dim=1).log() * t, torch.tensor(values))
    x = f64(values)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x.softmax(dim=1).log() * x
    np.testing.assert_allclose(tape.jacobian(y, x)._data, tj.numpy(), rtol=1e-12, atol=1e-14)
