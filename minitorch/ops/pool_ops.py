"""2-D pooling: MaxPool and AvgPool kernels, their gradient ops, and the
functional max_pool2d / avg_pool2d / adaptive_avg_pool2d.

TensorFlow's names and gradient chain (nn_grad.py: MaxPool -> MaxPoolGrad ->
MaxPoolGradGrad -> MaxPoolGrad; AvgPool -> AvgPoolGrad -> AvgPool) on
PyTorch's NCHW layout and output-size rules (ceil_mode, count_include_pad,
divisor_override, -inf padding for max).

"MaxPool" returns two outputs, like TF's MaxPoolWithArgmax: the pooled values
and the argmax as a flat index into each (H, W) input plane (PyTorch's
return_indices convention). Its gradient reads only the argmax (accepts None
for it), so the backward never recomputes the windows:
MaxPoolGrad(argmax, dy) scatters dy there, MaxPoolGradGrad(argmax, g) gathers
g from there; each is the other's gradient.

Windows are a strided view of the padded input (conv_ops.windows): no loop
over batch, channels or pixels; the gradients loop only over kernel offsets.
"""
import numpy as np

from .. import parallel
from ..engine.execute import execute
from ..errors import ShapeError
from ..tensor import Tensor
from .conv_ops import is_channels_last, windows
from .dims import int_tuple
from .product_ops import matmul
from .rows import TRANSPOSE, op


def pool_output_size(size, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch's pooling_output_shape: the last window must start inside the input or left padding."""
    numerator = size + 2 * padding - dilation * (kernel_size - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _pad_for_windows(x, out_size, kernel_size, stride, padding, dilation, value):
    """Pads left/top by `padding` and right/bottom as far as the last window reaches."""
    pads = []
    for n, o, k, s, p, d in zip(x.shape[2:], out_size, kernel_size, stride, padding, dilation):
        reach = (o - 1) * s + d * (k - 1) + 1
        pads.append((p, max(reach - n - p, 0)))
    if not any(lo or hi for lo, hi in pads):
        return x, pads
    return np.pad(x, ((0, 0), (0, 0), *pads), constant_values=value), pads


def _out_size(shape, kernel_size, stride, padding, dilation, ceil_mode):
    return tuple(
        pool_output_size(n, k, s, p, d, ceil_mode)
        for n, k, s, p, d in zip(shape[2:], kernel_size, stride, padding, dilation)
    )


# ----- MaxPool -----


def _tiles_input(shape, out_size, kernel_size, stride, padding, dilation):
    """True when the windows tile the input without overlap or padding (kernel == stride, the usual 2x2 pool)."""
    return (
        tuple(kernel_size) == tuple(stride) and not any(padding) and tuple(dilation) == (1, 1)
        and all(o * k <= n for n, o, k in zip(shape[2:], out_size, kernel_size))
    )


def _windows_are_disjoint(kernel_size, stride, dilation):
    """No input element lies in two windows, so the gradient scatter may assign instead of add."""
    return all(s >= d * (k - 1) + 1 for k, s, d in zip(kernel_size, stride, dilation))


def _first_maximum(views):
    """Elementwise maximum of same-shaped views and the position of the first view holding it.

    A running maximum over a few strided views, in plain ufunc passes: an
    argmax over a short trailing window axis would need a copy and a slow
    reduction, and numpy's masked writes (where=, boolean indexing) are
    slower still. Positions are bytes (a bool array viewed as uint8 for two
    views) to keep the passes light. NaN propagates into the maximum
    (np.maximum), not into the position; the caller checks for it.
    """
    best = views[0]
    position = np.zeros(best.shape, np.uint8)
    for i, view in enumerate(views[1:], 1):
        better = view > best  # strict: ties keep the first maximum, as PyTorch
        best = np.maximum(best, view)
        if i == 1:
            position = better.view(np.uint8)
        else:
            position += better * (i - position)  # uint8 stays exact: i < 256
    return (best.copy() if len(views) == 1 else best), position


def _max_pool_tiles(x, kernel_size, out_size):
    """MaxPool of non-overlapping tiles: first the maximum along each tile row, then down the
    rows -- in that order, so that ties go to the first maximum in row-major order, as PyTorch.

    None when NaN is present (the general path gives NaN its position)."""
    (k_h, k_w), (out_h, out_w), w = kernel_size, out_size, x.shape[3]
    if max(kernel_size) > 255:
        return None
    h_end, w_end = out_h * k_h, out_w * k_w
    row_max, col = _first_maximum([x[:, :, :h_end, j:w_end:k_w] for j in range(k_w)])
    values, row = _first_maximum([row_max[:, :, i::k_h] for i in range(k_h)])
    if np.isnan(values).any():
        return None
    col_of_row = col[:, :, 0::k_h]
    for i in range(1, k_h):  # the column in the row that won; uint8 wraps back exactly
        col_of_row = col_of_row + (row == i) * (col[:, :, i::k_h] - col[:, :, 0::k_h])
    index = np.multiply(row, w, dtype=np.int64)
    index += col_of_row
    index += np.arange(out_h)[:, None] * (k_h * w) + np.arange(out_w)[None, :] * k_w  # each tile's top-left corner
    return values, index


def _max_pool_tiles_split(x, kernel_size, out_size):
    """_max_pool_tiles over the samples split across minitorch's intra-op threads (parallel.py),
    each writing its samples of the outputs; one call over the whole batch when not split."""
    n = x.shape[0]
    template = x[:, :, :out_size[0], :out_size[1]]  # outputs in x's memory layout, as the serial path gives
    values, index = np.empty_like(template), np.empty_like(template, dtype=np.int64)  # untouched unless split

    def samples(first, last):
        pooled = _max_pool_tiles(x[first:last], kernel_size, out_size)
        if pooled is None or last - first == n:  # NaN (the general path takes over), or the whole batch at once
            return pooled
        values[first:last], index[first:last] = pooled
        return True

    parts = parallel.split("MaxPool", samples, n, x.nbytes)
    if len(parts) == 1:
        return parts[0]
    return (values, index) if all(parts) else None


def _max_pool(x, kernel_size, stride, padding, dilation, ceil_mode):
    n, c, h, w = x.shape
    out_h, out_w = out_size = _out_size(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
    if _tiles_input(x.shape, out_size, kernel_size, stride, padding, dilation):
        pooled = _max_pool_tiles_split(x, kernel_size, out_size)
        if pooled is not None:
            return pooled
    padded, _ = _pad_for_windows(x, out_size, kernel_size, stride, padding, dilation, -np.inf)
    view = windows(padded, kernel_size, stride, dilation, out_size)
    # A running maximum over the kH * kW kernel offsets (each step is vectorised over
    # every window); a strict '>' keeps the first maximum and NaN wins, as in PyTorch.
    values = view[..., 0, 0].copy()
    shift = np.zeros(values.shape, np.int64)  # flat-index shift of the winning offset from the window's corner
    better, step = np.empty(values.shape, bool), np.empty(values.shape, np.int64)
    for k in range(1, kernel_size[0] * kernel_size[1]):
        k_row, k_col = divmod(k, kernel_size[1])
        candidate = view[..., k_row, k_col]
        np.greater(candidate, values, out=better)
        better |= np.isnan(candidate)
        np.maximum(values, candidate, out=values)  # NaN propagates, as PyTorch
        # shift = this offset's shift where better (arithmetic: masked copies are slow)
        np.subtract(k_row * dilation[0] * w + k_col * dilation[1], shift, out=step)
        step *= better
        shift += step
    corner_row = np.arange(out_h)[:, None] * stride[0] - padding[0]
    corner_col = np.arange(out_w)[None, :] * stride[1] - padding[1]
    return values, shift + (corner_row * w + corner_col)


def _max_pool_grad(op, grad, _grad_argmax):
    """dx: dy scattered to where each window's maximum was (the argmax has no gradient)."""
    attrs = op.attrs
    values, argmax = op.outputs
    disjoint = _windows_are_disjoint(attrs["kernel_size"], attrs["stride"], attrs["dilation"])
    # dx in the input's memory layout (the pooled values have it), so that the ops before see one layout
    channels_last = is_channels_last(values._data)
    return execute("MaxPoolGrad", (argmax, grad),
                   {"input_shape": op.input_shapes[0], "disjoint": disjoint, "channels_last": channels_last})


op("MaxPool", _max_pool, _max_pool_grad, needs="outputs", accepts_none=(1,), jvp=TRANSPOSE)


def _scatter_positions(argmax, input_shape, channels_last, first=0):
    """Where each window's maximum lies in the flat memory of dx: NCHW or channels-last (N, H, W, C).
    `argmax` holds samples first:first + len(argmax) of the batch."""
    _, c, h, w = input_shape
    n = argmax.shape[0]
    if channels_last:  # ((sample * h * w) + argmax) * c + channel, in two passes over the windows
        positions = argmax * c
        sample_starts = (np.arange(first, first + n, dtype=np.int64) * (h * w * c)).reshape(n, 1, 1, 1)
        positions += sample_starts + np.arange(c, dtype=np.int64).reshape(1, c, 1, 1)
        return positions
    return argmax + (np.arange(first * c, (first + n) * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)


def _max_pool_grad_kernel(argmax, grad, input_shape, disjoint=False, channels_last=False):
    """Scatter-add of dy at the argmax; a plain scatter when no two windows share an element."""
    n, c, h, w = input_shape
    if disjoint:
        dx = np.zeros(n * c * h * w, dtype=grad.dtype)

        def samples(first, last):  # a sample's windows lie in its own part of dx
            positions = _scatter_positions(argmax[first:last], input_shape, channels_last, first)
            values = grad[first:last]
            if is_channels_last(positions):
                # Both walked in memory order (measured 2x faster), dy copied there if it has another layout
                # (flattened before a Linear): the copy costs less than the strided walk.
                positions, values = positions.transpose(0, 2, 3, 1), np.ascontiguousarray(values.transpose(0, 2, 3, 1))
            dx[positions] = values  # index and values pair up elementwise, whatever their layouts

        parallel.split("MaxPoolGrad", samples, n, dx.nbytes)
    else:
        positions = _scatter_positions(argmax, input_shape, channels_last)
        dx = np.bincount(positions.ravel(), weights=grad.ravel(), minlength=n * c * h * w).astype(grad.dtype, copy=False)
    if channels_last:
        return dx.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    return dx.reshape(input_shape)


def _max_pool_grad_grad(op, grad):
    """MaxPoolGrad is linear in dy; its adjoint gathers at the argmax."""
    argmax = op.inputs[0]
    return None, execute("MaxPoolGradGrad", (argmax, grad), op.attrs)


op("MaxPoolGrad", _max_pool_grad_kernel, _max_pool_grad_grad, needs="inputs", jvp=TRANSPOSE)


def _max_pool_grad_grad_kernel(argmax, grad, input_shape, disjoint=False, channels_last=False):
    n, c = argmax.shape[:2]
    picked = np.take_along_axis(grad.reshape(n, c, -1), argmax.reshape(n, c, -1), axis=2)
    return picked.reshape(argmax.shape)


def _max_pool_grad_grad_grad(op, grad):
    """The gather's adjoint is the scatter, MaxPoolGrad."""
    argmax = op.inputs[0]
    return None, execute("MaxPoolGrad", (argmax, grad), op.attrs)


op("MaxPoolGradGrad", _max_pool_grad_grad_kernel, _max_pool_grad_grad_grad, needs="inputs", jvp=TRANSPOSE)


# ----- AvgPool -----


def _window_counts(size, out, kernel_size, stride, padding, count_include_pad):
    """Elements per window along one axis: clipped at input + padding, or at the input alone."""
    start = np.arange(out) * stride - padding
    end = np.minimum(start + kernel_size, size + padding)
    if count_include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def _avg_divisor(shape, out_size, kernel_size, stride, padding, count_include_pad, divisor_override):
    if divisor_override:
        return divisor_override
    rows, cols = (
        _window_counts(n, o, k, s, p, count_include_pad)
        for n, o, k, s, p in zip(shape[2:], out_size, kernel_size, stride, padding)
    )
    return rows[:, None] * cols[None, :]


def _offset_views(padded, kernel_size, stride, out_size):
    """For each kernel offset (i, j), the (N, C, Ho, Wo) strided view of the elements it sees."""
    (k_h, k_w), (s_h, s_w), (out_h, out_w) = kernel_size, stride, out_size
    return [
        padded[:, :, i:i + s_h * (out_h - 1) + 1:s_h, j:j + s_w * (out_w - 1) + 1:s_w]
        for i in range(k_h) for j in range(k_w)
    ]


def _avg_pool(x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    out_size = _out_size(x.shape, kernel_size, stride, padding, (1, 1), ceil_mode)
    padded, _ = _pad_for_windows(x, out_size, kernel_size, stride, padding, (1, 1), 0)
    views = _offset_views(padded, kernel_size, stride, out_size)
    total = views[0].copy()
    for view in views[1:]:  # kH kW contiguous adds: a sum over small window axes is far slower
        total += view
    total /= np.asarray(_avg_divisor(x.shape, out_size, kernel_size, stride, padding, count_include_pad, divisor_override), x.dtype)
    return total


def _avg_pool_grad(op, grad):
    """d avgpool(x) = each window's gradient spread evenly over its inputs (the AvgPoolGrad op)."""
    return execute("AvgPoolGrad", (grad,), {**op.attrs, "input_shape": op.input_shapes[0]})


op("AvgPool", _avg_pool, _avg_pool_grad, needs="nothing", jvp=TRANSPOSE)


def _avg_pool_grad_kernel(grad, input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    n, c, h, w = input_shape
    out_h, out_w = out_size = grad.shape[2:]
    divisor = _avg_divisor(input_shape, out_size, kernel_size, stride, padding, count_include_pad, divisor_override)
    share = grad / np.asarray(divisor, grad.dtype)
    if _tiles_input(input_shape, out_size, kernel_size, stride, padding, (1, 1)):
        # Each input element lies in one tile: the shares, repeated over each tile, in one copy.
        (k_h, k_w) = kernel_size
        tiled = np.broadcast_to(share[:, :, :, None, :, None], (n, c, out_h, k_h, out_w, k_w)).reshape(n, c, out_h * k_h, out_w * k_w)
        if tiled.shape == tuple(input_shape):
            return tiled
        dx = np.zeros(input_shape, dtype=grad.dtype)
        dx[:, :, :out_h * k_h, :out_w * k_w] = tiled
        return dx
    rows, cols = (
        (p, max((o - 1) * s + k - n - p, 0)) for n, o, k, s, p in zip((h, w), out_size, kernel_size, stride, padding)
    )
    padded = np.zeros((n, c, h + sum(rows), w + sum(cols)), dtype=grad.dtype)
    for view in _offset_views(padded, kernel_size, stride, out_size):  # every kernel offset adds its share at once
        view += share
    return np.ascontiguousarray(padded[:, :, rows[0]:rows[0] + h, cols[0]:cols[0] + w])


def _avg_pool_grad_grad(op, grad):
    """AvgPoolGrad is the adjoint of the linear AvgPool, so its gradient is AvgPool."""
    attrs = {key: value for key, value in op.attrs.items() if key != "input_shape"}
    return execute("AvgPool", (grad,), attrs)


op("AvgPoolGrad", _avg_pool_grad_kernel, _avg_pool_grad_grad, needs="nothing", jvp=TRANSPOSE)


# ----- the functional API -----


def _as_batched(input, op_name):
    if input.ndim not in (3, 4):
        raise ShapeError(f"{op_name}: expected a 3-D (unbatched) or 4-D (batched) input, got shape {tuple(input.shape)}")
    if not input.is_floating_point():
        raise TypeError(f"{op_name}: expected a floating-point input, got {input.dtype}")
    if input.ndim == 3:
        return input.unsqueeze(0), True
    return input, False


def _pool_args(input, op_name, kernel_size, stride, padding, dilation, ceil_mode):
    kernel_size = int_tuple(kernel_size, 2, "kernel_size", op_name)
    stride = kernel_size if stride is None or (not isinstance(stride, int) and len(stride) == 0) else int_tuple(stride, 2, "stride", op_name)
    padding, dilation = int_tuple(padding, 2, "padding", op_name), int_tuple(dilation, 2, "dilation", op_name)
    if min(kernel_size) < 1 or min(stride) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise ValueError(f"{op_name}: kernel_size {kernel_size}, stride {stride} and dilation {dilation} must be positive, padding {padding} not negative")
    for k, p, d in zip(kernel_size, padding, dilation):
        if 2 * p > d * (k - 1) + 1:
            raise ValueError(
                f"{op_name}: pad should be at most half of effective kernel size, but got padding={padding}, "
                f"kernel_size={kernel_size} and dilation={dilation}"
            )
    out_size = _out_size(input.shape, kernel_size, stride, padding, dilation, ceil_mode)
    if min(out_size) < 1:
        raise ShapeError(
            f"{op_name}: input of shape {tuple(input.shape)} is too small for kernel_size={kernel_size}, "
            f"stride={stride}, padding={padding}, dilation={dilation}: output size would be {out_size}"
        )
    return kernel_size, stride, padding, dilation


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max pooling like torch.nn.functional.max_pool2d (padding counts as -inf).

    >>> max_pool2d(mt.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    input, unbatched = _as_batched(input, "MaxPool")
    kernel_size, stride, padding, dilation = _pool_args(input, "MaxPool", kernel_size, stride, padding, dilation, ceil_mode)
    attrs = {"kernel_size": kernel_size, "stride": stride, "padding": padding, "dilation": dilation, "ceil_mode": bool(ceil_mode)}
    values, indices = execute("MaxPool", (input,), attrs)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return (values, indices) if return_indices else values


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    """Average pooling like torch.nn.functional.avg_pool2d.

    >>> avg_pool2d(mt.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    input, unbatched = _as_batched(input, "AvgPool")
    if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override == 0):
        raise ValueError(f"AvgPool: divisor_override must be a non-zero integer, got {divisor_override!r}")
    kernel_size, stride, padding, _ = _pool_args(input, "AvgPool", kernel_size, stride, padding, 1, ceil_mode)
    for k, p in zip(kernel_size, padding):
        if 2 * p > k:
            raise ValueError(f"AvgPool: pad should be at most half of kernel size, but got padding={padding}, kernel_size={kernel_size}")
    attrs = {
        "kernel_size": kernel_size, "stride": stride, "padding": padding, "ceil_mode": bool(ceil_mode),
        "count_include_pad": bool(count_include_pad), "divisor_override": divisor_override,
    }
    out = execute("AvgPool", (input,), attrs)
    return out.squeeze(0) if unbatched else out


def _bin_matrix(in_size, out_size, dtype):
    """(out, in) averaging matrix of PyTorch's adaptive bins [floor(i n / o), ceil((i + 1) n / o))."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    position = np.arange(in_size)
    inside = (position[None, :] >= start[:, None]) & (position[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling like torch.nn.functional.adaptive_avg_pool2d.

    Evenly dividing sizes use AvgPool; other sizes average PyTorch's
    overlapping bins with two small constant matrices (rows @ x @ cols^T).

    >>> adaptive_avg_pool2d(mt.ones(1, 2, 5, 7), (2, 3)).shape
    minitorch.Size([1, 2, 2, 3])
    """
    batched, unbatched = _as_batched(input, "AdaptiveAvgPool")
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size, output_size)
    h, w = batched.shape[2:]
    out_h, out_w = (n if o is None else int(o) for n, o in zip((h, w), tuple(output_size)))
    if out_h < 1 or out_w < 1:
        raise ValueError(f"AdaptiveAvgPool: output_size must be positive, got {tuple(output_size)} for input {tuple(input.shape)}")
    if h % out_h == 0 and w % out_w == 0:
        out = avg_pool2d(batched, (h // out_h, w // out_w))
    else:
        rows = Tensor._make(_bin_matrix(h, out_h, batched._data.dtype))
        cols = Tensor._make(_bin_matrix(w, out_w, batched._data.dtype).T.copy())
        out = matmul(matmul(rows, batched), cols)
    return out.squeeze(0) if unbatched else out

