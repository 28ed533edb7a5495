"""Learning-rate schedulers: sequences against hand-computed closed forms, resuming, errors.

The exact match with PyTorch's floating-point sequences is in test_optim_torch_parity.py.
"""
import math
import warnings

import pytest

import minitorch as mt
from minitorch import optim
from minitorch.optim import lr_scheduler


def _optimizer(lrs=(0.1,), cls=optim.SGD, **kwargs):
    groups = [{"params": [mt.tensor([1.0], requires_grad=True)], "lr": lr} for lr in lrs]
    return cls(groups, **kwargs)


def _sequence(scheduler, steps, metrics=None):
    """The lrs of the first group at epochs 0..steps (epoch 0 = right after construction)."""
    seen = [scheduler.get_last_lr()[0]]
    for i in range(steps):
        scheduler.optimizer.step()
        if metrics is None:
            scheduler.step()
        else:
            scheduler.step(metrics[i])
        seen.append(scheduler.get_last_lr()[0])
    return seen


def test_step_lr():
    sched = lr_scheduler.StepLR(_optimizer(), step_size=3, gamma=0.5)
    assert _sequence(sched, 10) == pytest.approx([0.1 * 0.5 ** (e // 3) for e in range(11)], rel=1e-12)
    assert sched.last_epoch == 10


def test_multi_step_lr_counts_repeated_milestones():
    sched = lr_scheduler.MultiStepLR(_optimizer(), milestones=[2, 5, 5], gamma=0.1)
    expected = [0.1] * 2 + [0.01] * 3 + [0.0001] * 4
    assert _sequence(sched, 8) == pytest.approx(expected, rel=1e-12)


def test_exponential_lr_with_two_groups():
    opt = _optimizer(lrs=(0.1, 0.3))
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for epoch in range(1, 6):
        opt.step()
        sched.step()
        assert sched.get_last_lr() == pytest.approx([0.1 * 0.9 ** epoch, 0.3 * 0.9 ** epoch], rel=1e-12)
    assert [g["lr"] for g in opt.param_groups] == sched.get_last_lr()
    assert sched.base_lrs == [0.1, 0.3] and [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.3]


@pytest.mark.parametrize("T_max, eta_min", [(10, 0.0), (7, 0.01)])
def test_cosine_annealing_follows_the_closed_form_through_restarts(T_max, eta_min):
    sched = lr_scheduler.CosineAnnealingLR(_optimizer(), T_max=T_max, eta_min=eta_min)
    expected = [eta_min + (0.1 - eta_min) * (1 + math.cos(math.pi * e / T_max)) / 2 for e in range(3 * T_max + 1)]
    assert _sequence(sched, 3 * T_max) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def _cos_anneal(start, end, pct):
    return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)


def test_one_cycle_lr_and_momentum():
    opt = _optimizer(cls=optim.SGD, momentum=0.9)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)  # pct_start 0.3: warm-up ends at step 2
    initial, minimum = 1.0 / 25, 1.0 / 25 / 1e4
    lrs, momenta = [], []
    for step in range(10):
        lrs.append(opt.param_groups[0]["lr"])
        momenta.append(opt.param_groups[0]["momentum"])
        if step < 9:
            opt.step()
            sched.step()
    expected_lr = [_cos_anneal(initial, 1.0, s / 2) for s in range(3)] + \
                  [_cos_anneal(1.0, minimum, (s - 2) / 7) for s in range(3, 10)]
    expected_momentum = [_cos_anneal(0.95, 0.85, s / 2) for s in range(3)] + \
                        [_cos_anneal(0.85, 0.95, (s - 2) / 7) for s in range(3, 10)]
    assert lrs == pytest.approx(expected_lr, rel=1e-12)
    assert momenta == pytest.approx(expected_momentum, rel=1e-12)
    opt.step()
    sched.step()  # step 10 == total_steps is still allowed
    with pytest.raises(ValueError, match="Tried to step 11 times. The specified number of total steps is 10"):
        sched.step()


def test_one_cycle_cycles_adam_beta1_and_checks_arguments():
    opt = _optimizer(cls=optim.Adam, betas=(0.9, 0.99))
    sched = lr_scheduler.OneCycleLR(opt, max_lr=0.01, epochs=2, steps_per_epoch=5, anneal_strategy="linear")
    assert opt.param_groups[0]["betas"] == (0.95, 0.99)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["betas"] == pytest.approx((0.95 + (0.85 - 0.95) * 1 / 2, 0.99))
    assert opt.param_groups[0]["lr"] == pytest.approx(0.01 / 25 + (0.01 - 0.01 / 25) * 1 / 2)
    with pytest.raises(ValueError, match="total_steps OR"):
        lr_scheduler.OneCycleLR(_optimizer(), max_lr=0.1)
    with pytest.raises(ValueError, match="pct_start"):
        lr_scheduler.OneCycleLR(_optimizer(), max_lr=0.1, total_steps=10, pct_start=2.0)
    with pytest.raises(ValueError, match="anneal_strategy"):
        lr_scheduler.OneCycleLR(_optimizer(), max_lr=0.1, total_steps=10, anneal_strategy="step")
    with pytest.raises(ValueError, match="momentum or beta1"):
        lr_scheduler.OneCycleLR(_optimizer(cls=optim.Adagrad), max_lr=0.1, total_steps=10)
    with pytest.raises(ValueError, match="same length as optimizer.param_groups"):
        lr_scheduler.OneCycleLR(_optimizer(), max_lr=[0.1, 0.2], total_steps=10)


def test_reduce_lr_on_plateau_patience_and_cooldown():
    opt = _optimizer(lrs=(1.0,))
    sched = lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, threshold=0.0, threshold_mode="abs",
                                           cooldown=1)
    metrics = [10, 9, 9, 9, 9, 8, 8, 8, 8, 8]
    # e5: third bad epoch > patience -> halve, cooldown 1; e6 improves; e7-e9 bad -> halve; e10 in cooldown.
    assert _sequence(sched, 10, metrics)[1:] == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25]


def test_reduce_lr_on_plateau_max_mode_rel_threshold_and_min_lr():
    opt = _optimizer(lrs=(1.0,))
    sched = lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=0, threshold=0.1, min_lr=0.05)
    # Better means > best * 1.1: 1.05 after 1.0 is not better, 1.2 is.
    assert _sequence(sched, 4, [1.0, 1.05, 1.2, 1.25])[1:] == pytest.approx([1.0, 0.1, 0.1, 0.05])
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode sideways is unknown"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="sideways")


@pytest.mark.parametrize("make", [
    lambda opt: lr_scheduler.StepLR(opt, step_size=2, gamma=0.5),
    lambda opt: lr_scheduler.MultiStepLR(opt, milestones=[3, 4, 4, 8]),
    lambda opt: lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.001),
    lambda opt: lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=12),
    lambda opt: lr_scheduler.ReduceLROnPlateau(opt, patience=1),
])
@pytest.mark.parametrize("through_file", [False, True])
def test_resuming_from_state_dicts_gives_the_uninterrupted_sequence(make, through_file, tmp_path):
    metrics = [5.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    plateau = isinstance(make(_optimizer(momentum=0.9)), lr_scheduler.ReduceLROnPlateau)
    step_args = metrics if plateau else None
    uninterrupted = _sequence(make(_optimizer(momentum=0.9)), 11, step_args)

    opt = _optimizer(momentum=0.9)
    sched = make(opt)
    first = _sequence(sched, 5, step_args)
    checkpoint = {"optim": opt.state_dict(), "sched": sched.state_dict()}
    if through_file:
        mt.save(checkpoint, tmp_path / "ckpt.safetensors")
        checkpoint = mt.load(tmp_path / "ckpt.safetensors")
    new_opt = _optimizer(momentum=0.9)
    new_sched = make(new_opt)  # built before loading, as PyTorch recommends
    new_opt.load_state_dict(checkpoint["optim"])
    new_sched.load_state_dict(checkpoint["sched"])
    rest = _sequence(new_sched, 6, metrics[5:] if plateau else None)
    assert first[:-1] + rest == uninterrupted


def test_step_with_epoch_uses_the_closed_form_and_warns():
    opt = _optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        sched.step(7)
    assert sched.get_last_lr() == [0.1 * 0.5 ** 3] and sched.last_epoch == 7


def test_warns_when_stepped_before_the_optimizer():
    sched = lr_scheduler.ExponentialLR(_optimizer(), gamma=0.5)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt = _optimizer()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_resuming_needs_initial_lr_and_an_optimizer():
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(_optimizer(), step_size=2, last_epoch=3)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lr_scheduler.StepLR(object(), step_size=2)


# ----- the schedules added for PyTorch parity: closed forms, resuming, errors -----

class _Halving:
    """A callable object: its attributes travel in LambdaLR's state_dict (a plain function's cannot)."""

    def __init__(self):
        self.rate = 0.5

    def __call__(self, epoch):
        return self.rate ** epoch


def test_lambda_lr_keeps_callable_objects_state_and_checks_arguments():
    halving = _Halving()
    sched = lr_scheduler.LambdaLR(_optimizer(), halving)
    assert _sequence(sched, 3) == pytest.approx([0.1, 0.05, 0.025, 0.0125])
    halving.rate = 0.9
    saved = sched.state_dict()
    assert saved["lr_lambdas"] == [{"rate": 0.9}]
    other = _Halving()
    fresh = lr_scheduler.LambdaLR(_optimizer(), other)
    fresh.load_state_dict(saved)
    assert other.rate == 0.9 and fresh.last_epoch == 3
    assert lr_scheduler.LambdaLR(_optimizer(), lambda e: 1.0).state_dict()["lr_lambdas"] == [None]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(_optimizer(lrs=(0.1, 0.2)), [lambda e: 1.0])
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got float"):
        lr_scheduler.MultiplicativeLR(_optimizer(), 0.5)


@pytest.mark.parametrize("make, closed_form", [
    (lambda o: lr_scheduler.ConstantLR(o, factor=0.25, total_iters=3), lambda e: 0.1 * (0.25 if e < 3 else 1.0)),
    (lambda o: lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.8, total_iters=4),
     lambda e: 0.1 * (0.2 + 0.6 * min(e, 4) / 4)),
    (lambda o: lr_scheduler.PolynomialLR(o, total_iters=5, power=3.0), lambda e: 0.1 * (1 - min(e, 5) / 5) ** 3),
    (lambda o: lr_scheduler.MultiplicativeLR(o, lambda e: 0.9), lambda e: 0.1 * 0.9 ** e),
    (lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
     lambda e: 0.01 + 0.09 * (1 + math.cos(math.pi * (e if e < 3 else e - 3 if e < 9 else e - 9)
                                           / (3 if e < 3 else 6 if e < 9 else 12))) / 2),
])
def test_new_schedules_follow_their_closed_forms(make, closed_form):
    expected = [closed_form(e) for e in range(15)]
    assert _sequence(make(_optimizer()), 14) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_cyclic_lr_triangle_and_momentum_cycle():
    opt = _optimizer(momentum=0.9)
    sched = lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2, step_size_down=4,
                                  base_momentum=0.8, max_momentum=0.9)
    lrs, momenta = [], []
    for _ in range(8):
        lrs.append(opt.param_groups[0]["lr"])
        momenta.append(opt.param_groups[0]["momentum"])
        opt.step()
        sched.step()
    rise = [0.0, 0.5, 1.0, 0.75, 0.5, 0.25, 0.0, 0.5]  # two steps up, four down, then the next cycle
    assert lrs == pytest.approx([0.1 + 0.4 * f for f in rise])
    assert momenta == pytest.approx([0.9 - 0.1 * f for f in rise])
    assert opt.param_groups[0]["max_momentum"] == 0.9 and opt.param_groups[0]["base_momentum"] == 0.8
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        lr_scheduler.CyclicLR(_optimizer(momentum=0.9), 0.1, 0.5, mode="square")
    with pytest.raises(ValueError, match="momentum or beta1"):
        lr_scheduler.CyclicLR(_optimizer(cls=optim.Adagrad), 0.1, 0.5)
    with pytest.raises(ValueError, match="base_lr must have the same length"):
        lr_scheduler.CyclicLR(_optimizer(momentum=0.9), [0.1, 0.2], 0.5)


def test_warm_restarts_take_fractional_epochs_without_warning():
    opt = _optimizer()
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step(0.5)
    assert sched.get_last_lr() == pytest.approx([0.1 * (1 + math.cos(math.pi * 0.25)) / 2])
    assert sched.last_epoch == 0 and sched.T_cur == 0.5
    sched.step(2.5)  # after the restart at epoch 2
    assert sched.get_last_lr() == pytest.approx([0.1 * (1 + math.cos(math.pi * 0.25)) / 2])
    with pytest.raises(ValueError, match="Expected non-negative epoch"):
        sched.step(-1)
    for bad, message in ((dict(T_0=0), "positive integer T_0"), (dict(T_0=2.5), "positive integer T_0"),
                         (dict(T_0=2, T_mult=0), "integer T_mult >= 1"), (dict(T_0=2, eta_min="0"), "eta_min")):
        with pytest.raises(ValueError, match=message):
            lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(), **bad)


def test_sequential_and_chained_check_their_schedulers():
    opt, other = _optimizer(), _optimizer()
    first = lr_scheduler.ConstantLR(opt)
    with pytest.raises(ValueError, match="number of schedulers 1 and the number of milestones to be equal to 1"):
        lr_scheduler.SequentialLR(opt, [first], milestones=[3])
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        lr_scheduler.SequentialLR(opt, [], milestones=[])
    with pytest.raises(ValueError, match="to belong to the same optimizer"):
        lr_scheduler.SequentialLR(opt, [first, lr_scheduler.ExponentialLR(other, 0.5)], milestones=[2])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.ChainedScheduler([first, lr_scheduler.ReduceLROnPlateau(opt)])
    with pytest.raises(TypeError, match="at index 0 should have `optimizer`"):
        lr_scheduler.SequentialLR(opt, [object()], milestones=[])


@pytest.mark.parametrize("make", [
    lambda opt: lr_scheduler.LambdaLR(opt, _Halving()),
    lambda opt: lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.8),
    lambda opt: lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=6),
    lambda opt: lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=8),
    lambda opt: lr_scheduler.PolynomialLR(opt, total_iters=9, power=2.0),
    lambda opt: lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="exp_range", gamma=0.9),
    lambda opt: lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2),
    lambda opt: lr_scheduler.SequentialLR(opt, [lr_scheduler.LinearLR(opt, 0.5, total_iters=3),
                                                lr_scheduler.CosineAnnealingLR(opt, T_max=4)], milestones=[3]),
    lambda opt: lr_scheduler.ChainedScheduler([lr_scheduler.ConstantLR(opt, 0.5, total_iters=7),
                                               lr_scheduler.ExponentialLR(opt, 0.9)]),
])
@pytest.mark.parametrize("through_file", [False, True])
def test_new_schedules_resume_from_state_dicts(make, through_file, tmp_path):
    uninterrupted = _sequence(make(_optimizer(momentum=0.9)), 11)
    sched = make(_optimizer(momentum=0.9))
    first = _sequence(sched, 5)
    checkpoint = {"optim": sched.optimizer.state_dict(), "sched": sched.state_dict()}
    if through_file:
        mt.save(checkpoint, tmp_path / "ckpt.safetensors")
        checkpoint = mt.load(tmp_path / "ckpt.safetensors")
    new_opt = _optimizer(momentum=0.9)
    new_sched = make(new_opt)
    new_opt.load_state_dict(checkpoint["optim"])
    new_sched.load_state_dict(checkpoint["sched"])
    rest = _sequence(new_sched, 6)
    assert first[:-1] + rest == pytest.approx(uninterrupted, rel=1e-12)


def test_get_lr_outside_step_warns_and_a_replaced_optimizer_step_is_detected():
    opt = _optimizer()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    opt.step = lambda closure=None: None  # replaced after the scheduler was built
    with pytest.warns(UserWarning, match="has been overridden after learning rate scheduler initialization"):
        sched.step()
    replaced = _optimizer()
    calls = []
    replaced.step = lambda closure=None: calls.append(1)  # replaced before: the scheduler wraps it, as PyTorch
    sched = lr_scheduler.StepLR(replaced, step_size=2)
    replaced.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()
    assert calls == [1]


def test_a_tensor_learning_rate_is_updated_in_place():
    lr = mt.tensor(0.1, dtype=mt.float64)
    opt = optim.SGD([mt.tensor([1.0], dtype=mt.float64, requires_grad=True)], lr=lr)
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.param_groups[0]["params"][0].grad = mt.tensor([1.0], dtype=mt.float64)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and lr.item() == pytest.approx(0.05)
    assert isinstance(sched.get_last_lr()[0], mt.Tensor) and sched.get_last_lr()[0] is not lr
    assert opt.param_groups[0]["params"][0].item() == pytest.approx(0.9)  # the step used lr = 0.1
