"""Pooling layers, as in torch.nn: max, average, adaptive, LP and fractional pooling in 1-D and 2-D, and max unpooling."""
from ..ops.dims import pair, single
from . import functional as F
from .module import Module


class _WindowPool(Module):
    """What a sliding-window pooling layer keeps: its window (kernel_size, and stride: by default the kernel's),
    padding and ceil_mode, each size as given or, for the 1-D average pool, as a 1-tuple (PyTorch's)."""

    def _window(self, kernel_size, stride, padding, ceil_mode, sizes=lambda value: value):
        self.kernel_size = sizes(kernel_size)
        self.stride = sizes(stride if stride is not None else kernel_size)
        self.padding = sizes(padding)
        self.ceil_mode = ceil_mode


class _MaxPoolNd(_WindowPool):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self._window(kernel_size, stride, padding, ceil_mode)
        self.dilation = dilation
        self.return_indices = return_indices

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """Max pooling over (N, C, H, W) inputs (see functional.max_pool2d).

    >>> mt.nn.MaxPool2d(2)(mt.arange(16.0).reshape(1, 1, 4, 4)).shape
    minitorch.Size([1, 1, 2, 2])
    """
    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool2d(_WindowPool):
    """The mean over each kernel_size window of (N, C, H, W) inputs, as a module.

    >>> mt.nn.AvgPool2d(2)(mt.arange(16.0).reshape(1, 1, 4, 4)).tolist()
    [[[[2.5, 4.5], [10.5, 12.5]]]]
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
        super().__init__()
        self._window(kernel_size, stride, padding, ceil_mode)
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size, whatever the input size, as a module.

    >>> mt.nn.AdaptiveAvgPool2d((1, 1))(mt.ones(2, 3, 5, 7)).shape
    minitorch.Size([2, 3, 1, 1])
    """
    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class MaxPool1d(_MaxPoolNd):
    """Max pooling over (N, C, L) inputs, as torch.nn.MaxPool1d (see F.max_pool1d).

    >>> mt.nn.MaxPool1d(2)
    MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> mt.nn.MaxPool1d(2)(mt.tensor([[[1.0, 3.0, 2.0, 5.0]]]))
    tensor([[[3., 5.]]])
    """
    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool1d(_WindowPool):
    """The mean of each window of (N, C, L) inputs, as torch.nn.AvgPool1d.

    >>> mt.nn.AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    >>> mt.nn.AvgPool1d(2)(mt.tensor([[[1.0, 3.0, 2.0, 6.0]]]))
    tensor([[[2., 4.]]])
    """
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self._window(kernel_size, stride, padding, ceil_mode, single)
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, L) to a fixed length, as torch.nn.AdaptiveAvgPool1d.

    >>> mt.nn.AdaptiveAvgPool1d(1)(mt.tensor([[[1.0, 2.0, 6.0]]]))
    tensor([[[3.]]])
    """
    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) to a fixed length, as torch.nn.AdaptiveMaxPool1d.

    >>> mt.nn.AdaptiveMaxPool1d(2)(mt.tensor([[[1.0, 5.0, 2.0, 4.0, 3.0]]]))
    tensor([[[5., 4.]]])
    """
    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) to a fixed (H_out, W_out) (None keeps a size), as torch.nn.AdaptiveMaxPool2d.

    >>> mt.nn.AdaptiveMaxPool2d((1, None))(mt.tensor([[[[1.0, 5.0], [4.0, 3.0]]]]))
    tensor([[[[4., 5.]]]])
    """
    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, ceil_mode={self.ceil_mode}"


class LPPool1d(_LPPoolNd):
    """Power-average pooling (sum of x^p over each window)^(1/p) of (N, C, L), as torch.nn.LPPool1d.

    >>> mt.nn.LPPool1d(2, 2)(mt.tensor([[[3.0, 4.0, 0.0, 1.0]]]))
    tensor([[[5., 1.]]])
    """
    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """Power-average pooling of (N, C, H, W), as torch.nn.LPPool2d.

    >>> mt.nn.LPPool2d(2, (1, 2))(mt.tensor([[[[3.0, 4.0]]]]))
    tensor([[[[5.]]]])
    """
    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = self._sizes(kernel_size)
        self.stride = self._sizes(stride if stride is not None else kernel_size)
        self.padding = self._sizes(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d: values back at their indices, zeros elsewhere, as torch.nn.MaxUnpool1d.

    >>> pool, unpool = mt.nn.MaxPool1d(2, return_indices=True), mt.nn.MaxUnpool1d(2)
    >>> unpool(*pool(mt.tensor([[[1.0, 3.0, 4.0, 2.0]]])))
    tensor([[[0., 3., 4., 0.]]])
    """
    _sizes = staticmethod(single)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d, as torch.nn.MaxUnpool2d.

    >>> pool, unpool = mt.nn.MaxPool2d(2, return_indices=True), mt.nn.MaxUnpool2d(2)
    >>> unpool(*pool(mt.tensor([[[[1.0, 2.0], [4.0, 3.0]]]])))
    tensor([[[[0., 0.],
              [4., 0.]]]])
    """
    _sizes = staticmethod(pair)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class FractionalMaxPool2d(Module):
    """Max pooling over pseudo-randomly placed windows (Graham, 2014), as torch.nn.FractionalMaxPool2d.

    >>> pool = mt.nn.FractionalMaxPool2d(2, output_ratio=0.5)
    >>> pool(mt.randn(1, 3, 8, 8)).shape
    minitorch.Size([1, 3, 4, 4])
    """
    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size = pair(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = pair(output_size) if output_size is not None else None
        self.output_ratio = pair(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError("FractionalMaxPool2d requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not (0 < self.output_ratio[0] < 1 and 0 < self.output_ratio[1] < 1):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)
