"""Second and third derivatives through create_graph, persistent and nested tapes; the example's claims."""
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.examples import higher_order

SMOOTH = {
    "exp": mt.exp, "log": lambda x: mt.log(x * x + 1), "sqrt": lambda x: mt.sqrt(x * x + 1), "sin": mt.sin,
    "cos": mt.cos, "tanh": mt.tanh, "sigmoid": mt.sigmoid, "div": lambda x: 1 / (x * x + 2),
    "pow": lambda x: (x * x + 1) ** 1.5, "softmax": lambda x: x.reshape(2, 2).softmax(dim=1) * mt.arange(4.0).reshape(2, 2),
    "log_softmax": lambda x: x.reshape(2, 2).log_softmax(dim=0) * x.reshape(2, 2),
    "logsumexp": lambda x: x.reshape(2, 2).logsumexp(dim=1) * x[:2],
    "matmul": lambda x: (x.reshape(2, 2) @ x.reshape(2, 2)).sum(dim=0) * x[2:],
}
X = np.array([0.3, -0.7, 1.1, 0.4])


def _derivatives(fn, x_values, order, mode):
    """The `order`-th derivative of sum(fn(x)) contracted with ones, as a vector in x."""
    x = mt.tensor(x_values, dtype=mt.float64, requires_grad=(mode == "create_graph"))
    if mode == "create_graph":
        y = fn(x).sum()
        for _ in range(order):
            (y,) = mt.autograd.grad(y, x, create_graph=True)
            y = y.sum()
        (g,) = mt.autograd.grad(y, x)
        return g._data
    if mode == "persistent":
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = fn(x).sum()
            for _ in range(order):
                y = tape.gradient(y, x).sum()  # recorded by the tape itself
        return tape.gradient(y, x)._data
    tapes = [mt.GradientTape() for _ in range(order + 1)]
    for t in tapes:
        t.__enter__()
        t.watch(x)
    y = fn(x).sum()
    for t in reversed(tapes[1:]):
        t.__exit__(None, None, None)
        y = t.gradient(y, x).sum()
    tapes[0].__exit__(None, None, None)
    return tapes[0].gradient(y, x)._data


@pytest.mark.parametrize("mode", ["create_graph", "persistent", "nested"])
@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_higher_derivatives_match_finite_differences_of_the_lower_ones(name, order, mode):
    fn = SMOOTH[name]
    analytic = _derivatives(fn, X, order, mode)
    eps = 1e-6
    lower_plus = [np.sum(_lower(fn, X + e, order)) for e in np.eye(len(X)) * eps]
    lower_minus = [np.sum(_lower(fn, X - e, order)) for e in np.eye(len(X)) * eps]
    numeric = (np.array(lower_plus) - np.array(lower_minus)) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def _lower(fn, x_values, order):
    """sum of the order-th derivative vector (order 1: the gradient), from create_graph."""
    x = mt.tensor(x_values, dtype=mt.float64, requires_grad=True)
    y = fn(x).sum()
    for _ in range(order):
        (y,) = mt.autograd.grad(y, x, create_graph=True)
        y = y.sum()
    return y.item()


def test_a_persistent_tape_records_its_own_gradient_and_a_non_persistent_one_does_not():
    x = mt.tensor([0.5, 1.5], dtype=mt.float64)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = (x ** 4).sum()
        g = tape.gradient(y, x)
        before = len(tape._tape)
        gg = tape.gradient(g.sum(), x)
        third = tape.gradient(gg.sum(), x)
    assert before > 1
    np.testing.assert_allclose(third._data, 24 * x._data)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = (x ** 4).sum()
        g = tape.gradient(y, x)
    assert tape._tape is None
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = (x ** 4).sum()
            g = inner.gradient(y, x)  # inside the inner context: recorded on the outer tape only
    np.testing.assert_allclose(outer.gradient(g, x)._data, 12 * x._data ** 2)


def test_forward_over_reverse_through_an_op_whose_output_tensor_died():
    w = mt.tensor(np.random.default_rng(0).standard_normal((3, 4)))
    v = mt.tensor(np.random.default_rng(1).standard_normal((3, 4)))
    x = mt.tensor(np.random.default_rng(2).standard_normal((2, 3)))

    def loss(w):
        return -(x @ w).log_softmax(dim=1)[mt.arange(2), mt.tensor([1, 3])].mean()  # log_softmax's output dies here

    with mt.ForwardAccumulator(w, v) as acc:
        with mt.GradientTape() as tape:
            tape.watch(w)
            y = loss(w)
        g = tape.gradient(y, w)
    _, expected = mt.autograd.functional.vhp(loss, w, v)
    np.testing.assert_allclose(acc.jvp(g)._data, expected._data, rtol=1e-5, atol=1e-7)


def test_the_example_prints_its_claims_and_they_hold(capsys):
    assert higher_order.main([]) == 0
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert len(lines) == 4 and all(line.endswith("OK") for line in lines)
    hvp_error = float(re.search(r"relative error ([0-9.e+-]+)", lines[0]).group(1))
    assert hvp_error < 1e-6
    steps = int(re.search(r"converged in (\d+) steps", lines[1]).group(1))
    assert steps <= 6
    before, after = map(float, re.search(r"loss ([0-9.-]+) -> ([0-9.-]+)", lines[2]).groups())
    assert after < before
    assert float(re.search(r"max difference ([0-9.e+-]+)", lines[3]).group(1)) < 1e-8


def test_a_hessian_adds_each_tensors_gradient_parts_in_pytorchs_order():
    """The reverse pass adds the gradients a tensor receives in reverse recording order, as PyTorch's engine
    (which runs nodes by sequence number) does: a float64 Hessian whose tensors are read many times
    comes out equal to PyTorch's to the last bit, not only close to it."""
    torch = pytest.importorskip("torch")
    values = np.random.default_rng(0).standard_normal(4)

    def f(x):
        return (x * x * x).sum() + (x.sin() * x).sum() + (x @ x) * x.sum() + x.exp().mean() * x[0]

    ours = mt.autograd.functional.hessian(f, mt.tensor(values, dtype=mt.float64)).numpy()
    theirs = torch.autograd.functional.hessian(f, torch.tensor(values, dtype=torch.float64)).numpy()
    assert ours.tobytes() == theirs.tobytes(), np.abs(ours - theirs).max()
