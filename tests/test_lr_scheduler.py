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
