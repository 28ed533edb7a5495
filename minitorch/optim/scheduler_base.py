"""LRScheduler: the base of the learning-rate schedules (PyTorch's torch/optim/lr_scheduler.py, first half).

A scheduler rewrites `group["lr"]` of its optimizer's param groups at every
`step()`. Most schedules are chainable: `get_lr()` computes the new lrs from
the current ones (so two schedulers on one optimizer compose, and the
floating-point sequences match PyTorch's bit for bit); `step(epoch)`, which
PyTorch deprecates, uses a schedule's closed form `_get_closed_form_lr()`
where it has one.

PyTorch's warnings about the order of calls are kept: stepping the scheduler
before the optimizer's first step skips the schedule's first value, and an
`optimizer.step` replaced after the scheduler was built can no longer tell it
that it ran. A learning rate may be a 0-d Tensor: it is updated in place.
"""
import functools
import warnings
import weakref

from ..tensor import Tensor
from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available."
)


class LRScheduler:
    """Base class of the schedulers: sets `initial_lr` in each group, keeps `base_lrs`, `last_epoch` and the last lrs.

    A subclass implements `get_lr()`; `step()` (once per epoch, after `optimizer.step()`) writes its values into
    the param groups.

    >>> class Halving(mt.optim.lr_scheduler.LRScheduler):
    ...     def get_lr(self):
    ...         return [base / 2 ** self.last_epoch for base in self.base_lrs]
    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> scheduler = Halving(optimizer)
    >>> for epoch in range(3):
    ...     optimizer.step(); scheduler.step()
    >>> scheduler.last_epoch, scheduler.get_last_lr(), optimizer.param_groups[0]["lr"]
    (3, [0.125], 0.125)
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                group.setdefault("initial_lr", initial_lr.clone() if isinstance(initial_lr, Tensor) else initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming a "
                                   f"scheduler with last_epoch >= 0 (load the optimizer's state_dict first)")
        self.base_lrs = param_group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self):
        """The step the constructor takes: it sets the lrs of epoch 0 (last_epoch + 1)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The lrs for `self.last_epoch`, one per param group (subclasses implement this)."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_lr()")

    def get_last_lr(self):
        """The lrs the last `step()` set, one per param group.

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> scheduler = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
        >>> optimizer.step(); scheduler.step()
        >>> scheduler.get_last_lr()
        [0.5]
        """
        return self._last_lr

    def step(self, epoch=None):
        """Advances one epoch and writes the new lrs into the optimizer's param groups (call it after `optimizer.step()`).

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> scheduler = mt.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.1)
        >>> optimizer.step(); scheduler.step()
        >>> optimizer.param_groups[0]["lr"]
        0.1
        """
        if self._step_count == 1:
            _warn_about_the_order(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        set_param_group_values(self.optimizer, "lr", values)
        self._last_lr = param_group_values(self.optimizer, "lr")

    def state_dict(self):
        """Every attribute except the optimizer (as PyTorch); `load_state_dict` restores it.

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> scheduler = mt.optim.lr_scheduler.StepLR(optimizer, step_size=2)
        >>> scheduler.state_dict()["last_epoch"], scheduler.state_dict()["step_size"]
        (0, 2)
        """
        return self._state_except()

    def _state_except(self, *names):
        """Every attribute but the optimizer and `names`, which the caller saves its own way."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer" and key not in names}

    def _load_state_except(self, state_dict, name):
        """Restores every entry of `state_dict` but `name`, and returns `name`'s for the caller to restore."""
        state_dict = dict(state_dict)
        saved = state_dict.pop(name)
        self.__dict__.update(state_dict)
        return saved

    def load_state_dict(self, state_dict):
        """Restores what `state_dict()` returned (build the scheduler on its optimizer first, as in PyTorch).

        >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
        >>> scheduler = mt.optim.lr_scheduler.StepLR(optimizer, step_size=2)
        >>> scheduler.load_state_dict({**scheduler.state_dict(), "last_epoch": 5})
        >>> scheduler.last_epoch
        5
        """
        self.__dict__.update(state_dict)


class _LRScheduler(LRScheduler):
    """PyTorch's old name for LRScheduler, kept for code that subclasses it."""


def warn_get_lr_called_outside_step(scheduler):
    """PyTorch's warning when `get_lr()` is called by hand: the lrs a schedule set are `get_last_lr()`.

    >>> import warnings
    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = mt.optim.lr_scheduler.StepLR(optimizer, step_size=2).get_lr()
    >>> str(caught[0].message)
    'To get the last learning rate computed by the scheduler, please use `get_last_lr()`.'
    """
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                      UserWarning, stacklevel=3)


def param_group_values(optimizer, key):
    """`group[key]` of every param group (0-d Tensors cloned, so the caller cannot change the optimizer's).

    >>> optimizer = mt.optim.SGD([{"params": [mt.nn.Parameter(mt.zeros(1))], "lr": 0.5}], lr=1.0)
    >>> param_group_values(optimizer, "lr")
    [0.5]
    """
    return [group[key].clone() if isinstance(group[key], Tensor) else group[key] for group in optimizer.param_groups]


def set_param_group_values(optimizer, key, values):
    """Writes one value per param group into `group[key]` (into a Tensor lr in place, as PyTorch does).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> set_param_group_values(optimizer, "lr", [0.25])
    >>> optimizer.param_groups[0]["lr"]
    0.25
    """
    values = list(values)
    if len(values) != len(optimizer.param_groups):
        raise ValueError(f"expected {len(optimizer.param_groups)} values of {key!r}, one per param group, "
                         f"got {len(values)}")
    for group, value in zip(optimizer.param_groups, values):
        set_group_value(group, key, value)


def set_group_value(group, key, value):
    """`group[key] = value`, or, when the group holds a 0-d Tensor there, `group[key].fill_(value)`.

    >>> group = {"lr": mt.tensor(0.1)}
    >>> set_group_value(group, "lr", 0.5)
    >>> group["lr"]
    tensor(0.5000)
    """
    if isinstance(group[key], Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def per_group(name, optimizer, value):
    """One value per param group: a list/tuple is checked for length, a scalar is repeated (PyTorch's _format_param).

    >>> optimizer = mt.optim.SGD([mt.nn.Parameter(mt.zeros(1))], lr=1.0)
    >>> per_group("max_lr", optimizer, 0.1)
    [0.1]
    """
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(value)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
        return [v.clone() if isinstance(v, Tensor) else v for v in value]
    return [value] * len(optimizer.param_groups)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _track_step_calls(optimizer):
    """Makes a `step` assigned on the optimizer object itself record its calls, as the classes' own steps do.

    Optimizer subclasses' `step` methods set `optimizer._opt_called` (Optimizer.__init_subclass__);
    PyTorch wraps the instance's step the same way when a scheduler is built.
    """
    step = optimizer.__dict__.get("step")
    if step is None or getattr(step, "_wrapped_by_lr_sched", False):
        return
    optimizer_ref = weakref.ref(optimizer)  # no cycle through the optimizer's own attribute

    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        optimizer_ref()._opt_called = True
        return step(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    optimizer.step = wrapper


def _warn_about_the_order(optimizer):
    step = optimizer.__dict__.get("step")
    if step is not None and not getattr(step, "_wrapped_by_lr_sched", False):
        warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                      "initialization. Please, make sure to call `optimizer.step()` before `lr_scheduler.step()`.",
                      UserWarning, stacklevel=3)
    elif not getattr(optimizer, "_opt_called", False):
        warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. Call them in the "
                      "opposite order: `optimizer.step()` before `lr_scheduler.step()`, or the first value of the "
                      "learning rate schedule is skipped.", UserWarning, stacklevel=3)
