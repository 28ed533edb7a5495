"""Reference solutions of minitorch's exercises (python -m minitorch.exercises), for the test suite only.

The same functions a student writes in gradients.py, written with minitorch
operations only, so that they are differentiable again. tests/test_exercises.py
checks that they pass, and that deliberately wrong variants fail with the
right hint. Not part of the package: `start` never writes them.
"""
import minitorch as mt

F = mt.nn.functional


def sum_to_shape(grad, shape):
    """grad summed over the axes broadcasting added (leading ones) or stretched (size 1 in `shape`)."""
    shape = tuple(shape)
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
    if axes:
        grad = grad.sum(dim=axes, keepdim=True)
    return grad.reshape(shape) if tuple(grad.shape) != shape else grad


# ----- 1. elementwise ops and broadcasting -----

def add_grad(op, grad):
    x_shape, y_shape = op.input_shapes
    return sum_to_shape(grad, x_shape), sum_to_shape(grad, y_shape)


def mul_grad(op, grad):
    x, y = op.inputs
    return sum_to_shape(grad * y, x.shape), sum_to_shape(grad * x, y.shape)


def exp_grad(op, grad):
    return grad * op.outputs[0]


def log_grad(op, grad):
    return grad / op.inputs[0]


def tanh_grad(op, grad):
    z = op.outputs[0]
    return grad * (1 - z * z)


def relu_grad(op, grad):
    return grad * (op.outputs[0] > 0).to(grad.dtype)


# ----- 2. reductions and shapes -----

def _kept_shape(shape, axis):
    return tuple(1 if axis is None or i in axis else n for i, n in enumerate(shape))


def sum_grad(op, grad):
    shape, axis = op.input_shapes[0], op.attrs["axis"]
    return grad.reshape(_kept_shape(shape, axis)).expand(*shape)


def mean_grad(op, grad):
    shape, axis = op.input_shapes[0], op.attrs["axis"]
    count = 1
    for i, n in enumerate(shape):
        if axis is None or i in axis:
            count *= n
    return grad.reshape(_kept_shape(shape, axis)).expand(*shape) / count


def reshape_grad(op, grad):
    return grad.reshape(op.input_shapes[0])


def transpose_grad(op, grad):
    perm = op.attrs["perm"]
    inverse = [perm.index(i) for i in range(len(perm))]
    return grad.permute(*inverse)


# ----- 3. a linear layer and its loss -----

def matmul_grad(op, grad):
    a, b = op.inputs
    t = lambda m: m.transpose(-1, -2)  # noqa: E731
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    left, right = (t(a) if ta else a), (t(b) if tb else b)  # C = left @ right
    d_left, d_right = mt.matmul(grad, t(right)), mt.matmul(t(left), grad)
    d_a, d_b = (t(d_left) if ta else d_left), (t(d_right) if tb else d_right)
    return sum_to_shape(d_a, a.shape), sum_to_shape(d_b, b.shape)


def cross_entropy_grad(op, grad_loss, grad_backprop):
    logits, labels = op.inputs
    one_hot = (labels.unsqueeze(1) == mt.arange(logits.shape[1])).to(logits.dtype)
    return grad_loss.unsqueeze(1) * (mt.softmax(logits, 1) - one_hot), None


# ----- 4. convolutional layers -----

def _dilate(grad, stride):
    """s - 1 zeros between the rows and between the columns of (N, C, H, W)."""
    n, c, h, w = grad.shape
    sh, sw = stride
    if sw > 1:
        grad = mt.cat([grad.unsqueeze(-1), mt.zeros(n, c, h, w, sw - 1, dtype=grad.dtype)], dim=-1)
        grad = grad.reshape(n, c, h, w * sw)[..., :(w - 1) * sw + 1]
    if sh > 1:
        width = grad.shape[-1]
        grad = mt.cat([grad.unsqueeze(-2), mt.zeros(n, c, h, sh - 1, width, dtype=grad.dtype)], dim=-2)
        grad = grad.reshape(n, c, h * sh, width)[..., :(h - 1) * sh + 1, :]
    return grad


def _pad_to(x, height, width):
    """Zeros added at the bottom and right of (N, C, H, W) up to (height, width)."""
    n, c, h, w = x.shape
    if height > h:
        x = mt.cat([x, mt.zeros(n, c, height - h, w, dtype=x.dtype)], dim=2)
    if width > w:
        x = mt.cat([x, mt.zeros(n, c, x.shape[2], width - w, dtype=x.dtype)], dim=3)
    return x


def conv2d_grad(op, grad):
    x, w = op.inputs[:2]
    stride, dilation = op.attrs["stride"], op.attrs["dilation"]
    (top, bottom), (left, right) = op.attrs["padding"]
    n, c, h, width = x.shape
    o, _, kh, kw = w.shape
    reach = (dilation[0] * (kh - 1), dilation[1] * (kw - 1))
    flipped = w[:, :, mt.arange(kh - 1, -1, -1)][:, :, :, mt.arange(kw - 1, -1, -1)].transpose(0, 1)
    full = F.conv2d(_dilate(grad, stride), flipped, padding=reach, dilation=dilation)  # the padded input's gradient
    full = _pad_to(full, h + top + bottom, width + left + right)
    dx = full[:, :, top:top + h, left:left + width]
    padded = _pad_to(mt.cat([mt.zeros(n, c, top, width, dtype=x.dtype), x], dim=2), h + top + bottom, width)
    padded = _pad_to(mt.cat([mt.zeros(n, c, padded.shape[2], left, dtype=x.dtype), padded], dim=3),
                     h + top + bottom, width + left + right)
    # dw[o, c, i, j] = sum of grad[n, o, p, q] * padded[n, c, p*s + i*d, q*s + j*d]: a convolution over n
    dw = F.conv2d(padded.transpose(0, 1), grad.transpose(0, 1), stride=dilation, dilation=stride)
    dw = dw[:, :, :kh, :kw].transpose(0, 1)
    if len(op.inputs) == 2:
        return dx, dw
    return dx, dw, grad.sum(dim=(0, 2, 3))


def max_pool_grad(op, grad, grad_argmax):
    n, c, h, w = op.input_shapes[0]
    argmax = op.outputs[1]
    one_hot = (argmax.reshape(n, c, -1, 1) == mt.arange(h * w)).to(grad.dtype)  # (N, C, windows, H*W)
    return (grad.reshape(n, c, -1, 1) * one_hot).sum(dim=2).reshape(n, c, h, w)


def batch_norm_grad(op, grad_y, grad_mean, grad_var, grad_saved_mean, grad_saved_inv_std):
    x, scale, _ = op.inputs
    axes = (0,) + tuple(range(2, x.ndim))
    per_channel = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    count = x.numel() // x.shape[1]
    mean = x.mean(dim=axes, keepdim=True)
    centered = x - mean
    inv_std = 1 / ((centered * centered).mean(dim=axes, keepdim=True) + op.attrs["eps"]).sqrt()
    x_hat = centered * inv_std
    d_offset = grad_y.sum(dim=axes)
    d_scale = (grad_y * x_hat).sum(dim=axes)
    d_x = scale.reshape(per_channel) * inv_std / count * (
        grad_y * count - d_offset.reshape(per_channel) - x_hat * d_scale.reshape(per_channel))
    return d_x, d_scale, d_offset


# ----- 5. the reverse pass -----

def _add(old, new):
    return old + new


def compute_gradient(tape, targets, sources, output_gradients, accumulate=_add, unbroadcast=True):
    """The reverse pass; `accumulate` and `unbroadcast` let the tests make deliberately wrong variants of it."""
    order, seen = [], set()
    stack = [(t._id, False) for t in targets]
    while stack:  # depth first, an op after the ops that made its inputs
        tid, inputs_done = stack.pop()
        op_id = tape.tensor_tape.get(tid)
        if op_id is None or op_id == -1:
            continue
        if inputs_done:
            if op_id not in seen:
                seen.add(op_id)
                order.append(op_id)
            continue
        if op_id in seen:
            continue
        stack.append((tid, True))
        stack += [(input_id, False) for input_id in tape.op_tape[op_id].input_ids]
    gradients = {}
    for target, grad in zip(targets, output_gradients):
        gradients[target._id] = accumulate(gradients[target._id], grad) if target._id in gradients else grad
    for op_id in reversed(order):
        entry = tape.op_tape[op_id]
        if not any(tid in gradients for tid in entry.output_ids):
            continue
        out_grads = [gradients.get(tid, mt.zeros(*shape, dtype=dtype)) for tid, (shape, dtype)
                     in zip(entry.output_ids, entry.output_info)]
        needs = tuple(tape.tensor_tape.get(tid) is not None for tid in entry.input_ids)
        in_grads = entry.backward_function(needs, out_grads)
        for tid, grad, needed, (shape, _) in zip(entry.input_ids, in_grads, needs, entry.input_info):
            if grad is None or not needed:
                continue
            grad = sum_to_shape(grad, shape) if unbroadcast else grad
            gradients[tid] = accumulate(gradients[tid], grad) if tid in gradients else grad
    return [gradients.get(s._id) for s in sources]
