"""Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, as torch.nn: F.interpolate as a layer."""
from . import functional as F
from .module import Module


class Upsample(Module):
    """Resizes (N, C, *spatial) to `size` or by `scale_factor` in `mode` (see F.interpolate), as torch.nn.Upsample.

    >>> up = mt.nn.Upsample(scale_factor=2, mode="bilinear")
    >>> up
    Upsample(scale_factor=2.0, mode='bilinear')
    >>> up(mt.ones(1, 1, 2, 3)).shape
    minitorch.Size([1, 1, 4, 6])
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W), as torch.nn.UpsamplingNearest2d.

    >>> mt.nn.UpsamplingNearest2d(scale_factor=2)(mt.tensor([[[[1.0, 2.0]]]]))
    tensor([[[[1., 1., 2., 2.],
              [1., 1., 2., 2.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of (N, C, H, W) with align_corners=True, as torch.nn.UpsamplingBilinear2d.

    >>> mt.nn.UpsamplingBilinear2d(size=(1, 4))(mt.tensor([[[[0.0, 3.0]]]]))
    tensor([[[[0., 1., 2., 3.]]]])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
