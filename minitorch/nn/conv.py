"""Convolution layers, as torch.nn: Conv1d, Conv2d (alias Conv2D), ConvTranspose1d, ConvTranspose2d.

One base class keeps PyTorch's constructor checks, parameter layout
(weight (out, in / groups, *k), or (in, out / groups, *k) when transposed),
default initialisation and repr, so state_dicts map one to one onto
PyTorch twins. padding_mode 'reflect', 'replicate' or 'circular' pads the
input with F.pad first and convolves without padding, as PyTorch does.
"""

from ..ops.dims import int_tuple
from . import functional as F, init
from .module import Module, options_repr
from .parameter import register_weight_and_bias

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What every convolution layer shares: the checks, the parameters, their initialisation and the repr."""

    spatial_dims = 0  # set by the subclasses
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                 output_padding=0, dtype=None):
        super().__init__()
        n = self.spatial_dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        name = type(self).__name__
        self.kernel_size, self.stride = int_tuple(kernel_size, n, "kernel_size", name), int_tuple(stride, n, "stride", name)
        self.dilation = int_tuple(dilation, n, "dilation", name)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if any(k < 0 for k in self.kernel_size):
            raise RuntimeError(f"{type(self).__name__}: trying to create tensor with negative dimension: kernel_size={kernel_size}")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.padding = padding if isinstance(padding, str) else int_tuple(padding, n, "padding", name)
        self.output_padding = int_tuple(output_padding, n, "output_padding", name)
        self.groups, self.padding_mode = groups, padding_mode
        self._reversed_padding_repeated_twice = self._reversed_padding()
        shape = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        register_weight_and_bias(self, (*shape, *self.kernel_size), (out_channels,), bias=bias, dtype=dtype)
        self.reset_parameters()

    def _reversed_padding(self):
        """F.pad's (last dim first) padding for the non-zero padding modes; 'same' splits as PyTorch."""
        if self.padding == "valid":
            return [0, 0] * self.spatial_dims
        if self.padding == "same":
            pads = []
            for d, k in reversed(list(zip(self.dilation, self.kernel_size))):
                total = d * (k - 1)
                pads += [total // 2, total - total // 2]
            return pads
        return [p for p in reversed(self.padding) for _ in range(2)]

    def reset_parameters(self):
        """PyTorch's default: W ~ kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), 1/sqrt(fan_in)), b likewise."""
        init.default_weight_and_bias_(self.weight, self.bias)

    def _padded(self, input):
        """The input padded by padding_mode (not zeros), or the input itself with the padding for the convolution."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0

    def extra_repr(self):
        zeros, ones = (0,) * self.spatial_dims, (1,) * self.spatial_dims
        return options_repr(f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}",
                            padding=(self.padding, zeros), dilation=(self.dilation, ones),
                            output_padding=(self.output_padding, zeros), groups=(self.groups, 1),
                            bias=(self.bias is not None, True), padding_mode=(self.padding_mode, "zeros"))


class _Conv(_ConvNd):
    """A convolution layer: PyTorch's Conv1d/Conv2d constructor; forward pads by padding_mode and convolves."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         dtype=dtype)

    def forward(self, input):
        input, padding = self._padded(input)
        return self._convolve(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv1d(_Conv):
    """1-D convolution over (N, C_in, L) or (C_in, L), as torch.nn.Conv1d.

    >>> conv = mt.nn.Conv1d(2, 4, 3, padding=1, padding_mode="circular")
    >>> conv
    Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,), padding_mode=circular)
    >>> conv(mt.ones(5, 2, 10)).shape
    minitorch.Size([5, 4, 10])
    """

    spatial_dims = 1
    _convolve = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution over (N, C_in, H, W) or (C_in, H, W), as torch.nn.Conv2d.

    >>> mt.nn.Conv2d(1, 32, 3, padding=1)
    Conv2d(1, 32, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    """

    spatial_dims = 2
    _convolve = staticmethod(F.conv2d)


Conv2D = Conv2d


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution layer: PyTorch's ConvTranspose1d/2d constructor and forward(input, output_size)."""

    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise TypeError(f"{type(self).__name__}: padding must be an int or a tuple of ints, not {padding!r}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         output_padding, dtype)

    def _output_padding(self, input, output_size):
        """output_padding, or the one that makes the output `output_size` (PyTorch's _output_padding)."""
        n = self.spatial_dims
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.ndim == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or "
                             f"{non_spatial + n} elements (got {len(output_size)})")
        smallest = [(input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [s + stride - 1 for s, stride in zip(smallest, self.stride)]
        if any(not lo <= size <= hi for size, lo, hi in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to {largest} "
                             f"(for an input of {tuple(input.shape[non_spatial:])})")
        return tuple(size - lo for size, lo in zip(output_size, smallest))

    def forward(self, input, output_size=None):
        return self._convolve(input, self.weight, self.bias, self.stride, self.padding,
                              self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over (N, C_in, L), as torch.nn.ConvTranspose1d (weight (C_in, C_out / groups, k)).

    >>> up = mt.nn.ConvTranspose1d(4, 2, 3, stride=2)
    >>> up(mt.ones(1, 4, 5)).shape, up(mt.ones(1, 4, 5), output_size=[12]).shape
    (minitorch.Size([1, 2, 11]), minitorch.Size([1, 2, 12]))
    """

    spatial_dims = 1
    _convolve = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over (N, C_in, H, W), as torch.nn.ConvTranspose2d (weight (C_in, C_out / groups, kH, kW)).

    >>> up = mt.nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)
    >>> up
    ConvTranspose2d(8, 4, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))
    >>> up(mt.ones(2, 8, 7, 7)).shape
    minitorch.Size([2, 4, 14, 14])
    """

    spatial_dims = 2
    _convolve = staticmethod(F.conv_transpose2d)
