"""PixelShuffle, PixelUnshuffle and ChannelShuffle, as torch.nn: rearrangements of channels and positions."""
from . import functional as F
from .module import Module


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r) (sub-pixel convolution's upsampling), as torch.nn.PixelShuffle.

    >>> mt.nn.PixelShuffle(3)(mt.ones(1, 9, 4, 4)).shape
    minitorch.Size([1, 1, 12, 12])
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of PixelShuffle, as torch.nn.PixelUnshuffle.

    >>> mt.nn.PixelUnshuffle(3)(mt.ones(1, 1, 12, 12)).shape
    minitorch.Size([1, 9, 4, 4])
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleaves the channels of `groups` groups (ShuffleNet), as torch.nn.ChannelShuffle.

    >>> mt.nn.ChannelShuffle(2)(mt.arange(4.0).reshape(1, 4, 1, 1)).flatten()
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
