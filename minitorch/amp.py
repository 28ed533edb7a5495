"""`mt.amp` (also `mt.cuda.amp`, `mt.cpu.amp`): mixed precision, as far as a float32 CPU library has it.

Mixed-precision training code runs unchanged. `autocast` computes nothing in
a lower precision: minitorch's kernels are numpy's, which has no bfloat16,
and float16 on a CPU is slower than float32. So an enabled autocast warns
once and leaves the region in float32, as PyTorch itself does for a device
or dtype it cannot autocast ("... Disabling autocast"). `GradScaler` is
PyTorch's loss scaling, done for real: scaling the loss, unscaling the
gradients, skipping a step whose gradients overflowed and adjusting the
scale (torch/amp/grad_scaler.py). In float32 it changes nothing but catches
infinite and NaN gradients; a CUDA scaler is disabled with PyTorch's warning.
"""
import functools
import math
import sys
import types
import warnings

from . import cpu, cuda
from .engine.state import no_grad
from .nest import map_structure
from .tensor import Tensor


class autocast:
    """Context manager and decorator for an autocast region (torch.autocast); here the region runs in float32.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with mt.autocast("cpu", dtype=mt.float16):
    ...         y = mt.ones(2) * 2
    >>> y.dtype, "float32" in str(caught[0].message)
    (minitorch.float32, True)
    >>> with mt.autocast("cpu", enabled=False):  # what CPU code paths usually ask for: no warning
    ...     pass
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled:
            warnings.warn(f"autocast on '{device_type}'{'' if dtype is None else f' to {dtype}'}: minitorch computes "
                          f"in float32 only, so autocast is disabled and the region runs in float32", stacklevel=2)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def in_region(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return in_region


def is_autocast_available(device_type):
    """False: no device autocasts here (minitorch computes in float32).

    >>> mt.amp.is_autocast_available("cpu")
    False
    """
    return False


class GradScaler:
    """Loss scaling for mixed-precision training (torch.amp.GradScaler), with PyTorch's update rule.

    `scale(loss)` multiplies by the scale; `step(optimizer)` unscales the
    gradients (unless `unscale_` did), skips the step if any is inf or NaN,
    and `update()` halves the scale after a skipped step and doubles it after
    `growth_interval` good ones. Disabled (`enabled=False`, or a "cuda"
    scaler), every method passes through.

    >>> w = mt.nn.Parameter(mt.tensor([1.0, 2.0]))
    >>> opt = mt.optim.SGD([w], lr=0.1)
    >>> scaler = mt.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale((w * w).sum()).backward()
    >>> w.grad                                  # scaled by 1024
    tensor([2048., 4096.])
    >>> scaler.step(opt); scaler.update()
    >>> w, scaler.get_scale()
    (Parameter containing:
    tensor([0.8000, 1.6000], requires_grad=True), 1024.0)
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        if enabled and device != "cpu":
            warnings.warn(f"GradScaler is enabled for '{device}', but minitorch has only the CPU. "
                          f"Disabling (use GradScaler('cpu') to scale on the CPU).", stacklevel=2)
            enabled = False
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._device = device
        self._enabled = enabled
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._found_inf = {}  # id(optimizer) -> whether its unscaled gradients held an inf or NaN, since update()

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """`outputs` (a tensor or a nest of tensors) times the scale."""
        if not self._enabled:
            return outputs
        return map_structure(lambda t: t * self._scale if isinstance(t, Tensor) else t, outputs)

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale, in place, and notes whether any is inf or NaN."""
        if not self._enabled:
            return
        if id(optimizer) in self._found_inf:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        inverse = 1.0 / self._scale
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.mul_(inverse)
                        found = found or not bool(p.grad.isfinite().all())
        self._found_inf[id(optimizer)] = found

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs), unless the unscaled gradients held an inf or NaN (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if id(optimizer) not in self._found_inf:
            self.unscale_(optimizer)
        return None if self._found_inf[id(optimizer)] else optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Adjusts the scale after an iteration (or sets `new_scale`) and forgets this iteration's unscaling."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
        elif any(self._found_inf.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        elif self._found_inf:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale = min(self._scale * self._growth_factor, math.inf)
                self._growth_tracker = 0
        self._found_inf = {}

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def state_dict(self):
        """The scale and its update rule ({} when disabled), as PyTorch's."""
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled instance "
                               "of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


def _device_amp(device, autocast_dtype):
    """`mt.cuda.amp` / `mt.cpu.amp`: PyTorch's per-device forms, whose device is fixed (and first argument differs)."""
    def device_autocast(enabled=True, dtype=autocast_dtype, cache_enabled=True):
        return autocast(device, dtype, enabled, cache_enabled)

    def device_scaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        return GradScaler(device, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    module = types.ModuleType(f"{__package__}.{device}.amp", f"mt.{device}.amp: autocast and GradScaler for '{device}'.")
    module.autocast, module.GradScaler = device_autocast, device_scaler
    sys.modules[module.__name__] = module  # `from minitorch.cuda.amp import GradScaler` works too
    return module


cuda.amp = _device_amp("cuda", "float16")
cpu.amp = _device_amp("cpu", "bfloat16")
