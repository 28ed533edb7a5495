"""Image transforms in torchvision's shape: `Compose([ToTensor(), Normalize((0.1307,), (0.3081,))])`.

An "image" is what a dataset item holds before any transform: a uint8 numpy
array H x W (grey) or H x W x C, where torchvision hands a PIL image (minitorch
needs no PIL). `ToTensor` turns it into a float32 C x H x W tensor in [0, 1],
exactly as torchvision's ToTensor does for a uint8 array (other arrays keep
their dtype and values). The geometric transforms take either an image array
or a tensor (..., H, W), and draw their randomness from minitorch's default
generator, so `mt.manual_seed` makes augmentation repeat.

>>> image = np.full((28, 28), 255, np.uint8)
>>> transform = mt.datasets.transforms.Compose([mt.datasets.transforms.ToTensor(),
...                                            mt.datasets.transforms.Normalize((0.5,), (0.5,))])
>>> transform(image).shape, transform(image).max()
(minitorch.Size([1, 28, 28]), tensor(1.))
"""
import numbers

import numpy as np
import scipy.ndimage

from .. import random
from ..creation import from_numpy, tensor
from ..ops.dims import int_tuple
from ..tensor import Tensor

__all__ = ["Compose", "ToTensor", "Normalize", "Lambda", "RandomCrop", "CenterCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "RandomRotation"]


def _planes(image):
    """(numpy array, height axis, width axis): H x W [x C] for image arrays, (..., H, W) for tensors."""
    if isinstance(image, Tensor):
        array = np.asarray(image)
        if array.ndim < 2:
            raise ValueError(f"expected a tensor image of shape (..., H, W), got shape {tuple(array.shape)}")
        return array, array.ndim - 2, array.ndim - 1
    if isinstance(image, np.ndarray):
        if image.ndim not in (2, 3):
            raise ValueError(f"expected an image array H x W or H x W x C, got shape {image.shape}")
        return image, 0, 1
    raise TypeError(f"expected an image array (H x W [x C]) or a tensor (..., H, W), got {type(image).__name__}")


def _like(image, array):
    """`array` in the input's kind: a new tensor for a tensor input, an array for an array."""
    return from_numpy(np.ascontiguousarray(array)) if isinstance(image, Tensor) else np.ascontiguousarray(array)


class Compose:
    """Applies the transforms one after another.

    >>> t = mt.datasets.transforms.Compose([mt.datasets.transforms.Lambda(lambda x: x + 1),
    ...                                     mt.datasets.transforms.Lambda(lambda x: x * 10)])
    >>> t(1)
    20
    """

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image

    def __repr__(self):
        return f"{type(self).__name__}(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class ToTensor:
    """An image array H x W [x C] as a C x H x W tensor: uint8 scaled to float32 in [0, 1], other dtypes unscaled.

    >>> mt.datasets.transforms.ToTensor()(np.array([[0, 255]], np.uint8))
    tensor([[[0., 1.]]])
    """

    def __call__(self, pic):
        if not isinstance(pic, np.ndarray):
            raise TypeError(f"pic should be an image array (numpy.ndarray). Got {type(pic)}")
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = np.ascontiguousarray((pic[:, :, None] if pic.ndim == 2 else pic).transpose(2, 0, 1))
        if array.dtype == np.uint8:
            array = array.astype(np.float32) / np.float32(255)
        return from_numpy(array)

    def __repr__(self):
        return "ToTensor()"


class Normalize:
    """(tensor - mean) / std per channel of a float C x H x W (or batched) tensor; recorded, so differentiable.

    >>> mt.datasets.transforms.Normalize((0.5,), (0.25,))(mt.ones(1, 1, 2))
    tensor([[[2., 2.]]])
    """

    def __init__(self, mean, std, inplace=False):
        self.mean, self.std, self.inplace = mean, std, inplace

    def __call__(self, image):
        if not isinstance(image, Tensor):
            raise TypeError(f"Input tensor should be a minitorch tensor. Got {type(image)}.")
        if not image.is_floating_point():
            raise TypeError(f"Input tensor should be a float tensor. Got {image.dtype}.")
        if image.ndim < 3:
            raise ValueError(f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = "
                             f"{image.size()}")
        mean = tensor(self.mean, dtype=image.dtype).reshape(-1, 1, 1)
        std = tensor(self.std, dtype=image.dtype).reshape(-1, 1, 1)
        if (np.asarray(std) == 0).any():
            raise ValueError(f"std evaluated to zero after conversion to {image.dtype}, leading to division by zero.")
        if self.inplace:
            return image.sub_(mean).div_(std)
        return (image - mean) / std

    def __repr__(self):
        return f"{type(self).__name__}(mean={self.mean}, std={self.std})"


class Lambda:
    """A user function as a transform.

    >>> mt.datasets.transforms.Lambda(lambda x: x * 2)(3)
    6
    """

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, image):
        return self.lambd(image)

    def __repr__(self):
        return f"{type(self).__name__}()"


_PADDING_MODES = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}


def _pad(image, left, top, right, bottom, fill=0, padding_mode="constant"):
    array, h_axis, w_axis = _planes(image)
    widths = [(0, 0)] * array.ndim
    widths[h_axis], widths[w_axis] = (top, bottom), (left, right)
    extra = {"constant_values": fill} if padding_mode == "constant" else {}
    return _like(image, np.pad(array, widths, mode=_PADDING_MODES[padding_mode], **extra))


def _crop(image, top, left, height, width):
    array, h_axis, w_axis = _planes(image)
    index = [slice(None)] * array.ndim
    index[h_axis], index[w_axis] = slice(top, top + height), slice(left, left + width)
    return _like(image, array[tuple(index)])


class RandomCrop:
    """A crop of `size` at a random place, after optional padding (torchvision.transforms.RandomCrop).

    `padding` is an int (all sides), (left/right, top/bottom) or (left, top, right, bottom).

    >>> _ = mt.manual_seed(0)
    >>> mt.datasets.transforms.RandomCrop(28, padding=4)(np.zeros((28, 28), np.uint8)).shape
    (28, 28)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size = int_tuple(size, 2, "size", "RandomCrop")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode should be one of {sorted(_PADDING_MODES)}, got {padding_mode!r}")
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def __call__(self, image):
        if self.padding is not None:
            p = (self.padding,) * 4 if isinstance(self.padding, numbers.Integral) else tuple(self.padding)
            left, top, right, bottom = p * 2 if len(p) == 2 else p
            image = _pad(image, left, top, right, bottom, self.fill, self.padding_mode)
        array, h_axis, w_axis = _planes(image)
        height, width = array.shape[h_axis], array.shape[w_axis]
        th, tw = self.size
        if self.pad_if_needed and (width < tw or height < th):
            dw, dh = max(tw - width, 0), max(th - height, 0)
            image = _pad(image, dw, dh, dw, dh, self.fill, self.padding_mode)
            array, h_axis, w_axis = _planes(image)
            height, width = array.shape[h_axis], array.shape[w_axis]
        if height < th or width < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size {(height, width)}")
        rng = random.generator()
        top, left = int(rng.integers(0, height - th + 1)), int(rng.integers(0, width - tw + 1))
        return _crop(image, top, left, th, tw)

    def __repr__(self):
        return f"{type(self).__name__}(size={self.size}, padding={self.padding})"


class CenterCrop:
    """The central crop of `size` (torchvision's rounding of the offsets).

    >>> mt.datasets.transforms.CenterCrop(2)(np.arange(16, dtype=np.uint8).reshape(4, 4))
    array([[ 5,  6],
           [ 9, 10]], dtype=uint8)
    """

    def __init__(self, size):
        self.size = int_tuple(size, 2, "size", "CenterCrop")

    def __call__(self, image):
        array, h_axis, w_axis = _planes(image)
        height, width = array.shape[h_axis], array.shape[w_axis]
        th, tw = self.size
        if th > height or tw > width:
            raise ValueError(f"CenterCrop: crop size {(th, tw)} is larger than the image {(height, width)}")
        return _crop(image, int(round((height - th) / 2.0)), int(round((width - tw) / 2.0)), th, tw)

    def __repr__(self):
        return f"{type(self).__name__}(size={self.size})"


class _RandomFlip:
    axis_name = ""

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, image):
        if random.generator().random() >= self.p:
            return image
        array, h_axis, w_axis = _planes(image)
        return _like(image, np.flip(array, axis=w_axis if self.axis_name == "width" else h_axis))

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p})"


class RandomHorizontalFlip(_RandomFlip):
    """Mirrors the image left-right with probability p.

    >>> mt.datasets.transforms.RandomHorizontalFlip(p=1.0)(np.array([[1, 2, 3]], np.uint8))
    array([[3, 2, 1]], dtype=uint8)
    """
    axis_name = "width"


class RandomVerticalFlip(_RandomFlip):
    """Mirrors the image top-bottom with probability p.

    >>> mt.datasets.transforms.RandomVerticalFlip(p=1.0)(np.array([[1], [2]], np.uint8))
    array([[2],
           [1]], dtype=uint8)
    """
    axis_name = "height"


class RandomRotation:
    """Rotates by an angle drawn uniformly from `degrees` ((-d, d) for a number), counter-clockwise.

    Rotation is about the image centre (or `center`, (x, y) in pixels from the
    top-left corner), with nearest-neighbour ("nearest", the default) or
    "bilinear" interpolation, by scipy.ndimage.affine_transform; pixels from
    outside the image are `fill`. `expand=True` (grow the canvas) is not supported.

    >>> image = np.zeros((3, 3), np.uint8); image[1, 2] = 9
    >>> mt.datasets.transforms.RandomRotation((90, 90))(image)  # the right-hand dot goes to the top
    array([[0, 9, 0],
           [0, 0, 0],
           [0, 0, 0]], dtype=uint8)
    """

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            degrees = (-degrees, degrees)
        if len(degrees) != 2:
            raise ValueError("If degrees is a sequence, it must be of len 2.")
        if expand:
            raise ValueError("RandomRotation: expand=True is not supported (the image keeps its size)")
        orders = {"nearest": 0, "bilinear": 1}
        name = getattr(interpolation, "value", interpolation)
        if name not in orders:
            raise ValueError(f"RandomRotation: interpolation must be 'nearest' or 'bilinear', got {interpolation!r}")
        self.degrees, self.order, self.center, self.fill = (float(degrees[0]), float(degrees[1])), orders[name], \
            center, fill

    def __call__(self, image):
        angle = float(random.generator().uniform(*self.degrees))
        array, h_axis, w_axis = _planes(image)
        height, width = array.shape[h_axis], array.shape[w_axis]
        cy, cx = ((height - 1) / 2, (width - 1) / 2) if self.center is None else \
            (self.center[1] - 0.5, self.center[0] - 0.5)
        theta = np.deg2rad(angle)
        cos, sin = np.cos(theta), np.sin(theta)
        # output (y, x) -> input: the inverse of a counter-clockwise turn on a y-down grid
        matrix = np.array([[cos, sin], [-sin, cos]])
        offset = np.array([cy, cx]) - matrix @ np.array([cy, cx])
        planes = np.moveaxis(array, (h_axis, w_axis), (-2, -1))
        flat = planes.reshape(-1, height, width)
        turned = np.stack([scipy.ndimage.affine_transform(plane, matrix, offset, order=self.order, mode="constant",
                                                          cval=self.fill) for plane in flat])
        result = np.moveaxis(turned.reshape(planes.shape), (-2, -1), (h_axis, w_axis))
        return _like(image, result)

    def __repr__(self):
        return f"{type(self).__name__}(degrees={list(self.degrees)})"
