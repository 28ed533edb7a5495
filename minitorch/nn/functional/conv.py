"""Convolution functions, as torch.nn.functional: conv1d, conv2d, conv_transpose1d, conv_transpose2d,
and unfold and fold (im2col and col2im, ops/fold_ops.py).

F.conv2d is the "Conv2D" op's function (ops/conv_ops.py), as torch.conv2d is. The others add no kernel. A 1-D convolution is a 2-D one over a height of 1 (Conv2D).
A transposed convolution is the adjoint of a convolution in its input, which
is the op Conv2DBackpropInput: the ConvTranspose weight (C_in, C_out / groups,
kH, kW) is the weight of the convolution that maps the output back to the
input, so its gradients are the ones Conv2D's backward already has
(Conv2DBackpropFilter for the weight, Conv2D for the input).
"""
import numpy as np

from ...engine.execute import execute
from ...errors import ShapeError
from ...ops import conv_ops
from ...ops.conv_ops import conv2d  # noqa: F401  (F.conv2d is mt.conv2d, as in PyTorch)
from ...ops.dims import int_tuple
from ...ops.fold_ops import fold, unfold  # noqa: F401
from ...ops.pad_ops import zero_pad


def _check_ranks(op_name, input, weight, spatial):
    if input.ndim not in (spatial + 1, spatial + 2):
        raise ShapeError(
            f"{op_name}: expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input, "
            f"but got input of size {list(input.shape)}"
        )
    if weight.ndim != spatial + 2:
        raise ShapeError(f"{op_name}: expected a {spatial + 2}-D weight, got weight of size {list(weight.shape)}")
    if 0 in weight.shape:
        raise ShapeError(f"{op_name}: weight of size {list(weight.shape)} has an empty dimension")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) of (N, C_in, L) with (C_out, C_in / groups, k), as torch's.

    padding: an int, 'valid' or 'same'. Runs "Conv2D" over a height of 1.

    >>> F.conv1d(mt.tensor([[[1.0, 2.0, 3.0, 4.0]]]), mt.tensor([[[1.0, 1.0]]]))
    tensor([[[3., 5., 7.]]])
    """
    _check_ranks("conv1d", input, weight, 1)
    unbatched = input.ndim == 2
    batched = input.unsqueeze(0) if unbatched else input
    if isinstance(padding, str):
        pads = padding
    else:
        pads = (0, int_tuple(padding, 1, "padding", "conv1d")[0])
    stride, dilation = int_tuple(stride, 1, "stride", "conv1d"), int_tuple(dilation, 1, "dilation", "conv1d")
    out = conv_ops.conv2d(batched.unsqueeze(2), weight.unsqueeze(2), bias, stride=(1, stride[0]), padding=pads,
                          dilation=(1, dilation[0]), groups=groups).squeeze(2)
    return out.squeeze(0) if unbatched else out


def transposed_output_size(in_size, kernel_size, stride, padding, output_padding, dilation):
    """(H_out, ...) of a transposed convolution: (H - 1) s - 2 p + d (k - 1) + output_padding + 1.

    >>> transposed_output_size((5, 5), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    (10, 10)
    """
    return tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for n, k, s, p, op, d in zip(in_size, kernel_size, stride, padding, output_padding, dilation))


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2-D transposed convolution of (N, C_in, H, W) with weight (C_in, C_out / groups, kH, kW), as torch's.

    The gradient of conv2d with respect to its input: each input pixel spreads
    its weighted kernel over the output. Runs "Conv2DBackpropInput".

    >>> F.conv_transpose2d(mt.ones(1, 1, 2, 2), mt.ones(1, 1, 2, 2), stride=2).shape
    minitorch.Size([1, 1, 4, 4])
    >>> F.conv_transpose2d(mt.ones(1, 1, 2, 2), mt.ones(1, 1, 2, 2))
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    _check_ranks("conv_transpose2d", input, weight, 2)
    unbatched = input.ndim == 3
    batched = input.unsqueeze(0) if unbatched else input
    op_name = "conv_transpose2d"
    stride, dilation = int_tuple(stride, 2, "stride", op_name), int_tuple(dilation, 2, "dilation", op_name)
    padding, output_padding = int_tuple(padding, 2, "padding", op_name), int_tuple(output_padding, 2, "output_padding", op_name)
    if min(stride) < 1 or min(dilation) < 1 or min(padding) < 0 or min(output_padding) < 0:
        raise ValueError(f"{op_name}: stride {stride} and dilation {dilation} must be positive, padding {padding} "
                         f"and output_padding {output_padding} non-negative")
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"{op_name}: output padding must be smaller than either stride or dilation, but got "
                         f"output_padding={output_padding}, stride={stride}, dilation={dilation}")
    if not isinstance(groups, (int, np.integer)) or groups < 1 or weight.shape[0] % groups:
        raise ValueError(f"{op_name}: groups={groups} must be a positive integer dividing weight.size(0)={weight.shape[0]}")
    if batched.shape[1] != weight.shape[0]:
        raise ShapeError(f"{op_name}: given weight of size {list(weight.shape)}, expected input {list(input.shape)} "
                         f"to have {weight.shape[0]} channels, but got {batched.shape[1]} channels instead")
    if input.dtype != weight.dtype or not input.is_floating_point():
        raise TypeError(f"{op_name}: input ({input.dtype}) and weight ({weight.dtype}) must have the same floating-point dtype")
    n, out_channels = batched.shape[0], weight.shape[1] * groups
    out_size = transposed_output_size(batched.shape[2:], weight.shape[2:], stride, padding, output_padding, dilation)
    if min(out_size) < 1:
        raise ShapeError(f"{op_name}: given input size per channel {tuple(batched.shape[2:])}, the calculated output "
                         f"size per channel {out_size} is too small")
    # output_padding extends the bottom/right: pad less there, and add zero rows where even no padding is left
    extra = tuple(max(op - p, 0) for p, op in zip(padding, output_padding))
    pads = tuple((p, max(p - op, 0)) for p, op in zip(padding, output_padding))
    attrs = {"stride": stride, "padding": pads, "dilation": dilation, "groups": int(groups),
             "input_shape": (n, out_channels, *(o - e for o, e in zip(out_size, extra)))}
    out = execute("Conv2DBackpropInput", (weight, batched), attrs)
    out = zero_pad(out, [(0, 0), (0, 0), (0, extra[0]), (0, extra[1])])
    if bias is not None:
        if tuple(bias.shape) != (out_channels,):
            raise ShapeError(f"{op_name}: bias of shape {tuple(bias.shape)} does not match out_channels={out_channels}")
        out = out + bias.reshape(1, out_channels, 1, 1)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """1-D transposed convolution of (N, C_in, L) with weight (C_in, C_out / groups, k), as torch's.

    >>> F.conv_transpose1d(mt.tensor([[[1.0, 2.0]]]), mt.tensor([[[1.0, 10.0]]]))
    tensor([[[ 1., 12., 20.]]])
    """
    _check_ranks("conv_transpose1d", input, weight, 1)
    unbatched = input.ndim == 2
    batched = input.unsqueeze(0) if unbatched else input
    one = {name: (1, int_tuple(value, 1, name, "conv_transpose1d")[0]) for name, value in
           (("stride", stride), ("dilation", dilation))}
    zero = {name: (0, int_tuple(value, 1, name, "conv_transpose1d")[0]) for name, value in
            (("padding", padding), ("output_padding", output_padding))}
    out = conv_transpose2d(batched.unsqueeze(2), weight.unsqueeze(2), bias, groups=groups, **one, **zero).squeeze(2)
    return out.squeeze(0) if unbatched else out
