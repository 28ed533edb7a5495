"""Fold and Unfold, as torch.nn: sliding blocks out of an image (im2col) and summed back into one (col2im)."""
from . import functional as F
from .module import Module


class Fold(Module):
    """Sums columns (N, C kH kW, L) back into an (N, C, H, W) image, as torch.nn.Fold.

    >>> mt.nn.Fold(output_size=(3, 3), kernel_size=2)(mt.ones(1, 4, 4))[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Every sliding block of (N, C, H, W) as a column of (N, C kH kW, L), as torch.nn.Unfold.

    >>> mt.nn.Unfold(kernel_size=2)(mt.ones(1, 3, 4, 4)).shape
    minitorch.Size([1, 12, 9])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
