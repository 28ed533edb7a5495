"""Optimizers and schedulers against PyTorch itself (skipped when torch is not installed).

Both sides get the same gradient, computed in numpy from the current
parameter values, so only the update rules are compared.
"""
import numpy as np
import pytest

import minitorch as mt
from minitorch import optim

torch = pytest.importorskip("torch")

STEPS = 12

OPTIMIZER_CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.5, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-6)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, maximize=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1, alpha=0.9)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, initial_accumulator_value=0.5, eps=1e-6, maximize=True)),
]


def _grad_of(values):
    """Gradient of sum(0.5 * w * p**2 + sin(3 p)): curved, sign-changing, not separable in scale."""
    weights = np.linspace(0.5, 2.0, values.size).reshape(values.shape)
    return (weights * values + 3 * np.cos(3 * values)).astype(values.dtype)


def _initial_params(dtype):
    rng = np.random.default_rng(0)
    return [rng.normal(size=(3, 2)).astype(dtype), rng.normal(size=4).astype(dtype)]


def _run_minitorch(name, kwargs, arrays, steps, optimizer=None, params=None):
    if params is None:
        params = [mt.tensor(a, requires_grad=True) for a in arrays]
        optimizer = getattr(optim, name)(params, **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = mt.tensor(_grad_of(p.detach().numpy()))
        optimizer.step()
    return optimizer, params


def _run_torch(name, kwargs, arrays, steps, optimizer=None, params=None):
    if params is None:
        params = [torch.tensor(a, requires_grad=True) for a in arrays]
        optimizer = getattr(torch.optim, name)(params, **kwargs)
    for _ in range(steps):
        for p in params:
            p.grad = torch.tensor(_grad_of(p.detach().numpy()))
        optimizer.step()
    return optimizer, params


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 2e-6)])
@pytest.mark.parametrize("name, kwargs", OPTIMIZER_CASES, ids=lambda c: str(c))
def test_trajectory_matches_torch(name, kwargs, dtype, rtol):
    arrays = _initial_params(dtype)
    _, ours = _run_minitorch(name, kwargs, arrays, STEPS)
    _, theirs = _run_torch(name, kwargs, arrays, STEPS)
    for p, q in zip(ours, theirs):
        assert p.detach().numpy().dtype == dtype
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name, kwargs", OPTIMIZER_CASES, ids=lambda c: str(c))
def test_state_dict_matches_torch_and_loads_into_torch(name, kwargs):
    arrays = _initial_params(np.float64)
    ours_opt, ours = _run_minitorch(name, kwargs, arrays, 3)
    theirs_opt, theirs = _run_torch(name, kwargs, arrays, 3)
    ours_sd, theirs_sd = ours_opt.state_dict(), theirs_opt.state_dict()
    assert ours_sd["state"].keys() == theirs_sd["state"].keys()
    for index, entry in theirs_sd["state"].items():
        assert ours_sd["state"][index].keys() == entry.keys()
        for key, value in entry.items():
            np.testing.assert_allclose(ours_sd["state"][index][key].numpy(), value.numpy(), rtol=1e-12)
    for ours_group, theirs_group in zip(ours_sd["param_groups"], theirs_sd["param_groups"]):
        for key, value in ours_group.items():
            assert theirs_group[key] == value, key

    # minitorch's state_dict, converted tensor by tensor, drives a fresh torch optimizer on.
    converted = {
        "state": {i: {k: torch.from_numpy(v.numpy().copy()) for k, v in s.items()} for i, s in ours_sd["state"].items()},
        "param_groups": ours_sd["param_groups"],
    }
    fresh = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in ours]
    fresh_opt = getattr(torch.optim, name)(fresh, **kwargs)
    fresh_opt.load_state_dict(converted)
    _run_torch(name, kwargs, None, 4, fresh_opt, fresh)
    _run_minitorch(name, kwargs, None, 4, ours_opt, ours)
    for p, q in zip(ours, fresh):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12)


def test_param_groups_match_torch():
    arrays = _initial_params(np.float64)
    ours = [mt.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours_opt = optim.SGD([{"params": [ours[0]]}, {"params": [ours[1]], "lr": 0.01, "momentum": 0.5}], lr=0.1)
    theirs_opt = torch.optim.SGD([{"params": [theirs[0]]}, {"params": [theirs[1]], "lr": 0.01, "momentum": 0.5}],
                                 lr=0.1)
    _run_minitorch(None, None, None, 5, ours_opt, ours)
    _run_torch(None, None, None, 5, theirs_opt, theirs)
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-12)


# ----- schedulers -----

def _lr_sequence(module, optimizer_cls, scheduler_name, kwargs, steps, lrs=(0.1, 0.02), metrics=None):
    if module is optim:
        params = [mt.tensor([1.0], requires_grad=True), mt.tensor([2.0], requires_grad=True)]
    else:
        params = [torch.tensor([1.0], requires_grad=True), torch.tensor([2.0], requires_grad=True)]
    opt_cls = getattr(module, optimizer_cls)
    opt = opt_cls([{"params": [params[0]], "lr": lrs[0]}, {"params": [params[1]], "lr": lrs[1]}])
    sched = getattr(module.lr_scheduler, scheduler_name)(opt, **kwargs)
    lrs_seen, momenta = [], []
    for i in range(steps):
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[i])
        lrs_seen.append(list(sched.get_last_lr()))
        group = opt.param_groups[0]
        momenta.append(group["betas"][0] if "betas" in group else group.get("momentum"))
    return lrs_seen, momenta


SCHEDULER_CASES = [
    ("SGD", "StepLR", dict(step_size=3, gamma=0.5), 20),
    ("SGD", "MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3), 15),
    ("SGD", "ExponentialLR", dict(gamma=0.9), 30),
    ("SGD", "CosineAnnealingLR", dict(T_max=10), 45),
    ("SGD", "CosineAnnealingLR", dict(T_max=7, eta_min=0.001), 40),
    ("SGD", "OneCycleLR", dict(max_lr=1.0, total_steps=25), 25),
    ("Adam", "OneCycleLR", dict(max_lr=[0.5, 0.1], epochs=4, steps_per_epoch=5, pct_start=0.25), 20),
    ("SGD", "OneCycleLR", dict(max_lr=0.3, total_steps=30, anneal_strategy="linear", three_phase=True), 30),
]


@pytest.mark.parametrize("optimizer_cls, name, kwargs, steps", SCHEDULER_CASES, ids=lambda c: str(c))
def test_scheduler_sequence_matches_torch(optimizer_cls, name, kwargs, steps):
    ours = _lr_sequence(optim, optimizer_cls, name, kwargs, steps)
    theirs = _lr_sequence(torch.optim, optimizer_cls, name, kwargs, steps)
    assert ours == theirs  # exact: same float operations in the same order


@pytest.mark.parametrize("kwargs", [dict(), dict(mode="max", patience=1, threshold=0.1, threshold_mode="abs"),
                                    dict(patience=2, cooldown=2, factor=0.5, min_lr=[0.01, 0.0])])
def test_reduce_lr_on_plateau_matches_torch(kwargs):
    rng = np.random.default_rng(1)
    metrics = list(np.concatenate([np.linspace(5.0, 1.0, 15), 1.0 + 0.05 * rng.normal(size=45)]))
    ours = _lr_sequence(optim, "SGD", "ReduceLROnPlateau", kwargs, 60, metrics=metrics)
    theirs = _lr_sequence(torch.optim, "SGD", "ReduceLROnPlateau", kwargs, 60, metrics=metrics)
    assert ours[0] == theirs[0]
    assert len({lr for lrs in ours[0] for lr in lrs}) > 2  # the case really reduced some lr


def test_one_cycle_raises_past_total_steps_like_torch():
    for module in (optim, torch.optim):
        if module is optim:
            opt = optim.SGD([mt.tensor([1.0], requires_grad=True)], lr=0.1, momentum=0.9)
        else:
            opt = torch.optim.SGD([torch.tensor([1.0], requires_grad=True)], lr=0.1, momentum=0.9)
        sched = module.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
        for _ in range(3):
            opt.step()
            sched.step()
        with pytest.raises(ValueError, match="Tried to step 4 times"):
            sched.step()
