"""Global settings and small queries PyTorch code calls: the default dtype, determinism flags,
matmul precision, finfo/iinfo, inference_mode, and predicates on tensors.
"""
import functools
import types

import numpy as np

from . import cpu, cuda, devices, dtypes
from .engine.anomaly import is_anomaly_enabled, set_detect_anomaly
from .engine.state import no_grad

_FLOAT_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def set_default_dtype(d):
    """Sets the dtype of floating tensors made without one (float32 at start; float16 or float64 too).

    >>> mt.set_default_dtype(mt.float64)
    >>> mt.tensor([1.5]).dtype, mt.zeros(1).dtype
    (minitorch.float64, minitorch.float64)
    >>> mt.set_default_dtype(mt.float32)
    """
    if d not in _FLOAT_DTYPES:
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.default_float = dtypes.from_numpy_dtype(dtypes.to_numpy_dtype(d))


def get_default_dtype():
    """The dtype of floating tensors made without one.

    >>> mt.get_default_dtype()
    minitorch.float32
    """
    return dtypes.default_float


_deterministic = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the flag; every minitorch op is already deterministic (numpy on the CPU, a fixed
    summation order), so no result changes.

    >>> mt.use_deterministic_algorithms(True)
    >>> mt.are_deterministic_algorithms_enabled()
    True
    >>> mt.use_deterministic_algorithms(False)
    """
    _deterministic["enabled"], _deterministic["warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled():
    """The flag `use_deterministic_algorithms` set.

    >>> mt.are_deterministic_algorithms_enabled()
    False
    """
    return _deterministic["enabled"]


def is_deterministic_algorithms_warn_only_enabled():
    """The `warn_only` flag `use_deterministic_algorithms` set.

    >>> mt.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _deterministic["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """PyTorch's other spelling of `use_deterministic_algorithms`: 0/"default", 1/"warn", 2/"error".

    >>> mt.set_deterministic_debug_mode("warn"); mt.get_deterministic_debug_mode()
    1
    >>> mt.set_deterministic_debug_mode(0)
    """
    mode = _DEBUG_MODES.get(debug_mode, debug_mode)
    if mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected one of default, warn, error, got {debug_mode!r}")
    use_deterministic_algorithms(mode > 0, warn_only=mode == 1)


def get_deterministic_debug_mode():
    """0 (off), 1 (warn) or 2 (error), from the flags `use_deterministic_algorithms` set.

    >>> mt.get_deterministic_debug_mode()
    0
    """
    if not _deterministic["enabled"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    """Records "highest", "high" or "medium"; numpy's float32 matmul is always full float32 precision.

    >>> mt.set_float32_matmul_precision("high"); mt.get_float32_matmul_precision()
    'high'
    >>> mt.set_float32_matmul_precision("highest")
    """
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision {precision!r}: expected one of highest, high, medium")
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    """The precision `set_float32_matmul_precision` recorded ("highest" at start).

    >>> mt.get_float32_matmul_precision()
    'highest'
    """
    return _matmul_precision[0]


class finfo:
    """The limits of a floating dtype (torch.finfo): bits, eps, max, min, tiny, smallest_normal, resolution.

    >>> info = mt.finfo(mt.float32)
    >>> info.bits, info.eps, mt.finfo().dtype
    (32, 1.1920928955078125e-07, 'float32')
    """

    def __init__(self, type=None):
        np_dtype = dtypes.to_numpy_dtype(dtypes.default_float if type is None else type)
        if np_dtype.kind != "f":
            raise TypeError(f"finfo() requires a floating point input type, got {dtypes.from_numpy_dtype(np_dtype)}. "
                            "Use iinfo to handle integers")
        info = np.finfo(np_dtype)
        self.bits, self.dtype = info.bits, np_dtype.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # PyTorch's (numpy's is rounded to the dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype (torch.iinfo): bits, max, min.

    >>> mt.iinfo(mt.int64).max, mt.iinfo(mt.uint8).min, mt.iinfo(mt.int8).bits
    (9223372036854775807, 0, 8)
    """

    def __init__(self, type):
        np_dtype = dtypes.to_numpy_dtype(type)
        if np_dtype.kind not in "iu":
            raise TypeError(f"{dtypes.from_numpy_dtype(np_dtype)} is not supported by iinfo (an integer dtype is needed)")
        info = np.iinfo(np_dtype)
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = np_dtype.name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


class inference_mode:
    """`no_grad` under PyTorch's inference-mode name: a context manager or decorator (with or without ()).

    `inference_mode(False)` changes nothing. minitorch has no separate
    inference tensors: inside, ops are simply not recorded.

    >>> x = mt.ones(2, requires_grad=True)
    >>> with mt.inference_mode():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __new__(cls, mode=True):
        if isinstance(mode, types.FunctionType):  # used as @mt.inference_mode, without ()
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self._switches = []

    def __enter__(self):
        switch = no_grad() if self.mode else None
        if switch is not None:
            switch.__enter__()
        self._switches.append(switch)
        return self

    def __exit__(self, *exc):
        switch = self._switches.pop()
        return False if switch is None else switch.__exit__(*exc)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self.mode):
                return fn(*args, **kwargs)

        return wrapper


def set_anomaly_enabled(enabled, check_nan=True):
    """Turns anomaly detection (NaN/Inf checks on every op) on or off; on without `check_nan` is off,
    since minitorch's anomaly mode is those checks.

    >>> mt.set_anomaly_enabled(True); mt.is_anomaly_enabled(), mt.is_anomaly_check_nan_enabled()
    (True, True)
    >>> mt.set_anomaly_enabled(False)
    """
    set_detect_anomaly(bool(enabled) and bool(check_nan))


def is_anomaly_check_nan_enabled():
    """True while anomaly detection checks ops for NaN (in minitorch: while it is on).

    >>> mt.is_anomaly_check_nan_enabled()
    False
    """
    return is_anomaly_enabled()


def is_floating_point(input):
    """True for tensors of a floating dtype.

    >>> mt.is_floating_point(mt.ones(1)), mt.is_floating_point(mt.arange(2))
    (True, False)
    """
    return input.is_floating_point()


def is_complex(input):
    """False: minitorch has no complex dtypes.

    >>> mt.is_complex(mt.ones(1))
    False
    """
    return False


def numel(input):
    """The number of elements of `input`.

    >>> mt.numel(mt.zeros(2, 3))
    6
    """
    return input.numel()


def is_vulkan_available():
    """False: minitorch has no Vulkan back end.

    >>> mt.is_vulkan_available()
    False
    """
    return False


def get_device_module(device=None):
    """The module answering questions about `device`'s kind: `mt.cpu` for the CPU (and None), `mt.cuda` for CUDA.

    >>> mt.get_device_module("cpu") is mt.cpu, mt.get_device_module("cuda") is mt.cuda
    (True, True)
    """
    kind = "cpu" if device is None else devices.device(device).type
    modules = {"cpu": cpu, "cuda": cuda}
    if kind not in modules:
        raise devices.DeviceError(f"get_device_module: minitorch has no {kind!r} device module")
    return modules[kind]
