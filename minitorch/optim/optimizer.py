"""Optimizer: the base contract every update rule shares (PyTorch's torch.optim.Optimizer).

Holds the parameter groups (each a dict of options plus its "params" list),
the per-parameter `state` (keyed by the parameter Tensor itself) and the
PyTorch-shaped `state_dict()` in which parameters become integer indices.
Subclasses implement `_update(group)`, which changes each parameter's array
(`p._data`) in place with plain numpy arithmetic: an update is not an op, so
it never touches a tape. This raw-array path is the optimizers' own door into
the tensor core; `step` then bumps the version of every parameter it updated,
as PyTorch's in-place updates do, so a graph that saved the old values
refuses a later backward (engine/versions.py). An optimizer that changes its
parameters outside `step`'s loop (LBFGS moves them back and forth during its
line search) bumps each write itself.

PyTorch's implementation switches are accepted where PyTorch accepts them and
kept in the param groups (so state_dicts travel both ways): `foreach` and
`fused` choose between PyTorch kernels that compute the same update;
minitorch has one numpy implementation, so they change nothing.
`capturable=True` (for CUDA graphs; PyTorch's CPU step refuses it too) and
`differentiable=True` (a step recorded by autograd; the update runs on raw
arrays, outside the tape) raise a clear error.
"""
import copy
import functools
import itertools
import warnings
from collections import defaultdict

import numpy as np

from ..autograd import enable_grad
from ..engine.versions import bump
from ..tensor import Tensor


class _RequiredParameter:
    """Marks an option a param group must give when the defaults have none."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of the optimizers: `Optimizer(params, defaults)`.

    `params` is an iterable of Tensors (or of (name, Tensor) pairs, as
    `model.named_parameters()` gives: the names are kept in the group's
    "param_names"), or of dicts with a "params" entry and per-group options
    that override `defaults`. A subclass implements
    `_update(group)`, changing each parameter's data in place.

    >>> w, b = mt.nn.Parameter(mt.ones(2)), mt.nn.Parameter(mt.zeros(1))
    >>> opt = mt.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.1}], lr=0.01)
    >>> [group["lr"] for group in opt.param_groups]
    [0.01, 0.1]
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _marks_step_called(cls.__dict__["step"])

    def __init__(self, params, defaults):
        if defaults.get("fused"):
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got a Tensor")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group of parameters (a dict with "params" and options; missing options take the defaults).

        >>> opt = mt.optim.SGD([mt.nn.Parameter(mt.ones(1))], lr=0.01)
        >>> opt.add_param_group({"params": [mt.nn.Parameter(mt.ones(1))], "lr": 0.5})
        >>> [group["lr"] for group in opt.param_groups]
        [0.01, 0.5]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        param_group = dict(param_group)
        params = param_group.get("params")
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        elif params is None:
            raise ValueError("a parameter group needs a 'params' entry")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        if names:  # named_parameters(): (name, tensor) pairs
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
            params = [p[1] for p in params]
        param_group["params"] = params
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if param_group.get("capturable"):
            raise RuntimeError(
                f"{type(self).__name__}(capturable=True) is for CUDA graphs: PyTorch needs the parameters on a cuda, "
                f"xpu, hpu or xla device for it, and minitorch runs on the CPU only")
        if param_group.get("differentiable"):
            raise NotImplementedError(
                f"{type(self).__name__}(differentiable=True): minitorch's optimizers update the parameters' arrays "
                f"outside the tape, so a step cannot be differentiated; write the update with tensor ops instead")
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error", stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add param group "
                                 f"{kind} to the optimizer")
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Clears `.grad` of every parameter: None, or (set_to_none=False) a fresh zero tensor.

        A fresh tensor rather than zeroing in place, because one gradient tensor
        may be shared by several tensors (the tape hands out the same result).

        >>> w = mt.nn.Parameter(mt.ones(2))
        >>> opt = mt.optim.SGD([w], lr=0.1)
        >>> w.sum().backward()
        >>> opt.zero_grad()
        >>> print(w.grad)
        None
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad = None if set_to_none else Tensor._make(np.zeros_like(p.grad._data))

    def step(self, closure=None):
        """Updates every parameter that has a gradient; returns closure() if given.

        >>> w = mt.nn.Parameter(mt.tensor([1.0]))
        >>> opt = mt.optim.SGD([w], lr=0.25)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure).item(), w.item()
        (1.0, 0.5)
        """
        self._opt_called = True  # lets a scheduler warn when it is stepped before the optimizer
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            self._update(group)
            for p in self._params_with_grad(group):
                bump(p)
        return loss

    def _update(self, group):
        raise NotImplementedError(f"{type(self).__name__} must implement _update(group)")

    # ----- helpers for the update rules -----

    @staticmethod
    def _params_with_grad(group):
        return [p for p in group["params"] if p.grad is not None]

    @staticmethod
    def _gradient(p, maximize=False, weight_decay=0.0):
        """p's gradient as an array, negated for `maximize` and plus `weight_decay * p` (L2).

        Returns p.grad's own array when neither applies: callers only read it.
        """
        grad = p.grad._data
        if grad.shape != p._data.shape:
            raise ValueError(f"optimizer: gradient of shape {grad.shape} does not match its parameter's shape "
                             f"{p._data.shape}")
        if maximize:
            grad = np.negative(grad)
        if weight_decay != 0:
            grad = grad + weight_decay * p._data
        return grad

    @staticmethod
    def _zeros_state(p, value=0.0):
        return Tensor._make(np.full_like(p._data, value))

    def _counted_state(self, p, *buffers):
        """p's state, made on its first step (a step count and, for each name in `buffers`, zeros like p),
        with this step counted."""
        state = self.state[p]
        if not state:
            state["step"] = self._step_counter()
            for name in buffers:
                state[name] = self._zeros_state(p)
        state["step"]._data += 1
        return state

    @staticmethod
    def _step_counter():
        # PyTorch keeps "step" as a float32 scalar tensor; so do we, so state_dicts look alike.
        return Tensor._make(np.zeros((), dtype=np.float32))

    # ----- state_dict -----

    def state_dict(self):
        """{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}, as PyTorch.

        Parameters are numbered in group order. The state tensors are the live
        ones (as in PyTorch): save or copy them before stepping again.

        >>> opt = mt.optim.SGD([mt.nn.Parameter(mt.ones(1))], lr=0.1, momentum=0.9)
        >>> sd = opt.state_dict()
        >>> sd["param_groups"][0]["params"], sd["param_groups"][0]["momentum"]
        ([0], 0.9)
        """
        index_of = {}
        counter = itertools.count()
        packed_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                if id(p) not in index_of:
                    index_of[id(p)] = next(counter)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            packed_groups.append(packed)
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict):
        """Loads a `state_dict()` (copies its tensors, cast to each parameter's float dtype).

        >>> w = mt.nn.Parameter(mt.ones(1))
        >>> opt = mt.optim.SGD([w], lr=0.1)
        >>> other = mt.optim.SGD([w], lr=0.5)
        >>> opt.load_state_dict(other.state_dict())
        >>> opt.param_groups[0]["lr"]
        0.5
        """
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("load_state_dict: expected a dict with 'state' and 'param_groups' entries")
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = dict(zip(itertools.chain.from_iterable(s["params"] for s in saved_groups),
                            itertools.chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = {name: _cast_state(param, name, v) for name, v in value.items()}
            else:
                state[key] = copy.deepcopy(value)
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups[:] = saved_groups
        self._fill_missing_options()

    def _fill_missing_options(self):
        """Gives groups loaded from an older or foreign state_dict every option this optimizer reads."""
        for group in self.param_groups:
            for name, default in self.defaults.items():
                if default is not required:
                    group.setdefault(name, default)

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        lines.append(")")
        return "\n".join(lines)


def _marks_step_called(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        self._opt_called = True
        return step(self, *args, **kwargs)
    return wrapper


def _cast_state(param, name, value):
    """A copy of a loaded state entry; floating tensors take the parameter's dtype ("step" stays as saved).

    Lists and tuples (LBFGS's history) are copied entry by entry.
    """
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, name, v) for v in value)
    if isinstance(value, Tensor):
        array = value._data
    elif isinstance(value, np.ndarray):
        array = value
    else:
        return copy.deepcopy(value)
    if name != "step" and array.dtype.kind == "f" and param._data.dtype.kind == "f":
        array = array.astype(param._data.dtype)
    else:
        array = array.copy()
    return Tensor._make(array)


def lerp_(start, end, weight):
    """`start += weight * (end - start)` on arrays, in place, by PyTorch's formula (torch.lerp); returns the scratch.

    PyTorch computes `end - (end - start) * (1 - weight)` when weight >= 0.5, for
    accuracy near weight 1; the scratch array (end - start, scaled) is handed
    back so that the caller can reuse its memory.

    >>> m = np.array([0.0, 1.0])
    >>> _ = lerp_(m, np.array([1.0, 1.0]), 0.1)
    >>> m.tolist()
    [0.1, 1.0]
    """
    scratch = np.subtract(end, start)
    if abs(weight) < 0.5:
        scratch *= weight
        start += scratch
    else:
        scratch *= 1 - weight
        np.subtract(end, scratch, out=start)
    return scratch


def average_square_(average, values, decay, scratch=None):
    """`average = decay * average + (1 - decay) * values * values`, in place, in PyTorch's order; returns the scratch.

    The running mean of squares of RMSprop, Adadelta and Adam (PyTorch:
    `average.mul_(decay).addcmul_(values, values, value=1 - decay)`). `scratch`,
    an array of the same shape, is used if given, else made.

    >>> v = np.array([1.0, 0.0])
    >>> _ = average_square_(v, np.array([2.0, 3.0]), 0.5)
    >>> v.tolist()
    [2.5, 4.5]
    """
    average *= decay
    scratch = np.multiply(values, 1 - decay, out=scratch)
    scratch *= values
    average += scratch
    return scratch


_OPTION_NAMES = {"lr": "learning rate", "eps": "epsilon value"}  # PyTorch's words; the others: "<name> value"


def check_non_negative(**options):
    """PyTorch's refusal of a negative option: ValueError("Invalid learning rate: -0.1") and the like.

    >>> check_non_negative(lr=0.1, weight_decay=-1)
    Traceback (most recent call last):
        ...
    ValueError: Invalid weight_decay value: -1
    """
    for name, value in options.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {_OPTION_NAMES.get(name, name + ' value')}: {value}")
