"""Optimizers: hand-computed update rules, param groups, zero_grad, state_dict round trips, errors.

Each expectation spells out PyTorch's formula for two or three steps on a
tiny float64 parameter with fixed gradients.
"""
import math

import numpy as np
import pytest

import minitorch as mt
from minitorch import optim

P0 = np.array([1.0, -2.0])
G1 = np.array([0.5, -1.0])
G2 = np.array([-0.25, 2.0])
G3 = np.array([1.5, 0.5])


def _steps(optimizer_cls, grads, p0=P0, **kwargs):
    """Runs one step per gradient; returns the parameter value after each step and the optimizer."""
    p = mt.tensor(p0, requires_grad=True)
    opt = optimizer_cls([p], **kwargs)
    values = []
    for g in grads:
        p.grad = mt.tensor(np.asarray(g, dtype=p0.dtype))
        opt.step()
        values.append(p.detach().numpy().copy())
    return values, opt, p


def _close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-13, atol=1e-15)


# ----- SGD -----

def test_sgd_plain():
    values, _, _ = _steps(optim.SGD, [G1, G2], lr=0.1)
    _close(values[0], P0 - 0.1 * G1)
    _close(values[1], P0 - 0.1 * G1 - 0.1 * G2)


def test_sgd_momentum_and_dampening():
    values, opt, p = _steps(optim.SGD, [G1, G2, G3], lr=0.1, momentum=0.9, dampening=0.25)
    buf1 = G1                          # the first step copies the gradient, no dampening
    buf2 = 0.9 * buf1 + 0.75 * G2
    buf3 = 0.9 * buf2 + 0.75 * G3
    _close(values[0], P0 - 0.1 * buf1)
    _close(values[1], P0 - 0.1 * buf1 - 0.1 * buf2)
    _close(values[2], P0 - 0.1 * (buf1 + buf2 + buf3))
    _close(opt.state[p]["momentum_buffer"].numpy(), buf3)


def test_sgd_nesterov():
    values, _, _ = _steps(optim.SGD, [G1, G2], lr=0.1, momentum=0.9, nesterov=True)
    buf1 = G1
    p1 = P0 - 0.1 * (G1 + 0.9 * buf1)
    buf2 = 0.9 * buf1 + G2
    _close(values[0], p1)
    _close(values[1], p1 - 0.1 * (G2 + 0.9 * buf2))


def test_sgd_weight_decay_and_maximize():
    values, _, _ = _steps(optim.SGD, [G1, G2], lr=0.1, weight_decay=0.2, maximize=True)
    p1 = P0 - 0.1 * (-G1 + 0.2 * P0)
    _close(values[0], p1)
    _close(values[1], p1 - 0.1 * (-G2 + 0.2 * p1))


def test_sgd_without_momentum_keeps_no_state():
    _, opt, _ = _steps(optim.SGD, [G1], lr=0.1)
    assert opt.state_dict()["state"] == {}


# ----- Adam / AdamW -----

def _adam_reference(grads, lr, beta1, beta2, eps, weight_decay=0.0, decoupled=False, amsgrad=False):
    p, m, v, v_max, out = P0.copy(), np.zeros(2), np.zeros(2), np.zeros(2), []
    for t, g in enumerate(grads, start=1):
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        v_max = np.maximum(v_max, v)
        second = v_max if amsgrad else v
        p = p - lr / (1 - beta1 ** t) * m / (np.sqrt(second) / math.sqrt(1 - beta2 ** t) + eps)
        out.append(p)
    return out


def test_adam_constant_gradient_moves_lr_per_step():
    # With a constant g the bias corrections make m_hat = g and v_hat = g*g exactly:
    # every step moves p by lr * g / (|g| + eps).
    values, opt, p = _steps(optim.Adam, [G1, G1, G1], lr=0.01)
    for t, value in enumerate(values, start=1):
        _close(value, P0 - t * 0.01 * G1 / (np.abs(G1) + 1e-8))
    state = opt.state[p]
    assert float(state["step"].numpy()) == 3.0
    _close(state["exp_avg"].numpy(), (1 - 0.9 ** 3) * G1)
    _close(state["exp_avg_sq"].numpy(), (1 - 0.999 ** 3) * G1 * G1)


def test_adam_two_steps_written_out():
    values, _, _ = _steps(optim.Adam, [G1, G2], lr=0.1, betas=(0.8, 0.9), eps=1e-3)
    m1, v1 = 0.2 * G1, 0.1 * G1 ** 2
    p1 = P0 - 0.1 / 0.2 * m1 / (np.sqrt(v1) / math.sqrt(0.1) + 1e-3)
    m2, v2 = 0.8 * m1 + 0.2 * G2, 0.9 * v1 + 0.1 * G2 ** 2
    p2 = p1 - 0.1 / (1 - 0.64) * m2 / (np.sqrt(v2) / math.sqrt(1 - 0.81) + 1e-3)
    _close(values[0], p1)
    _close(values[1], p2)


@pytest.mark.parametrize("kwargs", [dict(amsgrad=True), dict(weight_decay=0.3), dict(weight_decay=0.3, amsgrad=True)])
def test_adam_variants(kwargs):
    grads = [np.array([4.0, -3.0]), G1, G2]  # a large first gradient, fast-forgetting v: amsgrad's max matters
    values, _, _ = _steps(optim.Adam, grads, lr=0.05, betas=(0.9, 0.5), **kwargs)
    expected = _adam_reference(grads, 0.05, 0.9, 0.5, 1e-8, kwargs.get("weight_decay", 0.0),
                               amsgrad=kwargs.get("amsgrad", False))
    for got, want in zip(values, expected):
        _close(got, want)
    if kwargs.get("amsgrad"):
        plain = _adam_reference(grads, 0.05, 0.9, 0.5, 1e-8, kwargs.get("weight_decay", 0.0))
        assert not np.allclose(expected[-1], plain[-1])  # the variant really changes the result


def test_adamw_decays_the_parameter_not_the_gradient():
    grads = [G1, G2]
    values, _, _ = _steps(optim.AdamW, grads, lr=0.1, weight_decay=0.5)
    p1 = P0 * (1 - 0.1 * 0.5) - 0.1 / 0.1 * (0.1 * G1) / (np.sqrt(0.001 * G1 ** 2) / math.sqrt(0.001) + 1e-8)
    _close(values[0], p1)
    _close(values[1], _adam_reference(grads, 0.1, 0.9, 0.999, 1e-8, 0.5, decoupled=True)[1])
    assert optim.AdamW([mt.tensor([1.0], requires_grad=True)]).defaults["weight_decay"] == 1e-2


def test_adam_maximize_ascends():
    values, _, _ = _steps(optim.Adam, [G1], lr=0.01, maximize=True)
    _close(values[0], P0 + 0.01 * G1 / (np.abs(G1) + 1e-8))


# ----- RMSprop -----

def test_rmsprop_plain():
    values, _, _ = _steps(optim.RMSprop, [G1, G2], lr=0.01, alpha=0.9)
    v1 = 0.1 * G1 ** 2
    p1 = P0 - 0.01 * G1 / (np.sqrt(v1) + 1e-8)
    v2 = 0.9 * v1 + 0.1 * G2 ** 2
    _close(values[0], p1)
    _close(values[1], p1 - 0.01 * G2 / (np.sqrt(v2) + 1e-8))


def test_rmsprop_centered_with_momentum_and_weight_decay():
    values, opt, p = _steps(optim.RMSprop, [G1, G2], lr=0.01, alpha=0.9, momentum=0.5, centered=True,
                            weight_decay=0.1, eps=1e-4)
    g1 = G1 + 0.1 * P0
    v1, mean1 = 0.1 * g1 ** 2, 0.1 * g1
    buf1 = g1 / (np.sqrt(v1 - mean1 ** 2) + 1e-4)
    p1 = P0 - 0.01 * buf1
    g2 = G2 + 0.1 * p1
    v2, mean2 = 0.9 * v1 + 0.1 * g2 ** 2, 0.9 * mean1 + 0.1 * g2
    buf2 = 0.5 * buf1 + g2 / (np.sqrt(v2 - mean2 ** 2) + 1e-4)
    _close(values[0], p1)
    _close(values[1], p1 - 0.01 * buf2)
    assert set(opt.state[p]) == {"step", "square_avg", "momentum_buffer", "grad_avg"}


# ----- Adagrad -----

def test_adagrad_lr_decay_and_initial_accumulator():
    values, opt, p = _steps(optim.Adagrad, [G1, G2], lr=0.1, lr_decay=0.5, initial_accumulator_value=0.25)
    sum1 = 0.25 + G1 ** 2
    p1 = P0 - 0.1 * G1 / (np.sqrt(sum1) + 1e-10)
    sum2 = sum1 + G2 ** 2
    p2 = p1 - 0.1 / (1 + 1 * 0.5) * G2 / (np.sqrt(sum2) + 1e-10)
    _close(values[0], p1)
    _close(values[1], p2)
    _close(opt.state[p]["sum"].numpy(), sum2)


def test_adagrad_weight_decay_and_state_from_construction():
    p = mt.tensor(P0, requires_grad=True)
    opt = optim.Adagrad([p], initial_accumulator_value=0.5)
    assert float(opt.state[p]["step"].numpy()) == 0.0  # PyTorch creates Adagrad's state eagerly
    _close(opt.state[p]["sum"].numpy(), [0.5, 0.5])
    values, _, _ = _steps(optim.Adagrad, [G1], lr=0.1, weight_decay=0.2)
    g = G1 + 0.2 * P0
    _close(values[0], P0 - 0.1 * g / (np.abs(g) + 1e-10))


# ----- Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop -----

def test_adadelta_two_steps_written_out():
    values, opt, p = _steps(optim.Adadelta, [G1, G2], lr=0.5, rho=0.8, eps=1e-3)
    v1 = 0.2 * G1 ** 2
    delta1 = np.sqrt(0 + 1e-3) / np.sqrt(v1 + 1e-3) * G1
    u1 = 0.2 * delta1 ** 2
    v2 = 0.8 * v1 + 0.2 * G2 ** 2
    delta2 = np.sqrt(u1 + 1e-3) / np.sqrt(v2 + 1e-3) * G2
    _close(values[0], P0 - 0.5 * delta1)
    _close(values[1], P0 - 0.5 * delta1 - 0.5 * delta2)
    _close(opt.state[p]["acc_delta"].numpy(), 0.8 * u1 + 0.2 * delta2 ** 2)


def test_adamax_uses_the_infinity_norm():
    values, opt, p = _steps(optim.Adamax, [G1, G2], lr=0.1, betas=(0.8, 0.5), eps=1e-3)
    m1, u1 = 0.2 * G1, np.abs(G1) + 1e-3
    p1 = P0 - 0.1 / 0.2 * m1 / u1
    m2, u2 = 0.8 * m1 + 0.2 * G2, np.maximum(0.5 * u1, np.abs(G2) + 1e-3)
    _close(values[0], p1)
    _close(values[1], p1 - 0.1 / (1 - 0.64) * m2 / u2)
    _close(opt.state[p]["exp_inf"].numpy(), u2)


def _nadam_reference(grads, lr, beta1, beta2, eps, momentum_decay):
    p, m, v, mu_product, out = P0.copy(), np.zeros(2), np.zeros(2), np.float32(1.0), []
    for t, g in enumerate(grads, start=1):
        mu = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        mu_product = np.float32(mu_product * np.float32(mu))
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        denom = np.sqrt(v / (1 - beta2 ** t)) + eps
        p = p - lr * (1 - mu) / (1 - float(mu_product)) * g / denom
        p = p - lr * mu_next / (1 - float(mu_product) * mu_next) * m / denom
        out.append(p)
    return out


def test_nadam_nesterov_step_and_its_float32_momentum_product():
    grads = [G1, G2, G3]
    values, opt, p = _steps(optim.NAdam, grads, lr=0.1, betas=(0.8, 0.9), momentum_decay=0.5)
    for got, want in zip(values, _nadam_reference(grads, 0.1, 0.8, 0.9, 1e-8, 0.5)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert opt.state[p]["mu_product"].dtype == mt.float32


def test_radam_is_momentum_sgd_until_the_variance_is_tractable():
    grads = [G1, G2, G3, -G1, G2, G3, G1]
    values, _, _ = _steps(optim.RAdam, grads, lr=0.1, betas=(0.5, 0.9))
    p, m, v = P0.copy(), np.zeros(2), np.zeros(2)
    rho_inf = 2 / (1 - 0.9) - 1
    rectified = []
    for t, g in enumerate(grads, start=1):
        m, v = 0.5 * m + 0.5 * g, 0.9 * v + 0.1 * g * g
        m_hat = m / (1 - 0.5 ** t)
        rho_t = rho_inf - 2 * t * 0.9 ** t / (1 - 0.9 ** t)
        rectified.append(rho_t > 5)
        if rho_t > 5:
            r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            p = p - m_hat * 0.1 * math.sqrt(1 - 0.9 ** t) / (np.sqrt(v) + 1e-8) * r
        else:
            p = p - 0.1 * m_hat
        _close(values[t - 1], p)
    assert rectified == [False] * 5 + [True] * 2  # both branches ran


def test_asgd_averages_the_iterates_after_t0():
    grads = [G1, G2, G3, -G1, G2, G3]
    values, opt, p = _steps(optim.ASGD, grads, lr=0.1, lambd=0.5, alpha=0.5, t0=2)
    eta, mu, ax, param = np.float32(0.1), 1.0, None, P0.copy()
    for t, g in enumerate(grads, start=1):
        param = param * (1 - 0.5 * float(eta)) - float(eta) * g
        ax = param.copy() if mu == 1 else ax + (param - ax) * mu
        eta = np.float32(0.1 / (1 + 0.5 * 0.1 * t) ** 0.5)
        mu = float(np.float32(1 / max(1, t - 2)))
        _close(values[t - 1], param)
    _close(opt.state[p]["ax"].numpy(), ax)
    assert not np.allclose(ax, values[-1])  # the average lags behind the iterate
    assert float(opt.state[p]["eta"].numpy()) == float(eta)


def test_rprop_grows_steps_on_agreement_and_skips_a_flipped_sign():
    g_flip = np.array([0.5, 1.0])  # the second coordinate's gradient changes sign at step 2
    values, opt, p = _steps(optim.Rprop, [G1, g_flip, g_flip], lr=0.1, etas=(0.5, 1.5), step_sizes=(0.01, 0.2))
    _close(values[0], P0 - 0.1 * np.sign(G1))
    # step 2: coordinate 0 agrees (step 0.15), coordinate 1 flipped (step 0.05, no move, its gradient forgotten)
    _close(values[1], values[0] - np.array([0.15, 0.0]))
    # step 3: coordinate 0 grows to the 0.2 cap, coordinate 1 starts afresh with its shrunk step
    _close(values[2], values[1] - np.array([0.2, 0.05]))
    _close(opt.state[p]["step_size"].numpy(), [0.2, 0.05])


# ----- LBFGS -----

def _quadratic_closure(params, opt, matrix, target):
    def closure():
        opt.zero_grad()
        residual = params[0] - target
        loss = 0.5 * (residual * (matrix @ residual)).sum()
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_solves_a_quadratic_in_a_few_iterations(line_search_fn):
    matrix = mt.tensor([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]], dtype=mt.float64)
    target = mt.tensor([1.0, -2.0, 0.5], dtype=mt.float64)
    w = mt.zeros(3, dtype=mt.float64, requires_grad=True)
    opt = optim.LBFGS([w], lr=1, max_iter=50, line_search_fn=line_search_fn, tolerance_grad=1e-12,
                      tolerance_change=1e-15)
    first = opt.step(_quadratic_closure([w], opt, matrix, target))
    assert first.item() == pytest.approx(0.5 * float((target * (matrix @ target)).sum()))
    np.testing.assert_allclose(w.detach().numpy(), target.numpy(), atol=1e-8)
    assert opt.state[w]["n_iter"] < 15  # quasi-Newton: far fewer than gradient descent would need


def test_lbfgs_history_is_bounded_and_errors_are_clear():
    matrix = mt.tensor(np.diag(np.linspace(1.0, 50.0, 6)))
    target = mt.tensor(np.linspace(-1.0, 1.0, 6))
    w = mt.zeros(6, dtype=mt.float64, requires_grad=True)
    opt = optim.LBFGS([w], max_iter=30, history_size=2, tolerance_grad=0, tolerance_change=0)
    opt.step(_quadratic_closure([w], opt, matrix, target))
    assert len(opt.state[w]["old_dirs"]) == 2 and len(opt.state[w]["ro"]) == 2
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [w]}, {"params": [mt.zeros(1, requires_grad=True)]}])
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        opt.add_param_group({"params": [mt.zeros(1, requires_grad=True)]})
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        optim.LBFGS([w], line_search_fn="backtracking").step(_quadratic_closure([w], opt, matrix, target))
    with pytest.raises(TypeError):
        opt.step()  # a closure is required, as in PyTorch


def test_lbfgs_moves_the_parameters_and_bumps_their_versions():
    w = mt.nn.Parameter(mt.tensor([2.0, -1.0]))
    opt = optim.LBFGS([w], max_iter=3)
    kept = (w * w).sum()  # a graph that saved w before the step
    kept.backward(retain_graph=True)
    opt.step(_quadratic_closure([w], opt, mt.eye(2), mt.zeros(2)))
    assert np.abs(w.detach().numpy()).max() < 1.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        kept.backward()


# ----- shared behaviour -----

ALL_OPTIMIZERS = [
    (optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.1, maximize=True)),
    (optim.Adam, dict(lr=0.1, amsgrad=True, weight_decay=0.1)),
    (optim.AdamW, dict(lr=0.1)),
    (optim.RMSprop, dict(lr=0.1, centered=True, momentum=0.5, weight_decay=0.1)),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.1, weight_decay=0.1)),
    (optim.Adadelta, dict(lr=10.0, weight_decay=0.1)),
    (optim.Adamax, dict(lr=0.1, weight_decay=0.1)),
    (optim.NAdam, dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True)),
    (optim.RAdam, dict(lr=0.1, weight_decay=0.1)),
    (optim.ASGD, dict(lr=0.1, t0=2, weight_decay=0.1)),
    (optim.Rprop, dict(lr=0.1, maximize=True)),
]


@pytest.mark.parametrize("cls, kwargs", ALL_OPTIMIZERS)
def test_every_step_bumps_the_versions_of_the_updated_parameters(cls, kwargs):
    w = mt.nn.Parameter(mt.tensor([1.0, 2.0]))
    idle = mt.nn.Parameter(mt.tensor([3.0]))
    opt = cls([w, idle], **kwargs)
    loss = (w * w).sum() + (idle * idle).sum()
    loss.backward(retain_graph=True)
    idle.grad = None  # no gradient: not updated, not bumped
    idle_graph = (idle * 2).sum()
    opt.step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    idle_graph.backward()  # idle's saved value is still current


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam, optim.AdamW, optim.Adagrad])
def test_fused_and_foreach_are_accepted_and_change_nothing(cls):
    plain, _, _ = _steps(cls, [G1, G2], lr=0.1)
    for flags in (dict(fused=True), dict(foreach=True), dict(foreach=False, fused=False)):
        values, opt, _ = _steps(cls, [G1, G2], lr=0.1, **flags)
        np.testing.assert_array_equal(values[-1], plain[-1])
        assert all(opt.param_groups[0][k] == v for k, v in flags.items())
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        cls([mt.tensor([1.0], requires_grad=True)], fused=True, foreach=True)


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW, optim.RMSprop, optim.Adadelta, optim.Adamax, optim.NAdam,
                                 optim.RAdam, optim.ASGD, optim.Rprop])
def test_capturable_and_differentiable_raise_clearly(cls):
    p = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"capturable=True\) is for CUDA graphs.*CPU only"):
        cls([p], capturable=True)
    with pytest.raises(NotImplementedError, match=r"differentiable=True\): .* outside the tape"):
        cls([p], differentiable=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        cls([p]).add_param_group({"params": [mt.tensor([2.0], requires_grad=True)], "differentiable": True})


@pytest.mark.parametrize("cls, kwargs", ALL_OPTIMIZERS)
def test_params_without_grad_are_skipped_and_grads_never_mutated(cls, kwargs):
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([3.0, 4.0], requires_grad=True)
    c = mt.tensor([5.0, 6.0], requires_grad=True)
    shared = mt.tensor([0.5, -0.5])
    a.grad = shared
    b.grad = shared  # one gradient tensor handed to two parameters
    opt = cls([a, b, c], **kwargs)
    state_before = {k: v.numpy().copy() for k, v in opt.state[c].items()}
    opt.step()
    np.testing.assert_array_equal(shared.numpy(), [0.5, -0.5])
    np.testing.assert_array_equal(c.detach().numpy(), [5.0, 6.0])
    assert {k: v.numpy().tolist() for k, v in opt.state[c].items()} == {k: v.tolist() for k, v in state_before.items()}
    assert not np.array_equal(a.detach().numpy(), [1.0, 2.0])


@pytest.mark.parametrize("cls, kwargs", ALL_OPTIMIZERS)
def test_training_with_backward_reduces_the_loss(cls, kwargs):
    mt.manual_seed(0)
    x = mt.randn(32, 3)
    y = x @ mt.tensor([[1.0], [-2.0], [0.5]])
    w = mt.zeros(3, 1, requires_grad=True)
    plain = {k: v for k, v in dict(weight_decay=0.0, maximize=False).items() if k in kwargs}
    opt = cls([w], **{**kwargs, **plain})

    def closure():
        opt.zero_grad()
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        return loss

    first = closure().item()
    for _ in range(60):
        opt.step(closure)
    assert closure().item() < 0.5 * first


def test_param_groups_take_their_own_options():
    a = mt.tensor([1.0], dtype=mt.float64, requires_grad=True)
    b = mt.tensor([1.0], dtype=mt.float64, requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[0]["momentum"] == 0 and opt.param_groups[1]["params"] == [b]
    for _ in range(2):
        a.grad, b.grad = mt.tensor([1.0], dtype=mt.float64), mt.tensor([1.0], dtype=mt.float64)
        opt.step()
    _close(a.detach().numpy(), [1.0 - 0.2])
    _close(b.detach().numpy(), [1.0 - 0.5 * 1.0 - 0.5 * 1.9])
    c = mt.tensor([2.0], requires_grad=True)
    opt.add_param_group({"params": [c], "lr": 0.01})
    assert opt.param_groups[2]["momentum"] == 0 and opt.param_groups[2]["lr"] == 0.01
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_constructor_argument_errors():
    p = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(p)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([])
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {p}}])
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([np.zeros(2)])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2])


@pytest.mark.parametrize("cls, kwargs, message", [
    (optim.SGD, dict(lr=-1.0), "Invalid learning rate"),
    (optim.SGD, dict(momentum=-0.1), "Invalid momentum value"),
    (optim.SGD, dict(weight_decay=-1), "Invalid weight_decay value"),
    (optim.SGD, dict(nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (optim.SGD, dict(nesterov=True, momentum=0.9, dampening=0.1), "Nesterov momentum requires"),
    (optim.Adam, dict(lr=-0.1), "Invalid learning rate"),
    (optim.Adam, dict(eps=-1e-8), "Invalid epsilon value"),
    (optim.Adam, dict(betas=(1.0, 0.999)), "Invalid beta parameter at index 0"),
    (optim.Adam, dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1"),
    (optim.AdamW, dict(weight_decay=-0.1), "Invalid weight_decay value"),
    (optim.RMSprop, dict(alpha=-0.5), "Invalid alpha value"),
    (optim.RMSprop, dict(momentum=-0.5), "Invalid momentum value"),
    (optim.Adagrad, dict(lr_decay=-0.5), "Invalid lr_decay value"),
    (optim.Adagrad, dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value"),
    (optim.Adadelta, dict(rho=1.5), "Invalid rho value"),
    (optim.Adadelta, dict(eps=-1.0), "Invalid epsilon value"),
    (optim.Adamax, dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1"),
    (optim.NAdam, dict(momentum_decay=-0.1), "Invalid momentum_decay value"),
    (optim.RAdam, dict(betas=(-0.1, 0.9)), "Invalid beta parameter at index 0"),
    (optim.ASGD, dict(weight_decay=-0.1), "Invalid weight_decay value"),
    (optim.Rprop, dict(etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    (optim.LBFGS, dict(lr=-1), "Invalid learning rate"),
])
def test_invalid_options_raise_like_pytorch(cls, kwargs, message):
    with pytest.raises(ValueError, match=message):
        cls([mt.tensor([1.0], requires_grad=True)], **kwargs)


def test_zero_grad():
    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = mt.tensor([1.0, 2.0], requires_grad=True)
    (a * b).sum().backward()
    old_grad = a.grad
    opt = optim.SGD([a, b], lr=0.1)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(a.grad.numpy(), [0.0, 0.0])
    assert a.grad is not old_grad
    np.testing.assert_array_equal(old_grad.numpy(), [1.0, 2.0])  # a tensor that shared it keeps its values
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_step_closure_runs_with_grad_enabled_and_returns_its_loss():
    p = mt.tensor([3.0], dtype=mt.float64, requires_grad=True)
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with mt.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 9.0
    _close(p.detach().numpy(), [3.0 - 0.1 * 6.0])


def test_state_dict_structure_matches_pytorch():
    a, b, c = (mt.tensor([1.0], requires_grad=True) for _ in range(3))
    opt = optim.Adam([{"params": [a, b]}, {"params": [c], "lr": 0.5}])
    a.grad, c.grad = mt.tensor([1.0]), mt.tensor([1.0])
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.5 and sd["param_groups"][0]["betas"] == (0.9, 0.999)
    assert sorted(sd["state"]) == [0, 2]  # b had no gradient, so no state
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "step"]
    assert isinstance(sd["state"][0]["exp_avg"], mt.Tensor) and sd["state"][0]["step"].shape == ()


@pytest.mark.parametrize("cls, kwargs", ALL_OPTIMIZERS + [(optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True))])
@pytest.mark.parametrize("through_file", [False, True])
def test_state_dict_round_trip_continues_the_same_trajectory(cls, kwargs, through_file, tmp_path):
    grads = [G1, G2, G3, -G1, G2 * 0.5, G3 * 2]
    # PyTorch casts NAdam's float32 mu_product to a float64 parameter's dtype on loading, which changes the
    # rounding of later steps; with float32 parameters the round trip is exact.
    p0 = P0.astype(np.float32) if cls is optim.NAdam else P0
    uninterrupted, _, _ = _steps(cls, grads, p0, **kwargs)

    first, opt, p = _steps(cls, grads[:3], p0, **kwargs)
    state = opt.state_dict()
    if through_file:
        mt.save({"optim": state, "param": p.detach()}, tmp_path / "ckpt.safetensors")
        loaded = mt.load(tmp_path / "ckpt.safetensors")
        state, value = loaded["optim"], loaded["param"].numpy()
    else:
        value = p.detach().numpy().copy()
    fresh = mt.tensor(value, requires_grad=True)
    fresh_opt = cls([fresh], lr=123.0)  # every option comes back from the state_dict
    fresh_opt.load_state_dict(state)
    assert fresh_opt.param_groups[0]["lr"] == kwargs["lr"]
    for g in grads[3:]:
        fresh.grad = mt.tensor(np.asarray(g, dtype=p0.dtype))
        fresh_opt.step()
    np.testing.assert_array_equal(fresh.detach().numpy(), uninterrupted[-1])


def test_load_state_dict_copies_and_checks_sizes():
    _, opt, p = _steps(optim.SGD, [G1], lr=0.1, momentum=0.9)
    sd = opt.state_dict()
    q = mt.tensor(P0, requires_grad=True)
    other = optim.SGD([q], lr=0.1, momentum=0.9)
    other.load_state_dict(sd)
    sd["state"][0]["momentum_buffer"].fill_(100.0)
    _close(other.state[q]["momentum_buffer"].numpy(), G1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [q]}, {"params": [mt.tensor([1.0], requires_grad=True)]}], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.SGD([q, mt.tensor([1.0], requires_grad=True)], lr=0.1).load_state_dict(sd)


def test_load_state_dict_casts_float_state_to_the_parameter_dtype():
    _, opt, _ = _steps(optim.Adam, [G1], lr=0.1)
    q = mt.tensor(P0.astype(np.float32), requires_grad=True)
    other = optim.Adam([q])
    other.load_state_dict(opt.state_dict())
    assert other.state[q]["exp_avg"].dtype == mt.float32
    assert other.state[q]["step"].dtype == mt.float32


def test_repr_lists_groups():
    opt = optim.SGD([mt.tensor([1.0], requires_grad=True)], lr=0.1)
    assert "SGD (" in repr(opt) and "Parameter Group 0" in repr(opt) and "lr: 0.1" in repr(opt)
