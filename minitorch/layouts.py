"""Layouts and memory formats, as PyTorch names them: `mt.strided`, `mt.contiguous_format`, `mt.channels_last`.

Every minitorch tensor is a strided (dense numpy) array. The memory formats
say how a 4-d image batch is laid out in memory: `.to(memory_format=mt.channels_last)`
really stores it channels-last (N, H, W, C in memory; the shape stays N, C, H, W).

>>> mt.zeros(2).layout, mt.channels_last
(minitorch.strided, minitorch.channels_last)
"""


class _Named:
    """A PyTorch constant that prints as minitorch.<name>."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"minitorch.{self.name}"

    def __reduce__(self):
        return self.name


class layout(_Named):
    """How a tensor's elements are stored (torch.layout); minitorch has one, `mt.strided`.

    >>> mt.strided
    minitorch.strided
    """
    __slots__ = ()


class memory_format(_Named):
    """The order of a tensor's dimensions in memory (torch.memory_format).

    >>> mt.contiguous_format, mt.preserve_format
    (minitorch.contiguous_format, minitorch.preserve_format)
    """
    __slots__ = ()


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")


def check_layout(value, name="layout"):
    """Refuses any layout but `mt.strided` (None means strided): sparse layouts are not supported.

    >>> mt.layouts.check_layout(mt.strided)
    >>> mt.layouts.check_layout("sparse_coo")
    Traceback (most recent call last):
        ...
    RuntimeError: layout='sparse_coo': minitorch tensors are dense (only mt.strided is supported)
    """
    if value is not None and value is not strided:
        raise RuntimeError(f"{name}={value!r}: minitorch tensors are dense (only mt.strided is supported)")
