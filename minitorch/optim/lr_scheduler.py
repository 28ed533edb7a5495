"""Learning-rate schedules (PyTorch's torch.optim.lr_scheduler), with PyTorch's exact sequences.

Every schedule PyTorch has: the per-epoch factors (LambdaLR,
MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR,
PolynomialLR), the cosine ones (CosineAnnealingLR, CosineAnnealingWarmRestarts),
the cyclic ones that also cycle momentum (CyclicLR, OneCycleLR; cyclic_lr.py),
ReduceLROnPlateau (plateau_lr.py), and the combinations SequentialLR and
ChainedScheduler (combined_lr.py). The base class and the chainable-form
rules are in scheduler_base.py. The chainable schedules compute each new lr
from the current one, in PyTorch's order of operations, so the sequences
match PyTorch's float for float (tests/test_optim_torch_parity.py).
"""
import math
import types
from bisect import bisect_right
from collections import Counter

from .combined_lr import ChainedScheduler, SequentialLR
from .cyclic_lr import CyclicLR, OneCycleLR
from .plateau_lr import ReduceLROnPlateau
from .scheduler_base import _LRScheduler  # noqa: F401 (PyTorch's old name, still imported by some code)
from .scheduler_base import LRScheduler, param_group_values, set_param_group_values, warn_get_lr_called_outside_step

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]


class _LambdaScheduler(LRScheduler):
    """What LambdaLR and MultiplicativeLR share: one function of the epoch per param group.

    Their state_dict keeps callable objects' attributes, not plain functions (which cannot be saved), as PyTorch does.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        state = self._state_except("lr_lambdas")
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        for fn, saved in zip(self.lr_lambdas, self._load_state_except(state_dict, "lr_lambdas")):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = initial_lr * lr_lambda(epoch) (one function, or one per param group).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda epoch: 0.5 ** epoch)
    >>> lrs = []
    >>> for epoch in range(3):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    >>> lrs
    [0.5, 0.25, 0.125]
    """

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """lr = lr * lr_lambda(epoch) at each step (the factor multiplies the current lr).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.MultiplicativeLR(optimizer, lr_lambda=lambda epoch: 0.5)
    >>> lrs = []
    >>> for epoch in range(3):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    >>> lrs
    [0.5, 0.25, 0.125]
    """

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self._is_initial:
            return param_group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """lr = initial_lr * gamma ** (epoch // step_size).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    >>> lrs
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return param_group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr = initial_lr * gamma ** (number of milestones reached).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[2, 4], gamma=0.1)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(round(optimizer.param_groups[0]["lr"], 4))
    >>> lrs
    [1.0, 0.1, 0.1, 0.01, 0.01]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self.last_epoch not in self.milestones:
            return param_group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        # A checkpoint (JSON) brings the Counter back as a plain dict.
        self.milestones = Counter({int(k): v for k, v in dict(self.milestones).items()})


class ConstantLR(LRScheduler):
    """lr = initial_lr * factor for the first `total_iters` epochs, then initial_lr.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=2)
    >>> lrs = [optimizer.param_groups[0]["lr"]]
    >>> for epoch in range(3):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    >>> lrs
    [0.5, 0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return param_group_values(self.optimizer, "lr")
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """lr goes linearly from initial_lr * start_factor to initial_lr * end_factor over `total_iters` epochs.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.25, total_iters=3)
    >>> lrs = [optimizer.param_groups[0]["lr"]]
    >>> for epoch in range(4):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(optimizer.param_groups[0]["lr"])
    >>> lrs
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return param_group_values(self.optimizer, "lr")
        change = self.end_factor - self.start_factor
        return [group["lr"] * (1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change))
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr = initial_lr * gamma ** epoch.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(3):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(round(optimizer.param_groups[0]["lr"], 4))
    >>> lrs
    [0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self._is_initial:  # a scheduler resumed at last_epoch >= 0 must not decay once more
            return param_group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=4, power=2.0)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(round(optimizer.param_groups[0]["lr"], 4))
    >>> lrs
    [0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return param_group_values(self.optimizer, "lr")
        decay_factor = ((1.0 - self.last_epoch / self.total_iters)
                        / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay_factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (initial_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, computed recursively.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
    >>> lrs = []
    >>> for epoch in range(4):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(round(optimizer.param_groups[0]["lr"], 4))
    >>> lrs
    [0.8536, 0.5, 0.1464, 0.0]
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        if self._is_initial:
            return param_group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            # Past T_max the curve climbs back; this branch keeps the recursion off a 0/0 at the trough.
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, self.optimizer.param_groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from initial_lr to eta_min over T_i epochs, then a restart; T_i = T_0 * T_mult ** restarts.

    `step(epoch)` takes fractional epochs, so the schedule can advance every
    batch: `scheduler.step(epoch + i / iters_per_epoch)` (SGDR, Loshchilov
    and Hutter, 2017). Unlike the other schedules, passing an epoch here is
    not deprecated and gives no warning.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=2)
    >>> lrs = []
    >>> for epoch in range(6):
    ...     optimizer.step()
    ...     scheduler.step()
    ...     lrs.append(round(optimizer.param_groups[0]["lr"], 4))
    >>> lrs  # restarts at epochs 2 and 6
    [0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """Advances one epoch, or jumps to `epoch` (a float: a fraction of an epoch is allowed).

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> scheduler = mt.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=4)
        >>> scheduler.step(2.0)
        >>> scheduler.get_last_lr(), scheduler.last_epoch
        ([0.5], 2)
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    # The restart that `epoch` falls after: T_0 (T_mult**n - 1) / (T_mult - 1) <= epoch.
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        set_param_group_values(self.optimizer, "lr", values)
        self._last_lr = param_group_values(self.optimizer, "lr")
