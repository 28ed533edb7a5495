"""The cyclic schedules, which move momentum against the learning rate: CyclicLR and OneCycleLR.

Both follow PyTorch's torch/optim/lr_scheduler.py and are stepped after every
batch. While the lr rises the momentum (SGD's `momentum`, or beta1 of the
Adam family's `betas`) falls, and the other way round (Smith, 2017 and 2018).
"""
import math
import types

from .scheduler_base import LRScheduler, per_group, set_param_group_values, warn_get_lr_called_outside_step


class _MomentumCycling:
    """Writes a momentum into a param group: `momentum`, or beta1 of `betas` for the Adam family."""

    def _check_momentum_support(self, optimizer):
        if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
            raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
        self.use_beta1 = "betas" in optimizer.defaults

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value


class CyclicLR(_MomentumCycling, LRScheduler):
    """The lr cycles between base_lr and max_lr (Smith, "Cyclical Learning Rates", 2017); momentum cycles opposite.

    `mode` "triangular" keeps the amplitude, "triangular2" halves it every
    cycle, "exp_range" scales it by gamma ** iterations; or give your own
    `scale_fn(x)` of the cycle number (`scale_mode="cycle"`) or of the
    iteration (`"iterations"`). Step it after every batch.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0, momentum=0.9)
    >>> scheduler = mt.optim.lr_scheduler.CyclicLR(optimizer, base_lr=0.1, max_lr=0.5, step_size_up=2)
    >>> group = optimizer.param_groups[0]
    >>> cycle = [(group["lr"], group["momentum"])]
    >>> for batch in range(4):
    ...     optimizer.step(); scheduler.step()
    ...     cycle.append((round(group["lr"], 4), round(group["momentum"], 4)))
    >>> cycle  # (lr, momentum) after each batch
    [(0.1, 0.9), (0.3, 0.85), (0.5, 0.8), (0.3, 0.85), (0.1, 0.9)]
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        self.optimizer = optimizer
        base_lrs = per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            set_param_group_values(optimizer, "lr", base_lrs)
        self.max_lrs = per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_mode()

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._check_momentum_support(optimizer)
            self.base_momentums = per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for group, top, bottom in zip(optimizer.param_groups, self.max_momentums, self.base_momentums):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_mode(self):
        # The built-in modes fix what their scale function reads (PyTorch overrides scale_mode for them).
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x):
        """The amplitude's scale at cycle (or iteration) `x`: the custom function, or the mode's.

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0, momentum=0.9)
        >>> mt.optim.lr_scheduler.CyclicLR(optimizer, 0.1, 0.5, mode="triangular2").scale_fn(3)
        0.25
        """
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, bottom, top in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                self._set_momentum(group, top - (top - bottom) * scale_factor * scale)
        return lrs

    def state_dict(self):
        """As the base's, with a custom scale_fn's attributes (a callable object's) or None (a function's).

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0, momentum=0.9)
        >>> scheduler = mt.optim.lr_scheduler.CyclicLR(optimizer, 0.1, 0.5, scale_fn=lambda x: 1.0)
        >>> scheduler.state_dict()["_scale_fn_custom"] is None
        True
        """
        state = self._state_except("_scale_fn_custom")
        fn = self._scale_fn_custom
        state["_scale_fn_custom"] = None if fn is None or isinstance(fn, types.FunctionType) else fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        fn = self._load_state_except(state_dict, "_scale_fn_custom")
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_mode()


class OneCycleLR(_MomentumCycling, LRScheduler):
    """The 1cycle policy: warm up from max_lr/div_factor to max_lr, then anneal to a tiny min_lr.

    Momentum (or Adam's beta1) cycles the other way, between max_momentum and
    base_momentum. Stepping past `total_steps` raises ValueError. Step it after every batch.

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0, momentum=0.9)
    >>> scheduler = mt.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1.0, total_steps=6)
    >>> group, cycle = optimizer.param_groups[0], []
    >>> for batch in range(5):
    ...     optimizer.step(); scheduler.step()
    ...     cycle.append((round(group["lr"], 4), round(group["momentum"], 4)))
    >>> cycle  # (lr, momentum) after each batch; it started at (max_lr / 25, max_momentum) = (0.04, 0.95)
    [(0.9944, 0.8506), (0.8117, 0.8688), (0.4626, 0.9037), (0.1335, 0.9367), (0.0, 0.95)]
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        # Each phase anneals between two named group entries until its end_step.
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        max_lrs = per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._check_momentum_support(optimizer)
            max_momentums = per_group("max_momentum", optimizer, max_momentum)
            base_momentums = per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, top, bottom in zip(optimizer.param_groups, max_momentums, base_momentums):
                    self._set_momentum(group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = bottom
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        warn_get_lr_called_outside_step(self)
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps is "
                             f"{self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                        self._set_momentum(group, momentum)
                    break
                start_step = phase["end_step"]
        return lrs
