"""Devices: minitorch computes on the CPU only, and says so.

`mt.device` names a device as PyTorch does (`"cpu"`, `"cuda:0"`, `"mps"`), so
code that builds `torch.device("cuda" if torch.cuda.is_available() else "cpu")`
runs unchanged. Asking to *put* a tensor anywhere but the CPU raises
`DeviceError`: a tensor never silently stays on the CPU when it was sent elsewhere.
"""
import re

# PyTorch's device types, in the order its error message lists them (c10/core/DeviceType.cpp).
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"([a-z]+)(?::(\d+))?")


class DeviceError(RuntimeError):
    """A tensor, module or generator was asked to live on a device minitorch does not have.

    >>> mt.zeros(2).to("cuda")
    Traceback (most recent call last):
        ...
    minitorch.devices.DeviceError: device 'cuda' is not available: minitorch computes on the CPU only (mt.cuda.is_available() is False); use 'cpu'
    """


class device:
    """A device name, as `torch.device`: `mt.device("cpu")`, `mt.device("cuda:1")`, `mt.device("cpu", 0)`.

    Any of PyTorch's device types can be named (so that device-choosing code
    runs); only the CPU can hold tensors. A device compares equal to another
    device of the same type and index (not to a string, as in PyTorch). Used
    as a context manager it is the default device of the tensors made inside.

    >>> mt.device("cpu"), mt.device("cuda:1").index, mt.zeros(2).device
    (device(type='cpu'), 1, device(type='cpu'))
    >>> mt.device("cpu") == mt.device("cpu:0"), str(mt.device("cpu", 0))
    (False, 'cpu:0')
    """
    __slots__ = ("type", "index", "_previous")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise DeviceError("device index given without a type: an index means an accelerator, and minitorch "
                              "has none (use 'cpu')")
        elif not isinstance(type, str):
            raise TypeError(f"device() expected a string, a device or an int, got {builtin_type(type).__name__}")
        else:
            match = _DEVICE_STRING.fullmatch(type)
            if match is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            if match.group(2) is not None:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was passed "
                                       f"explicitly: {type}")
                index = int(match.group(2))
            type = match.group(1)
            if type not in DEVICE_TYPES:
                raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                                   f"string: {type}")
        if index is not None:
            index = int(index)
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index
        self._previous = None

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return device, (self.type, self.index)

    def __enter__(self):
        self._previous = get_default_device()
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        set_default_device(self._previous)
        return False


builtin_type = type
CPU = device("cpu")
_default = [CPU]


def cpu_device(requested):
    """`requested` (None, a string, an int or a device) checked to be the CPU; DeviceError otherwise.

    None means the default device. The CPU with any index is the CPU (as in PyTorch).

    >>> mt.devices.cpu_device("cpu:0")
    device(type='cpu')
    """
    if requested is None:
        return _default[0]
    if requested is CPU:
        return CPU
    wanted = device(requested)
    if wanted.type != "cpu":
        probe = {"cuda": "mt.cuda.is_available()", "mps": "mt.backends.mps.is_available()"}.get(
            wanted.type, "mt.accelerator.is_available()")
        raise DeviceError(f"device '{wanted}' is not available: minitorch computes on the CPU only "
                          f"({probe} is False); use 'cpu'")
    return CPU


def set_default_device(device):
    """Sets the device new tensors are made on (`None` or "cpu"; any other device raises DeviceError).

    >>> mt.set_default_device("cpu")
    >>> mt.set_default_device("cuda")
    Traceback (most recent call last):
        ...
    minitorch.devices.DeviceError: device 'cuda' is not available: minitorch computes on the CPU only (mt.cuda.is_available() is False); use 'cpu'
    """
    _default[0] = CPU if device is None else cpu_device(device)


def get_default_device():
    """The device new tensors are made on: always `device(type='cpu')`.

    >>> mt.get_default_device()
    device(type='cpu')
    """
    return _default[0]
