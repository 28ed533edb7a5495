"""Schedules built from schedules: SequentialLR (one after another) and ChainedScheduler (all at once).

As PyTorch's: both take schedulers already built on the same optimizer.
SequentialLR hands over at each milestone, restarting the next scheduler
from its epoch 0 (its closed form at 0, so it starts from the initial lr);
ChainedScheduler steps every scheduler at each step, so their factors
multiply (for the chainable schedules).
"""
from bisect import bisect_right

from .plateau_lr import ReduceLROnPlateau
from .scheduler_base import LRScheduler, param_group_values, set_param_group_values


def _check_schedulers(kind, optimizer, schedulers, what):
    if len(schedulers) < 1:
        raise ValueError(f"{kind} expects at least one scheduler{what}, but got no scheduler.")
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{kind} at index {index} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{kind} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             f"kwargs to be specified when calling `step`, but got one at index {index} in the given "
                             f"schedulers sequence.")
        if optimizer is not scheduler.optimizer:
            raise ValueError(f"{kind} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(scheduler).__name__} at index {index} has {scheduler.optimizer}, which is "
                             f"different from {type(optimizer).__name__}.")


class _Combination(LRScheduler):
    """The state_dict of a combination holds its schedulers' state_dicts (not the schedulers)."""

    def state_dict(self):
        state = self._state_except("_schedulers")
        state["_schedulers"] = [scheduler.state_dict() for scheduler in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        for scheduler, scheduler_state in zip(self._schedulers, self._load_state_except(state_dict, "_schedulers")):
            scheduler.load_state_dict(scheduler_state)


class SequentialLR(_Combination):
    """Runs `schedulers[0]` until `milestones[0]`, then `schedulers[1]` from its start, and so on.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> warmup = mt.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.5, total_iters=2)
    >>> decay = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    >>> scheduler = mt.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[2])
    >>> lrs = scheduler.get_last_lr()
    >>> for epoch in range(4):
    ...     optimizer.step(); scheduler.step()
    ...     lrs += scheduler.get_last_lr()
    >>> lrs  # warmup for 2 epochs, then decay from the start
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers(type(self).__name__, optimizer, schedulers, "")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Back to the initial lrs, undo the constructors' steps, then start only the first scheduler.
        set_param_group_values(optimizer, "lr", [group["initial_lr"] for group in optimizer.param_groups])
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Takes back the step each (nested) scheduler made when it was built.

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> inner = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
        >>> outer = mt.optim.lr_scheduler.SequentialLR(optimizer, [inner], milestones=[])
        >>> inner.last_epoch  # undone to -1, then stepped again by SequentialLR
        0
        """
        schedulers = self if sched is None else sched
        if hasattr(schedulers, "_schedulers"):
            for scheduler in schedulers._schedulers:
                self.recursive_undo(scheduler)
        elif hasattr(schedulers, "last_epoch"):
            schedulers.last_epoch -= 1

    def step(self):
        """One epoch: the scheduler in charge steps; at a milestone the next one starts from its epoch 0."""
        self.last_epoch += 1
        index = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Combination):
    """Steps every scheduler at each step: chainable schedules' factors multiply.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> constant = mt.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=2)
    >>> decay = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
    >>> scheduler = mt.optim.lr_scheduler.ChainedScheduler([constant, decay])
    >>> optimizer.param_groups[0]["lr"]  # 1.0 * 0.5 (constant) * 0.9 ** 0 (decay)
    0.5
    >>> for epoch in range(1, 4):
    ...     optimizer.step(); scheduler.step()
    ...     print(epoch, round(optimizer.param_groups[0]["lr"], 4))
    1 0.45
    2 0.81
    3 0.729
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                             f"scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(type(self).__name__, optimizer, schedulers, " to be chained")
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = param_group_values(self._schedulers[-1].optimizer, "lr")

    def step(self):
        """Steps each scheduler in turn."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = param_group_values(self._schedulers[-1].optimizer, "lr")
