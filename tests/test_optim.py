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
        p.grad = mt.tensor(g)
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


# ----- shared behaviour -----

ALL_OPTIMIZERS = [
    (optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=0.1, maximize=True)),
    (optim.Adam, dict(lr=0.1, amsgrad=True, weight_decay=0.1)),
    (optim.AdamW, dict(lr=0.1)),
    (optim.RMSprop, dict(lr=0.1, centered=True, momentum=0.5, weight_decay=0.1)),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.1, weight_decay=0.1)),
]


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
    opt = cls([w], **{**kwargs, "weight_decay": 0.0, "maximize": False})

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
    uninterrupted, _, _ = _steps(cls, grads, **kwargs)

    first, opt, p = _steps(cls, grads[:3], **kwargs)
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
        fresh.grad = mt.tensor(g)
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
