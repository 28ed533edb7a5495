"""Im2Col and Col2Im: sliding blocks out of an image and back (PyTorch's unfold and fold).

Im2Col copies every kernel-sized block of a zero-padded (N, C, H, W) batch
into a column: (N, C kH kW, L), L blocks, each column ordered (C, kH, kW) as
PyTorch's. Col2Im adds such columns back into an image, summing where
blocks overlap. Each is the other's adjoint, so each is the other's gradient,
and second order needs nothing more. The blocks are a strided view of the
padded input (conv_ops.windows), the sums one strided add per kernel offset.

Attrs: kernel_size, dilation, padding, stride (pairs); Col2Im also output_size (H, W).
"""
import numpy as np

from ..engine.execute import execute
from .conv_ops import conv_output_size, kernel_offsets, windows
from .dims import int_tuple
from .rows import TRANSPOSE, op


def blocks_per_dim(size, kernel_size, dilation, padding, stride):
    """How many blocks fit along each spatial dimension of `size` (H, W)."""
    return conv_output_size(size, kernel_size, stride, tuple((p, p) for p in padding), dilation)


def _im2col(x, kernel_size, dilation, padding, stride):
    n, c = x.shape[:2]
    (p_h, p_w), (k_h, k_w) = padding, kernel_size
    padded = np.pad(x, ((0, 0), (0, 0), (p_h, p_h), (p_w, p_w))) if p_h or p_w else x
    out_size = blocks_per_dim(x.shape[2:], kernel_size, dilation, padding, stride)
    view = windows(padded, kernel_size, stride, dilation, out_size)  # (N, C, Lh, Lw, kH, kW)
    return view.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * k_h * k_w, out_size[0] * out_size[1])


def _im2col_grad(op, grad):
    """Im2Col is linear; its adjoint adds each column back where its block was: dx = Col2Im(dy)."""
    return execute("Col2Im", (grad,), {**op.attrs, "output_size": tuple(op.input_shapes[0][2:])})


op("Im2Col", _im2col, _im2col_grad, needs="nothing", jvp=TRANSPOSE)


def _col2im(columns, output_size, kernel_size, dilation, padding, stride):
    """col2im, channels first: each column (C kH kW, L) added back onto the block it came from."""
    n, depth = columns.shape[:2]
    (k_h, k_w), (p_h, p_w) = kernel_size, padding
    c = depth // (k_h * k_w)
    out_size = blocks_per_dim(output_size, kernel_size, dilation, padding, stride)
    per_offset = columns.reshape(n, c, k_h, k_w, *out_size)
    height, width = output_size
    padded = np.zeros((n, c, height + 2 * p_h, width + 2 * p_w), dtype=columns.dtype)
    for i, j, rows, cols in kernel_offsets(kernel_size, stride, dilation, out_size):
        padded[:, :, rows, cols] += per_offset[:, :, i, j]
    return padded[:, :, p_h:p_h + height, p_w:p_w + width]


def _col2im_grad(op, grad):
    """Col2Im is linear and the adjoint of Im2Col, so its gradient is Im2Col: d columns = Im2Col(dy)."""
    attrs = {key: value for key, value in op.attrs.items() if key != "output_size"}
    return execute("Im2Col", (grad,), attrs)


op("Col2Im", _col2im, _col2im_grad, needs="nothing", jvp=TRANSPOSE)


# ----- the functional API -----


def _window_args(op_name, **values):
    """The sliding window's kernel_size, dilation, padding and stride, each an int or a pair, as PyTorch's
    unfold and fold check them."""
    kernel_size, dilation, padding, stride = (int_tuple(value, 2, name, op_name) for name, value in values.items())
    if min(kernel_size) < 1 or min(dilation) < 1 or min(stride) < 1 or min(padding) < 0:
        raise ValueError(
            f"{op_name}: kernel_size {kernel_size}, dilation {dilation} and stride {stride} must be positive "
            f"and padding {padding} non-negative"
        )
    return {"kernel_size": kernel_size, "dilation": dilation, "padding": padding, "stride": stride}


def _blocks(op_name, size, attrs):
    blocks = blocks_per_dim(size, attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"])
    if min(blocks) < 1:
        raise ValueError(
            f"{op_name}: given spatial size {tuple(size)}, kernel_size={attrs['kernel_size']}, dilation={attrs['dilation']}, "
            f"padding={attrs['padding']}, stride={attrs['stride']}, the array of sliding blocks would be {blocks}: "
            f"each must be at least one"
        )
    return blocks


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every sliding block of (N, C, H, W) as a column: (N, C kH kW, L), as torch.nn.functional.unfold. Runs "Im2Col".

    >>> unfold(mt.arange(9.0).reshape(1, 1, 3, 3), kernel_size=2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    if input.ndim not in (3, 4):
        raise ValueError(f"Im2Col: expected a 3-D (unbatched) or 4-D (batched) input, got shape {tuple(input.shape)}")
    if not input.is_floating_point():
        raise TypeError(f"Im2Col: expected a floating-point input, got {input.dtype}")
    attrs = _window_args("Im2Col", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    batched = input if input.ndim == 4 else input.unsqueeze(0)
    _blocks("Im2Col", batched.shape[2:], attrs)
    out = execute("Im2Col", (batched,), attrs)
    return out if input.ndim == 4 else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns (N, C kH kW, L) back into an (N, C, H, W) image, as torch.nn.functional.fold. Runs "Col2Im".

    Overlapping blocks add up: fold(unfold(x)) counts each pixel once per block it is in.

    >>> fold(mt.ones(1, 4, 4), output_size=(3, 3), kernel_size=2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    if input.ndim not in (2, 3):
        raise ValueError(f"Col2Im: expected a 2-D (unbatched) or 3-D (batched) input, got shape {tuple(input.shape)}")
    if not input.is_floating_point():
        raise TypeError(f"Col2Im: expected a floating-point input, got {input.dtype}")
    attrs = _window_args("Col2Im", kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    output_size = (output_size, output_size) if isinstance(output_size, (int, np.integer)) else tuple(output_size)
    if len(output_size) != 2:
        raise ValueError(f"Col2Im: output_size must be an int or a pair of ints, got {output_size!r}")
    batched = input if input.ndim == 3 else input.unsqueeze(0)
    (k_h, k_w), depth = attrs["kernel_size"], batched.shape[1]
    if depth % (k_h * k_w):
        raise ValueError(
            f"Col2Im: expected size of input's dimension 1 to be divisible by the product of kernel_size, "
            f"but got input.size(1)={depth} and kernel_size={attrs['kernel_size']}"
        )
    blocks = _blocks("Col2Im", output_size, attrs)
    if batched.shape[2] != blocks[0] * blocks[1]:
        raise ValueError(
            f"Col2Im: given output_size={output_size} and the block settings, expected size of input's dimension 2 "
            f"to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
            f"but got input.size(2)={batched.shape[2]}"
        )
    out = execute("Col2Im", (batched,), {**attrs, "output_size": tuple(int(v) for v in output_size)})
    return out if input.ndim == 3 else out.squeeze(0)
