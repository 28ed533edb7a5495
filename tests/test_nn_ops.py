"""Convolution, pooling, fused softmax cross-entropy and batch norm: forward
values against naive loop references (and PyTorch when installed), error
messages, the fused ops' extra outputs, None for unused output gradients,
and a gradient penalty (double backward) through a small CNN.

First and second derivatives of every op are checked against finite
differences in test_op_gradients.py (cases in op_cases/nn_ops.py).
"""
import itertools
import math

import numpy as np
import pytest

import minitorch as mt
from minitorch.engine.registry import OPS
from minitorch.ops.batch_norm_ops import fused_batch_norm
from minitorch.ops.conv_ops import conv2d
from minitorch.ops.loss_ops import softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits
from minitorch.ops.pool_ops import adaptive_avg_pool2d, avg_pool2d, max_pool2d


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


# ----- naive references: one output value at a time -----


def conv2d_reference(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    out_h = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    out_w = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, out_h, out_w))
    per_group = o // groups
    for b_, oc, i, j in itertools.product(range(n), range(o), range(out_h), range(out_w)):
        g = oc // per_group
        total = 0.0
        for ic, ki, kj in itertools.product(range(cg), range(kh), range(kw)):
            total += xp[b_, g * cg + ic, i * sh + ki * dh, j * sw + kj * dw] * w[oc, ic, ki, kj]
        out[b_, oc, i, j] = total + (0.0 if b is None else b[oc])
    return out


def _pool_out(size, k, s, p, d, ceil_mode):
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= size + p else out


def max_pool_reference(x, k, s, p=0, d=1, ceil_mode=False):
    """Values and PyTorch-style flat indices, window by window."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = _pair(k), _pair(s), _pair(p), _pair(d)
    n, c, h, w = x.shape
    oh, ow = _pool_out(h, kh, sh, ph, dh, ceil_mode), _pool_out(w, kw, sw, pw, dw, ceil_mode)
    values, indices = np.full((n, c, oh, ow), -np.inf), np.zeros((n, c, oh, ow), np.int64)
    for b, ch, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        for ki, kj in itertools.product(range(kh), range(kw)):
            r, q = i * sh - ph + ki * dh, j * sw - pw + kj * dw
            if 0 <= r < h and 0 <= q < w and x[b, ch, r, q] > values[b, ch, i, j]:
                values[b, ch, i, j], indices[b, ch, i, j] = x[b, ch, r, q], r * w + q
    return values, indices


def avg_pool_reference(x, k, s, p=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    (kh, kw), (sh, sw), (ph, pw) = _pair(k), _pair(s), _pair(p)
    n, c, h, w = x.shape
    oh, ow = _pool_out(h, kh, sh, ph, 1, ceil_mode), _pool_out(w, kw, sw, pw, 1, ceil_mode)
    out = np.zeros((n, c, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        r0, q0 = i * sh - ph, j * sw - pw
        r1, q1 = min(r0 + kh, h + ph), min(q0 + kw, w + pw)
        padded_count = (r1 - r0) * (q1 - q0)
        r0c, q0c, r1c, q1c = max(r0, 0), max(q0, 0), min(r1, h), min(q1, w)
        total = x[:, :, r0c:r1c, q0c:q1c].sum(axis=(2, 3))
        divisor = divisor_override or (padded_count if count_include_pad else (r1c - r0c) * (q1c - q0c))
        out[:, :, i, j] = total / divisor
    return out


def adaptive_avg_pool_reference(x, out_h, out_w):
    n, c, h, w = x.shape
    out = np.zeros((n, c, out_h, out_w))
    for i, j in itertools.product(range(out_h), range(out_w)):
        r0, r1 = (i * h) // out_h, math.ceil((i + 1) * h / out_h)
        q0, q1 = (j * w) // out_w, math.ceil((j + 1) * w / out_w)
        out[:, :, i, j] = x[:, :, r0:r1, q0:q1].mean(axis=(2, 3))
    return out


def _t(a, requires_grad=False):
    return mt.tensor(a, dtype=mt.float64, requires_grad=requires_grad)


def _distinct(rng, shape):
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.1).reshape(shape)


# ----- forward values against the references -----

CONV_CONFIGS = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(2, 1), padding=(0, 2), dilation=(1, 2)),
    dict(padding=1, groups=2),
    dict(stride=(1, 3), dilation=2, groups=4),
]


@pytest.mark.parametrize("config", CONV_CONFIGS, ids=str)
def test_conv2d_matches_the_loop_reference(config):
    rng = np.random.default_rng(0)
    groups = config.get("groups", 1)
    x, w, b = rng.standard_normal((2, 4, 7, 8)), rng.standard_normal((4, 4 // groups, 3, 2)), rng.standard_normal(4)
    out = conv2d(_t(x), _t(w), _t(b), **config)
    np.testing.assert_allclose(out.numpy(), conv2d_reference(x, w, b, **config), rtol=1e-10, atol=1e-12)


def test_conv2d_same_padding_keeps_the_size_and_pads_the_extra_row_at_the_end():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((1, 2, 5, 6)), rng.standard_normal((3, 2, 2, 4))
    out = conv2d(_t(x), _t(w), padding="same")
    assert out.shape == (1, 3, 5, 6)
    # total padding (1, 3): PyTorch puts (0, 1) rows and (1, 2) columns around the input
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2)))
    np.testing.assert_allclose(out.numpy(), conv2d_reference(padded, w), rtol=1e-10, atol=1e-12)
    assert conv2d(_t(x), _t(w), padding="valid").shape == (1, 3, 4, 3)


def test_conv2d_unbatched_input_and_float32():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 5, 5)).astype(np.float32), rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    out = conv2d(mt.tensor(x), mt.tensor(w), padding=1)
    assert out.shape == (3, 5, 5) and out.dtype == mt.float32
    np.testing.assert_allclose(out.numpy(), conv2d_reference(x[None], w, padding=1)[0], rtol=1e-4, atol=1e-5)


def test_conv2d_gradients_of_bias_and_input_against_the_adjoint_identity():
    """<conv(x, w), dy> is linear in x: its gradient must be the adjoint applied to dy."""
    rng = np.random.default_rng(3)
    x, w, b = _t(rng.standard_normal((2, 2, 6, 5)), True), _t(rng.standard_normal((4, 2, 3, 3)), True), _t(rng.standard_normal(4), True)
    dy = rng.standard_normal((2, 4, 3, 3))
    (conv2d(x, w, b, stride=2, padding=1) * _t(dy)).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), dy.sum(axis=(0, 2, 3)))
    probe = rng.standard_normal(x.shape)
    # <grad_x, probe> = <conv(probe, w), dy> (no bias: the map x -> conv is linear)
    lhs = (x.grad.numpy() * probe).sum()
    rhs = (conv2d_reference(probe, w.detach().numpy(), stride=2, padding=1) * dy).sum()
    assert lhs == pytest.approx(rhs, rel=1e-10)


POOL_CONFIGS = [
    dict(k=2, s=2),
    dict(k=3, s=2, p=1),
    dict(k=(2, 3), s=(2, 1), p=(1, 1)),
    dict(k=3, s=2, ceil_mode=True),
    dict(k=2, s=3, p=1, ceil_mode=True),
]


@pytest.mark.parametrize("config", POOL_CONFIGS + [dict(k=(2, 3), s=(2, 1), p=(1, 1), d=(2, 1))], ids=str)
def test_max_pool_values_and_indices_match_the_loop_reference(config):
    x = _distinct(np.random.default_rng(4), (2, 3, 7, 9))
    k, s, p, d, ceil = config["k"], config["s"], config.get("p", 0), config.get("d", 1), config.get("ceil_mode", False)
    values, indices = max_pool2d(_t(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    ref_values, ref_indices = max_pool_reference(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(values.numpy(), ref_values)
    np.testing.assert_array_equal(indices.numpy(), ref_indices)
    assert indices.dtype == mt.int64


def test_max_pool_gradient_goes_to_the_maximum_only():
    x = _t(_distinct(np.random.default_rng(5), (1, 2, 4, 4)), True)
    max_pool2d(x, 2).sum().backward()
    grad = x.grad.numpy()
    for ch, i, j in itertools.product(range(2), range(2), range(2)):
        block = x.detach().numpy()[0, ch, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
        expected = (block == block.max()).astype(float)
        np.testing.assert_array_equal(grad[0, ch, 2 * i:2 * i + 2, 2 * j:2 * j + 2], expected)


def test_max_pool_propagates_nan_and_points_at_it():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    values, indices = max_pool2d(_t(x), 2, return_indices=True)
    assert np.isnan(values.numpy()[0, 0, 0, 0]) and indices.numpy()[0, 0, 0, 0] == 1
    assert values.numpy()[0, 0, 1, 1] == 15 and indices.numpy()[0, 0, 1, 1] == 15


def test_max_pool_stride_defaults_to_kernel_and_unbatched_input_works():
    x = _distinct(np.random.default_rng(6), (3, 6, 6))
    out = max_pool2d(_t(x), 3)
    np.testing.assert_array_equal(out.numpy(), max_pool_reference(x[None], 3, 3)[0][0])


@pytest.mark.parametrize("config", POOL_CONFIGS, ids=str)
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool_matches_the_loop_reference(config, count_include_pad):
    x = np.random.default_rng(7).standard_normal((2, 3, 7, 9))
    k, s, p, ceil = config["k"], config["s"], config.get("p", 0), config.get("ceil_mode", False)
    out = avg_pool2d(_t(x), k, s, p, ceil_mode=ceil, count_include_pad=count_include_pad)
    np.testing.assert_allclose(out.numpy(), avg_pool_reference(x, k, s, p, ceil, count_include_pad), rtol=1e-12)


def test_avg_pool_divisor_override():
    x = np.random.default_rng(8).standard_normal((1, 2, 5, 5))
    out = avg_pool2d(_t(x), 3, 2, 1, divisor_override=7)
    np.testing.assert_allclose(out.numpy(), avg_pool_reference(x, 3, 2, 1, divisor_override=7), rtol=1e-12)


@pytest.mark.parametrize("out_size", [(1, 1), (2, 3), (3, 4), (7, 9), (5, 2), 4])
def test_adaptive_avg_pool_matches_pytorch_bins(out_size):
    x = np.random.default_rng(9).standard_normal((2, 3, 7, 9))
    oh, ow = _pair(out_size)
    out = adaptive_avg_pool2d(_t(x), out_size)
    np.testing.assert_allclose(out.numpy(), adaptive_avg_pool_reference(x, oh, ow), rtol=1e-12, atol=1e-14)


def test_adaptive_avg_pool_none_keeps_that_size():
    x = np.random.default_rng(10).standard_normal((1, 2, 6, 5))
    out = adaptive_avg_pool2d(_t(x), (None, 2))
    np.testing.assert_allclose(out.numpy(), adaptive_avg_pool_reference(x, 6, 2), rtol=1e-12)


# ----- fused ops return both outputs -----


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def test_softmax_cross_entropy_returns_loss_and_backprop():
    rng = np.random.default_rng(11)
    logits = rng.standard_normal((4, 5)) * 30  # large logits: must stay finite
    labels = rng.dirichlet(np.ones(5), size=4)
    loss, backprop = softmax_cross_entropy_with_logits(_t(logits), _t(labels))
    log_probs = _log_softmax(logits)
    np.testing.assert_allclose(loss.numpy(), -(labels * log_probs).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(backprop.numpy(), np.exp(log_probs) - labels, atol=1e-15)
    assert np.isfinite(loss.numpy()).all()


def test_sparse_softmax_cross_entropy_returns_loss_and_backprop():
    rng = np.random.default_rng(12)
    logits, targets = rng.standard_normal((4, 5)), np.array([0, 4, 2, 4])
    loss, backprop = sparse_softmax_cross_entropy_with_logits(_t(logits), mt.tensor(targets))
    log_probs = _log_softmax(logits)
    np.testing.assert_allclose(loss.numpy(), -log_probs[np.arange(4), targets], rtol=1e-12)
    np.testing.assert_allclose(backprop.numpy(), np.exp(log_probs) - np.eye(5)[targets], atol=1e-15)


def test_softmax_cross_entropy_gradients():
    rng = np.random.default_rng(13)
    logits, labels = _t(rng.standard_normal((3, 4)), True), _t(rng.dirichlet(np.ones(4), size=3), True)
    weights = rng.standard_normal(3)
    loss, backprop = softmax_cross_entropy_with_logits(logits, labels)
    (loss * _t(weights)).sum().backward()
    np.testing.assert_allclose(logits.grad.numpy(), weights[:, None] * backprop.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(labels.grad.numpy(), -weights[:, None] * _log_softmax(logits.detach().numpy()), rtol=1e-12)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 2, 5), (3, 2, 4)])
def test_fused_batch_norm_returns_output_and_statistics(shape):
    rng = np.random.default_rng(14)
    x, scale, offset = rng.standard_normal(shape) * 3 + 1, rng.standard_normal(shape[1]), rng.standard_normal(shape[1])
    y, mean, var, saved_mean, inv_std = fused_batch_norm(_t(x), _t(scale), _t(offset), eps=1e-3)
    axes = tuple(i for i in range(x.ndim) if i != 1)
    count = x.size // shape[1]
    ref_mean, ref_var = x.mean(axis=axes), x.var(axis=axes)
    bshape = (1, shape[1]) + (1,) * (x.ndim - 2)
    ref_y = (x - ref_mean.reshape(bshape)) / np.sqrt(ref_var.reshape(bshape) + 1e-3) * scale.reshape(bshape) + offset.reshape(bshape)
    np.testing.assert_allclose(y.numpy(), ref_y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mean.numpy(), ref_mean, rtol=1e-12)
    np.testing.assert_allclose(saved_mean.numpy(), ref_mean, rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), ref_var * count / (count - 1), rtol=1e-12)  # unbiased
    np.testing.assert_allclose(inv_std.numpy(), 1 / np.sqrt(ref_var + 1e-3), rtol=1e-12)  # biased + eps


def test_fused_batch_norm_without_affine_parameters():
    x = np.random.default_rng(15).standard_normal((5, 2))
    y = fused_batch_norm(_t(x), None, None)[0]
    np.testing.assert_allclose(y.numpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-10)


# ----- unused output gradients arrive as None -----


def _spy_on_gradient(monkeypatch, op_name):
    calls = []
    original = OPS[op_name].grad

    def spy(op, *grads):
        calls.append(grads)
        return original(op, *grads)

    monkeypatch.setattr(OPS[op_name], "grad", spy)
    return calls


def test_softmax_cross_entropy_backward_gets_none_for_unused_backprop(monkeypatch):
    calls = _spy_on_gradient(monkeypatch, "SoftmaxCrossEntropyWithLogits")
    logits = _t(np.random.default_rng(16).standard_normal((3, 4)), True)
    softmax_cross_entropy_with_logits(logits, _t(np.full((3, 4), 0.25)))[0].sum().backward()
    assert len(calls) == 1 and calls[0][0] is not None and calls[0][1] is None


def test_softmax_cross_entropy_backward_gets_the_backprop_gradient_when_used(monkeypatch):
    calls = _spy_on_gradient(monkeypatch, "SparseSoftmaxCrossEntropyWithLogits")
    logits = _t(np.random.default_rng(17).standard_normal((3, 4)), True)
    loss, backprop = sparse_softmax_cross_entropy_with_logits(logits, mt.tensor([1, 0, 3]))
    (loss.sum() + (backprop * backprop).sum()).backward()
    assert calls[0][1] is not None
    probs = np.exp(_log_softmax(logits.detach().numpy()))
    bp = probs - np.eye(4)[[1, 0, 3]]
    g = 2 * bp  # d/dlogits of sum(bp^2) = softmax Jacobian applied to 2 bp, plus the loss term bp
    expected = bp + probs * (g - (g * probs).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(logits.grad.numpy(), expected, rtol=1e-10)


def test_fused_batch_norm_backward_gets_none_for_the_statistics(monkeypatch):
    calls = _spy_on_gradient(monkeypatch, "FusedBatchNorm")
    x = _t(np.random.default_rng(18).standard_normal((4, 3)), True)
    fused_batch_norm(x, _t(np.ones(3), True), _t(np.zeros(3), True))[0].sum().backward()
    assert len(calls) == 1 and calls[0][0] is not None and calls[0][1:] == (None, None, None, None)


def test_max_pool_backward_gets_none_for_the_argmax(monkeypatch):
    calls = _spy_on_gradient(monkeypatch, "MaxPool")
    x = _t(_distinct(np.random.default_rng(19), (1, 1, 4, 4)), True)
    max_pool2d(x, 2).sum().backward()
    assert len(calls) == 1 and calls[0][1] is None


def test_reverse_pass_builds_no_zeros_for_outputs_that_accept_none(monkeypatch):
    """Zeros for a missing output gradient are made in backprop._output_gradients with np.zeros."""
    from minitorch.engine import backprop

    made = []
    real_zeros = np.zeros

    class CountingNumpy:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def zeros(*args, **kwargs):
            made.append(args[0])
            return real_zeros(*args, **kwargs)

    monkeypatch.setattr(backprop, "np", CountingNumpy())
    x = _t(np.random.default_rng(20).standard_normal((4, 3, 2, 2)), True)
    y = fused_batch_norm(x, None, None)[0]
    logits = max_pool2d(y, 2).reshape(4, 3)
    softmax_cross_entropy_with_logits(logits, _t(np.full((4, 3), 1 / 3)))[0].sum().backward()
    assert x.grad is not None and made == []


# ----- double backward: a gradient penalty through conv, max pool and avg pool -----


def _penalised_cnn(x, w1, w2):
    """Loss plus the squared norm of its gradient with respect to the input (WGAN-GP style)."""
    h = conv2d(x, w1, padding=1).tanh()
    h = max_pool2d(h, 2)
    h = conv2d(h, w2, stride=1, padding=1, groups=1).tanh()
    h = avg_pool2d(h, 2, stride=1, padding=1, count_include_pad=False)
    loss = (h * h).sum()
    (grad_x,) = mt.autograd.grad(loss, [x], create_graph=True)
    return loss + (grad_x * grad_x).sum()


def test_gradient_penalty_through_conv_and_pools_matches_finite_differences():
    rng = np.random.default_rng(21)
    x = _t(_distinct(rng, (2, 1, 4, 4)), True)
    w1, w2 = _t(rng.standard_normal((2, 1, 3, 3)) * 0.5, True), _t(rng.standard_normal((2, 2, 2, 2)) * 0.5, True)
    assert mt.autograd.gradcheck(_penalised_cnn, (x, w1, w2), atol=1e-5, rtol=1e-4)


# ----- errors name the op and the shapes -----


@pytest.mark.parametrize("call, message", [
    (lambda: conv2d(mt.zeros(1, 4, 5, 5), mt.zeros(2, 3, 3, 3)), r"Conv2D: .*\(2, 3, 3, 3\).*\(1, 4, 5, 5\).*3 channels.*4"),
    (lambda: conv2d(mt.zeros(1, 4, 5, 5), mt.zeros(3, 2, 3, 3), groups=2), r"Conv2D: out_channels \(3.*groups=2"),
    (lambda: conv2d(mt.zeros(1, 4, 5, 5), mt.zeros(6, 2, 3, 3), groups=3), r"Conv2D: given groups=3.*\(6, 2, 3, 3\).*6 channels.*4"),
    (lambda: conv2d(mt.zeros(1, 2, 2, 5), mt.zeros(3, 2, 3, 3)), r"Conv2D: input of shape \(1, 2, 2, 5\).*smaller.*\(3, 3\)"),
    (lambda: conv2d(mt.zeros(1, 2, 5, 5), mt.zeros(3, 2, 3, 3), mt.zeros(4)), r"Conv2D: bias of shape \(4,\)"),
    (lambda: conv2d(mt.zeros(2, 5, 5), mt.zeros(3, 2, 3)), r"Conv2D: expected a 4-D weight"),
    (lambda: max_pool2d(mt.zeros(1, 1, 2, 2), 3), r"MaxPool: input of shape \(1, 1, 2, 2\) is too small"),
    (lambda: max_pool2d(mt.zeros(1, 1, 6, 6), 2, padding=2), r"MaxPool: pad should be at most half"),
    (lambda: avg_pool2d(mt.zeros(5, 5), 2), r"AvgPool: expected a 3-D .* got shape \(5, 5\)"),
    (lambda: softmax_cross_entropy_with_logits(mt.zeros(2, 3), mt.zeros(2, 4)),
     r"SoftmaxCrossEntropyWithLogits: labels of shape \(2, 4\) must match logits of shape \(2, 3\)"),
    (lambda: sparse_softmax_cross_entropy_with_logits(mt.zeros(2, 3), mt.tensor([0, 1, 2])),
     r"SparseSoftmaxCrossEntropyWithLogits: targets of shape \(3,\)"),
    (lambda: fused_batch_norm(mt.zeros(4, 3), mt.ones(2), mt.zeros(3)), r"FusedBatchNorm: scale of shape \(2,\) must be \(3,\)"),
    (lambda: fused_batch_norm(mt.zeros(1, 3), None, None), r"FusedBatchNorm: expected more than 1 value per channel"),
])
def test_bad_shapes_raise_errors_naming_the_op_and_shapes(call, message):
    with pytest.raises((ValueError, RuntimeError), match=message):
        call()


def test_conv2d_same_padding_with_stride_and_bad_padding_string():
    with pytest.raises(ValueError, match="Conv2D: padding='same' is not supported for strided"):
        conv2d(mt.zeros(1, 1, 4, 4), mt.zeros(1, 1, 3, 3), stride=2, padding="same")
    with pytest.raises(ValueError, match="Conv2D: invalid padding string 'full'"):
        conv2d(mt.zeros(1, 1, 4, 4), mt.zeros(1, 1, 3, 3), padding="full")


def test_sparse_targets_out_of_range_name_the_index_and_the_classes():
    with pytest.raises(IndexError, match="SparseSoftmaxCrossEntropyWithLogits: target index 5 .* 3 classes"):
        sparse_softmax_cross_entropy_with_logits(mt.zeros(2, 3), mt.tensor([1, 5]))
    with pytest.raises(IndexError, match="target index -1"):
        sparse_softmax_cross_entropy_with_logits(mt.zeros(2, 3), mt.tensor([-1, 0]))
    with pytest.raises(TypeError, match="SparseSoftmaxCrossEntropyWithLogits: targets must be integer"):
        sparse_softmax_cross_entropy_with_logits(mt.zeros(2, 3), mt.zeros(2))


# ----- against PyTorch, when installed -----


def _torch_pair(a):
    torch = pytest.importorskip("torch")
    return torch.tensor(a, requires_grad=True), _t(a, True)


@pytest.mark.parametrize("config", CONV_CONFIGS, ids=str)
def test_conv2d_forward_and_backward_match_pytorch(config):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(30)
    groups = config.get("groups", 1)
    (xt, xm), (wt, wm), (bt, bm) = (_torch_pair(a) for a in (
        rng.standard_normal((2, 4, 7, 8)), rng.standard_normal((4, 4 // groups, 3, 2)), rng.standard_normal(4)))
    yt, ym = torch.nn.functional.conv2d(xt, wt, bt, **config), conv2d(xm, wm, bm, **config)
    dy = rng.standard_normal(tuple(yt.shape))
    yt.backward(torch.tensor(dy))
    ym.backward(_t(dy))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    for mine, theirs in ((xm, xt), (wm, wt), (bm, bt)):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("config", POOL_CONFIGS, ids=str)
def test_pools_forward_and_backward_match_pytorch(config):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(31)
    x = _distinct(rng, (2, 3, 7, 9))
    k, s, p, ceil = config["k"], config["s"], config.get("p", 0), config.get("ceil_mode", False)
    for mine_fn, torch_fn in (
        (lambda t: max_pool2d(t, k, s, p, ceil_mode=ceil), lambda t: F.max_pool2d(t, k, s, p, ceil_mode=ceil)),
        (lambda t: avg_pool2d(t, k, s, p, ceil, False), lambda t: F.avg_pool2d(t, k, s, p, ceil, False)),
        (lambda t: adaptive_avg_pool2d(t, (3, 4)), lambda t: F.adaptive_avg_pool2d(t, (3, 4))),
    ):
        xt, xm = _torch_pair(x)
        yt, ym = torch_fn(xt), mine_fn(xm)
        dy = rng.standard_normal(tuple(yt.shape))
        yt.backward(torch.tensor(dy))
        ym.backward(_t(dy))
        np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_cross_entropy_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(32)
    logits, targets = rng.standard_normal((5, 4)), np.array([3, 0, 1, 1, 2])
    labels = rng.dirichlet(np.ones(4), size=5)
    lt, lm = _torch_pair(logits)
    torch.nn.functional.cross_entropy(lt, torch.tensor(targets), reduction="sum").backward()
    sparse_softmax_cross_entropy_with_logits(lm, mt.tensor(targets))[0].sum().backward()
    np.testing.assert_allclose(lm.grad.numpy(), lt.grad.numpy(), rtol=1e-12)
    dense_torch = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels), reduction="none")
    dense_mine = softmax_cross_entropy_with_logits(_t(logits), _t(labels))[0]
    np.testing.assert_allclose(dense_mine.numpy(), dense_torch.numpy(), rtol=1e-12)


def test_fused_batch_norm_matches_pytorch_training_mode():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(33)
    x = rng.standard_normal((4, 3, 2, 5))
    (xt, xm), (st, sm), (ot, om) = (_torch_pair(a) for a in (x, rng.standard_normal(3), rng.standard_normal(3)))
    running_mean, running_var = torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    yt = torch.nn.functional.batch_norm(xt, running_mean, running_var, st, ot, training=True, momentum=1.0, eps=1e-5)
    y, mean, var, _, _ = fused_batch_norm(xm, sm, om, eps=1e-5)
    dy = rng.standard_normal(x.shape)
    yt.backward(torch.tensor(dy))
    y.backward(_t(dy))
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mean.detach().numpy(), running_mean.numpy(), rtol=1e-12)  # momentum 1: the batch statistics
    np.testing.assert_allclose(var.detach().numpy(), running_var.numpy(), rtol=1e-12)
    for mine, theirs in ((xm, xt), (sm, st), (om, ot)):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_gradient_penalty_matches_pytorch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(34)
    x = _distinct(rng, (2, 1, 6, 6))
    w1, w2 = rng.standard_normal((3, 1, 3, 3)), rng.standard_normal((4, 3, 2, 2))
    (xt, xm), (w1t, w1m), (w2t, w2m) = (_torch_pair(a) for a in (x, w1, w2))
    h = F.avg_pool2d(F.conv2d(F.max_pool2d(F.conv2d(xt, w1t, padding=1).tanh(), 2), w2t, padding=1).tanh(), 2, 1, 1, count_include_pad=False)
    loss = (h * h).sum()
    (gx,) = torch.autograd.grad(loss, [xt], create_graph=True)
    (loss + (gx * gx).sum()).backward()
    _penalised_cnn(xm, w1m, w2m).backward()
    np.testing.assert_allclose(w1m.grad.numpy(), w1t.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w2m.grad.numpy(), w2t.grad.numpy(), rtol=1e-9, atol=1e-12)
