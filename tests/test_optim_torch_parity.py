"""Optimizers and schedulers against PyTorch itself (skipped when torch is not installed).

Both sides get the same gradient, computed in numpy from the current
parameter values, so only the update rules are compared.
"""
import re
import warnings

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
    ("Adam", dict(lr=0.05, betas=(0.3, 0.9))),  # beta1 < 0.5: torch's lerp switches formula
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, amsgrad=True, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, fused=True)),
    ("Adam", dict(lr=0.05, foreach=False)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta", dict(lr=0.5, maximize=True, foreach=False)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.9), eps=1e-4, weight_decay=0.1)),
    ("Adamax", dict(lr=0.05, betas=(0.3, 0.5), maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.9), momentum_decay=0.1, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.2, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)),  # rho_t > 5 from step 6
    ("RAdam", dict(lr=0.05, betas=(0.5, 0.7), weight_decay=0.2, decoupled_weight_decay=True, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.1, alpha=0.5, t0=4, weight_decay=0.1)),  # averaging starts after step 4
    ("ASGD", dict(lr=0.05, t0=2, maximize=True)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2))),
    ("Rprop", dict(lr=0.05, maximize=True)),
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

    # minitorch's state_dict, converted tensor by tensor, drives a fresh torch optimizer on...
    converted = {
        "state": {i: {k: torch.from_numpy(v.numpy().copy()) for k, v in s.items()} for i, s in ours_sd["state"].items()},
        "param_groups": ours_sd["param_groups"],
    }
    # Both load it the same way (PyTorch casts the floating state but "step" to the parameter's dtype).
    fresh = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in ours]
    fresh_opt = getattr(torch.optim, name)(fresh, **kwargs)
    fresh_opt.load_state_dict(converted)
    reloaded = [mt.tensor(p.detach().numpy(), requires_grad=True) for p in ours]
    reloaded_opt = getattr(optim, name)(reloaded, **kwargs)
    reloaded_opt.load_state_dict(ours_sd)
    _run_torch(name, kwargs, None, 4, fresh_opt, fresh)
    _run_minitorch(name, kwargs, None, 4, reloaded_opt, reloaded)
    for p, q in zip(reloaded, fresh):
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


def test_named_parameters_give_param_names_like_torch():
    ours_model, theirs_model = mt.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    ours = optim.Adam(ours_model.named_parameters(), lr=0.1)
    theirs = torch.optim.Adam(theirs_model.named_parameters(), lr=0.1)
    assert ours.param_groups[0]["param_names"] == theirs.param_groups[0]["param_names"] == ["weight", "bias"]
    assert ours.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]
    for module in (optim, torch.optim):
        make = mt.tensor if module is optim else torch.tensor
        a, b = make([1.0], requires_grad=True), make([2.0], requires_grad=True)
        with pytest.raises(ValueError, match="Some param names are missing"):
            module.SGD([("a", a), b], lr=0.1)
        opt = module.SGD([("a", a)], lr=0.1)
        with pytest.raises(ValueError, match="cannot add param group without names"):
            opt.add_param_group({"params": [b]})


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
    ("SGD", "LambdaLR", dict(lr_lambda=lambda epoch: 0.95 ** epoch + 0.01 * epoch), 20),
    ("SGD", "LambdaLR", dict(lr_lambda=[lambda e: 1 / (e + 1), lambda e: 0.9 ** (e // 3)]), 20),
    ("SGD", "MultiplicativeLR", dict(lr_lambda=lambda epoch: 0.9 if epoch % 2 else 1.05), 20),
    ("SGD", "ConstantLR", dict(), 10),
    ("SGD", "ConstantLR", dict(factor=0.2, total_iters=3), 10),
    ("SGD", "LinearLR", dict(), 10),
    ("SGD", "LinearLR", dict(start_factor=0.1, end_factor=0.6, total_iters=7), 12),
    ("SGD", "PolynomialLR", dict(), 10),
    ("SGD", "PolynomialLR", dict(total_iters=8, power=2.5), 12),
    ("SGD", "CosineAnnealingWarmRestarts", dict(T_0=5), 23),
    ("SGD", "CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=3, eta_min=0.001), 30),
    ("SGD", "CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4), 30),
    ("SGD", "CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
                             mode="triangular2", base_momentum=0.5, max_momentum=0.95), 40),
    ("Adam", "CyclicLR", dict(base_lr=0.001, max_lr=0.01, step_size_up=5, mode="exp_range", gamma=0.97), 40),
    ("SGD", "CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 0.5 * (1 + 0.8 ** x),
                             scale_mode="iterations", cycle_momentum=False), 25),
]


# ids without a lambda's address, which differs between processes (pytest-xdist's workers must collect alike)
@pytest.mark.parametrize("optimizer_cls, name, kwargs, steps", SCHEDULER_CASES,
                         ids=lambda c: re.sub(r" at 0x[0-9a-f]+", "", str(c)))
def test_scheduler_sequence_matches_torch(optimizer_cls, name, kwargs, steps):
    ours = _lr_sequence(optim, optimizer_cls, name, kwargs, steps)
    theirs = _lr_sequence(torch.optim, optimizer_cls, name, kwargs, steps)
    assert ours == theirs  # exact: same float operations in the same order


def _combined(module, optimizer_cls, build, steps, epochs=None):
    """The lr sequence of `build(lr_scheduler, optimizer)`, stepped `steps` times (or at the given epochs)."""
    if module is optim:
        params = [mt.tensor([1.0], requires_grad=True), mt.tensor([2.0], requires_grad=True)]
    else:
        params = [torch.tensor([1.0], requires_grad=True), torch.tensor([2.0], requires_grad=True)]
    opt = getattr(module, optimizer_cls)([{"params": [params[0]], "lr": 0.1}, {"params": [params[1]], "lr": 0.02}],
                                         momentum=0.9)
    sched = build(module.lr_scheduler, opt)
    seen = [list(sched.get_last_lr())]
    for i in range(steps):
        opt.step()
        if epochs is None:
            sched.step()
        else:
            sched.step(epochs[i])
        seen.append(list(sched.get_last_lr()) + [opt.param_groups[0]["momentum"]])
    return seen


COMBINED_CASES = [
    ("warmup then cosine", lambda s, o: s.SequentialLR(
        o, [s.LinearLR(o, start_factor=0.1, total_iters=4), s.CosineAnnealingLR(o, T_max=10)], milestones=[4]), 20),
    ("three in sequence", lambda s, o: s.SequentialLR(
        o, [s.ConstantLR(o, factor=0.5, total_iters=3), s.ExponentialLR(o, gamma=0.8), s.StepLR(o, 2, 0.5)],
        milestones=[3, 7]), 15),
    ("chained", lambda s, o: s.ChainedScheduler(
        [s.ConstantLR(o, factor=0.1, total_iters=2), s.ExponentialLR(o, gamma=0.9)]), 10),
    ("chained with a sequence", lambda s, o: s.ChainedScheduler(
        [s.SequentialLR(o, [s.LinearLR(o, 0.5, total_iters=2), s.ExponentialLR(o, 0.9)], milestones=[3]),
         s.MultiplicativeLR(o, lambda epoch: 0.99)]), 12),
    ("chained cyclic momentum", lambda s, o: s.ChainedScheduler(
        [s.CyclicLR(o, 0.01, 0.1, step_size_up=2), s.ExponentialLR(o, gamma=0.95)]), 12),
]


@pytest.mark.parametrize("name, build, steps", COMBINED_CASES, ids=lambda c: c if isinstance(c, str) else "")
def test_combined_schedulers_match_torch(name, build, steps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's chained schedulers warn about the order of their inner steps
        assert _combined(optim, "SGD", build, steps) == _combined(torch.optim, "SGD", build, steps)


@pytest.mark.parametrize("kwargs", [dict(T_0=3), dict(T_0=2, T_mult=2, eta_min=0.01)])
def test_warm_restarts_with_fractional_epochs_match_torch(kwargs):
    epochs = [e + b / 4 for e in range(6) for b in range(4)]  # stepped every batch, 4 batches an epoch
    build = lambda s, o: s.CosineAnnealingWarmRestarts(o, **kwargs)  # noqa: E731
    ours = _combined(optim, "SGD", build, len(epochs), epochs)
    assert ours == _combined(torch.optim, "SGD", build, len(epochs), epochs)
    assert len({round(lrs[0], 12) for lrs in ours}) > 10  # the lr really moved within epochs


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


# ----- LBFGS: the closure evaluates the loss and sets the gradients (numpy on both sides) -----

def _wavy(values):
    """The loss whose gradient is _grad_of: sum(0.5 * w * p**2 + sin(3 p))."""
    weights = np.linspace(0.5, 2.0, values.size).reshape(values.shape)
    return float(np.sum(0.5 * weights * values ** 2 + np.sin(3 * values)))


def _rosenbrock(values):
    x, y = values.reshape(-1)[:2]
    return float(100 * (y - x * x) ** 2 + (1 - x) ** 2)


def _rosenbrock_grad(values):
    x, y = values.reshape(-1)[:2]
    grad = np.zeros(values.size)
    grad[:2] = [-400 * x * (y - x * x) - 2 * (1 - x), 200 * (y - x * x)]
    return grad.reshape(values.shape).astype(values.dtype)


LBFGS_PROBLEMS = {"wavy": (_wavy, _grad_of), "rosenbrock": (_rosenbrock, _rosenbrock_grad)}


def _lbfgs_run(framework, problem, kwargs, arrays, steps):
    loss_of, grad_of = LBFGS_PROBLEMS[problem]
    make = mt.tensor if framework is optim else torch.tensor
    params = [make(a, requires_grad=True) for a in arrays]
    opt = framework.LBFGS(params, **kwargs)

    def closure():
        values = [p.detach().numpy() for p in params]
        for p, v in zip(params, values):
            p.grad = make(grad_of(v))
        return make(sum(loss_of(v) for v in values))

    losses, trajectory = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure)))
        trajectory.append([p.detach().numpy().copy() for p in params])
    return opt, params, losses, trajectory


LBFGS_CASES = [
    ("wavy", dict()),
    ("wavy", dict(lr=0.5, max_iter=4, history_size=3)),
    ("wavy", dict(line_search_fn="strong_wolfe")),
    ("wavy", dict(line_search_fn="strong_wolfe", max_iter=3, history_size=2, tolerance_change=1e-12)),
    ("rosenbrock", dict(line_search_fn="strong_wolfe", max_iter=10)),
    ("rosenbrock", dict(lr=0.01, max_iter=10, max_eval=15)),
]


# Up to 60 iterations on curved problems: rounding differences (PyTorch's fused multiply-adds, BLAS dot
# products) of 1e-16 grow to ~1e-8 in float64 and ~1e-3 in float32 (measured iteration by iteration).
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-7), (np.float32, 5e-3)])
@pytest.mark.parametrize("problem, kwargs", LBFGS_CASES, ids=lambda c: str(c))
def test_lbfgs_matches_torch(problem, kwargs, dtype, rtol):
    if dtype == np.float32 and problem == "wavy" and not kwargs:
        # Full steps (lr=1, no line search) over sin(3p) jump between basins: in float32, PyTorch's and
        # numpy's last-bit differences in a sum send the second step to another local minimum.
        pytest.skip("chaotic in float32; compared in float64")
    arrays = [np.array([-1.2, 1.0], dtype)] if problem == "rosenbrock" else _initial_params(dtype)
    ours, _, our_losses, our_path = _lbfgs_run(optim, problem, kwargs, arrays, 3)
    theirs, _, their_losses, their_path = _lbfgs_run(torch.optim, problem, kwargs, arrays, 3)
    np.testing.assert_allclose(our_losses, their_losses, rtol=rtol)
    for our_params, their_params in zip(our_path, their_path):
        for p, q in zip(our_params, their_params):
            assert p.dtype == dtype
            np.testing.assert_allclose(p, q, rtol=rtol, atol=rtol)
    our_state, their_state = ours.state_dict()["state"][0], theirs.state_dict()["state"][0]
    assert our_state.keys() == their_state.keys()
    assert (our_state["n_iter"], our_state["func_evals"]) == (their_state["n_iter"], their_state["func_evals"])
    assert len(our_state["old_dirs"]) == len(their_state["old_dirs"]) > 0
    assert ours.state_dict()["param_groups"] == [{**g, "params": [0, 1][:len(arrays)]}
                                                 for g in theirs.state_dict()["param_groups"]]


def test_lbfgs_state_dict_loads_into_torch_and_back():
    arrays = _initial_params(np.float64)
    kwargs = dict(line_search_fn="strong_wolfe", max_iter=3, history_size=4)
    ours, our_params, _, _ = _lbfgs_run(optim, "wavy", kwargs, arrays, 2)
    state = ours.state_dict()
    tensors = lambda v: torch.from_numpy(v.numpy().copy()) if isinstance(v, mt.Tensor) else v  # noqa: E731
    converted = {"state": {0: {k: [tensors(x) for x in v] if isinstance(v, list) else tensors(v)
                               for k, v in state["state"][0].items()}},
                 "param_groups": state["param_groups"]}
    values = [p.detach().numpy() for p in our_params]
    _, theirs, their_losses, their_path = _lbfgs_run(torch.optim, "wavy", kwargs, values, 0)
    # a fresh torch LBFGS, loaded with minitorch's state, continues as minitorch does
    torch_params = [torch.tensor(v, requires_grad=True) for v in values]
    torch_opt = torch.optim.LBFGS(torch_params, **kwargs)
    torch_opt.load_state_dict(converted)
    mt_params = [mt.tensor(v, requires_grad=True) for v in values]
    mt_opt = optim.LBFGS(mt_params, **kwargs)
    mt_opt.load_state_dict(state)
    for params, opt, make in ((torch_params, torch_opt, torch.tensor), (mt_params, mt_opt, mt.tensor)):
        def closure():
            for p in params:
                p.grad = make(_grad_of(p.detach().numpy()))
            return make(sum(_wavy(p.detach().numpy()) for p in params))
        opt.step(closure)
    for p, q in zip(mt_params, torch_params):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-9)
