"""ReduceLROnPlateau: cut the learning rate when a monitored metric stops improving (PyTorch's, unchanged)."""
import math
import warnings

from .scheduler_base import (EPOCH_DEPRECATION_WARNING, LRScheduler, _check_optimizer, param_group_values,
                             set_group_value)


class ReduceLROnPlateau(LRScheduler):
    """Multiplies lr by `factor` once a metric has not improved for more than `patience` steps.

    `step(metric)` takes the monitored value. Not a subclass in spirit: it keeps
    no base_lrs and never calls get_lr (as in PyTorch).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = mt.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=1, factor=0.5)
    >>> lrs = []
    >>> for epoch in range(5):
    ...     optimizer.step()
    ...     scheduler.step(1.0)  # the metric never improves
    ...     lrs.append(round(optimizer.param_groups[0]["lr"], 4))
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = param_group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Records this epoch's metric; lowers the lrs after more than `patience` epochs without improvement.

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> scheduler = mt.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
        >>> scheduler.step(1.0); scheduler.step(2.0)
        >>> scheduler.get_last_lr()
        [0.1]
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = param_group_values(self.optimizer, "lr")

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the optimizer ({len(self.optimizer.param_groups)})"
                                   f" differs from when ReduceLROnPlateau was initialized ({len(self.min_lrs)}); "
                                   f"set `min_lrs` to match.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for group, min_lr in zip(self.optimizer.param_groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                set_group_value(group, "lr", new_lr)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
