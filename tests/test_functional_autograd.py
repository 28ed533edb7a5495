"""mt.autograd.functional: PyTorch's argument and return conventions, values against finite differences and torch."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import functional as AF


def f64(values, requires_grad=False):
    return mt.tensor(values, dtype=mt.float64, requires_grad=requires_grad)


def cubic(x):
    return (x ** 3).sum() * x[0] + mt.sin(x).sum()


def pair(a, b):
    return (a * b).exp(), (a - b) ** 2


def _hessian_cubic(xs):
    h = np.diag(6 * xs * xs[0] - np.sin(xs))
    h[0, :] += 3 * xs ** 2
    h[:, 0] += 3 * xs ** 2
    return h


X = np.array([0.5, -1.0, 2.0])


def test_vjp_and_jvp_single_tensor_conventions():
    x, v = f64(X), f64([1.0, 2.0, 3.0])
    out, vjp = AF.vjp(lambda t: t * t, x, v)
    assert isinstance(out, mt.Tensor) and isinstance(vjp, mt.Tensor)
    np.testing.assert_array_equal(vjp._data, 2 * X * v._data)
    out, jvp = AF.jvp(lambda t: t.exp(), x, v)
    np.testing.assert_allclose(jvp._data, np.exp(X) * v._data)
    np.testing.assert_allclose(out._data, np.exp(X))


def test_tuple_inputs_and_outputs_give_tuples():
    a, b = f64([1.0, 2.0]), f64([0.5, -0.5])
    u = (f64([1.0, 1.0]), f64([1.0, -1.0]))
    outs, vjps = AF.vjp(pair, (a, b), u)
    assert isinstance(outs, tuple) and isinstance(vjps, tuple) and len(vjps) == 2
    e = np.exp(a._data * b._data)
    d = a._data - b._data
    np.testing.assert_allclose(vjps[0]._data, e * b._data + 2 * d * u[1]._data)
    np.testing.assert_allclose(vjps[1]._data, e * a._data - 2 * d * u[1]._data)
    outs, jvps = AF.jvp(pair, (a, b), u)
    np.testing.assert_allclose(jvps[0]._data, e * (b._data + a._data * u[1]._data))
    np.testing.assert_allclose(jvps[1]._data, 2 * d * (1 - u[1]._data))


def test_v_may_be_omitted_only_for_single_elements():
    _, g = AF.vjp(lambda t: (t * t).sum(), f64(X))
    np.testing.assert_array_equal(g._data, 2 * X)
    with pytest.raises(RuntimeError, match="v can only be None"):
        AF.vjp(lambda t: t * t, f64(X))
    with pytest.raises(RuntimeError, match="v can only be None"):
        AF.jvp(lambda t: t * t, f64(X))
    with pytest.raises(RuntimeError, match=r"Entry 0 in v has invalid size: should be \(3,\) but got \(2,\)"):
        AF.vjp(lambda t: t * t, f64(X), f64([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        AF.vjp(lambda t: t, [f64(X)], f64(X))


def test_strict_raises_for_independent_outputs_and_zeros_otherwise():
    a, b = f64([1.0]), f64([2.0])
    _, grads = AF.vjp(lambda a, b: a * 3, (a, b), f64([1.0]))
    np.testing.assert_array_equal(grads[1]._data, [0.0])
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.vjp(lambda a, b: a * 3, (a, b), f64([1.0]), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent of input 1"):
        AF.jacobian(lambda a, b: a * 3, (a, b), strict=True)
    assert not AF.jacobian(lambda a, b: a * 3, (a, b))[1]._data.any()
    with pytest.raises(RuntimeError, match="independent"):
        AF.jvp(lambda a: b * 2, a, f64([1.0]), strict=True)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode", "auto"])
def test_jacobian_structures_and_values(strategy):
    a, b = f64([1.0, 2.0]), f64([0.5, -0.5])
    jac = AF.jacobian(pair, (a, b), strategy=strategy)
    assert isinstance(jac, tuple) and all(isinstance(row, tuple) and len(row) == 2 for row in jac)
    e = np.exp(a._data * b._data)
    np.testing.assert_allclose(jac[0][0]._data, np.diag(e * b._data))
    np.testing.assert_allclose(jac[1][1]._data, np.diag(-2 * (a._data - b._data)))
    single = AF.jacobian(lambda t: mt.tanh(t).reshape(3, 1) * t, f64(X), strategy=strategy)
    assert single.shape == (3, 3, 3)
    tall = AF.jacobian(lambda t: t.reshape(3, 1) * t, f64(X), strategy=strategy)
    expected = np.zeros((3, 3, 3))
    for i in range(3):
        for j in range(3):
            expected[i, j, i] += X[j]
            expected[i, j, j] += X[i]
    np.testing.assert_allclose(tall._data, expected)
    one_input_two_outputs = AF.jacobian(lambda t: (t.sum(), t * 2), f64(X), strategy=strategy)
    assert isinstance(one_input_two_outputs, tuple) and one_input_two_outputs[0].shape == (3,)
    two_inputs_one_output = AF.jacobian(lambda p, q: p * q, (a, b), strategy=strategy)
    assert isinstance(two_inputs_one_output, tuple) and two_inputs_one_output[0].shape == (2, 2)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_hessian_matches_the_analytic_hessian(strategy):
    h = AF.hessian(cubic, f64(X), outer_jacobian_strategy=strategy)
    np.testing.assert_allclose(h._data, _hessian_cubic(X), rtol=1e-12)
    hh = AF.hessian(lambda a, b: (a * a * b).sum(), (f64([1.0, 2.0]), f64([3.0, 4.0])), outer_jacobian_strategy=strategy)
    assert isinstance(hh, tuple) and isinstance(hh[0], tuple)
    np.testing.assert_allclose(hh[0][0]._data, np.diag([6.0, 8.0]))
    np.testing.assert_allclose(hh[0][1]._data, np.diag([2.0, 4.0]))
    np.testing.assert_allclose(hh[1][1]._data, np.zeros((2, 2)))
    with pytest.raises(RuntimeError, match="should contain a single element"):
        AF.hessian(lambda t: t * 2, f64(X))


def test_hvp_forward_over_reverse_and_vhp_reverse_over_reverse_agree():
    v = f64([1.0, -2.0, 0.5])
    out, hv = AF.hvp(cubic, f64(X), v)
    _, vh = AF.vhp(cubic, f64(X), v)
    expected = _hessian_cubic(X) @ v._data
    np.testing.assert_allclose(hv._data, expected, rtol=1e-12)
    np.testing.assert_allclose(vh._data, expected, rtol=1e-12)
    assert out.item() == pytest.approx(cubic(f64(X)).item())
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        AF.hvp(lambda t: (t, t), f64(X), v)


def test_create_graph_keeps_results_differentiable():
    x = f64(X, requires_grad=True)
    v = f64([1.0, 0.0, 0.0])
    _, hv = AF.hvp(cubic, x, v, create_graph=True)
    assert hv.requires_grad
    (third,) = mt.autograd.grad(hv.sum(), x)
    # d/dx sum_i H_i0(x) = d/dx [6 x_0^2 - sin x_0 + 3 sum_{i} x_i^2 + 3 x_0^2]  (row 0 plus column 0 overlap)
    numeric = np.array([(AF.hvp(cubic, f64(X + e), v)[1]._data.sum() - AF.hvp(cubic, f64(X - e), v)[1]._data.sum()) / 2e-6
                        for e in np.eye(3) * 1e-6])
    np.testing.assert_allclose(third._data, numeric, rtol=1e-6)
    _, plain = AF.hvp(cubic, x, v)
    assert not plain.requires_grad
    jac = AF.jacobian(lambda t: t.exp(), x, create_graph=True)
    assert jac.requires_grad
    (g,) = mt.autograd.grad(jac.sum(), x)
    np.testing.assert_allclose(g._data, np.exp(X))


def test_against_torch_functional():
    torch = pytest.importorskip("torch")
    import torch.autograd.functional as TF

    def tcubic(t):
        return (t ** 3).sum() * t[0] + torch.sin(t).sum()

    tx, tv = torch.tensor(X), torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    np.testing.assert_allclose(AF.hessian(cubic, f64(X))._data, TF.hessian(tcubic, tx).numpy(), rtol=1e-12)
    np.testing.assert_allclose(AF.hvp(cubic, f64(X), f64(tv.numpy()))[1]._data, TF.hvp(tcubic, tx, tv)[1].numpy(), rtol=1e-12)
    ta, tb = torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([0.5, -0.5], dtype=torch.float64)
    tjac = TF.jacobian(lambda a, b: (torch.exp(a * b), (a - b) ** 2), (ta, tb))
    mjac = AF.jacobian(pair, (f64([1.0, 2.0]), f64([0.5, -0.5])))
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(mjac[i][j]._data, tjac[i][j].numpy(), rtol=1e-12)
