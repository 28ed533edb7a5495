"""The fast paths of the nn kernels give exactly what their general paths give.

MaxPool/AvgPool over non-overlapping tiles, the plain-scatter MaxPoolGrad,
the two im2col layouts and the batch blocks of the convolution kernels, the
fused FusedBatchNormGrad and the big arrays' loops of Relu and ReluGrad are shortcuts (minitorch/ops/pool_ops.py, conv_ops.py, batch_norm_ops.py, activation_ops.py); each
test runs the shortcut and the general code on the same data, including the
awkward values (ties, NaN) where a shortcut could pick a different answer.
"""
import numpy as np
import pytest

import minitorch as mt
from minitorch.ops import activation_ops, batch_norm_ops, conv_ops, pool_ops

TILE_CASES = [((2, 3, 8, 8), (2, 2)), ((2, 3, 7, 9), (2, 2)), ((1, 2, 6, 6), (3, 2)), ((1, 2, 5, 4), (1, 2))]


def _general_path(monkeypatch):
    monkeypatch.setattr(pool_ops, "_tiles_input", lambda *args: False)


def _awkward(rng, shape, dtype):
    """Small integers: many ties inside a window."""
    return rng.integers(-2, 3, size=shape).astype(dtype)


@pytest.mark.parametrize("shape,kernel", TILE_CASES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_tiles_match_the_general_path_with_ties(monkeypatch, shape, kernel, dtype):
    x = _awkward(np.random.default_rng(0), shape, dtype)
    x.flat[3] = -np.inf
    out = pool_ops._out_size(shape, kernel, kernel, (0, 0), (1, 1), False)
    assert pool_ops._tiles_input(shape, out, kernel, kernel, (0, 0), (1, 1))
    fast = pool_ops._max_pool(x, kernel, kernel, (0, 0), (1, 1), False)
    _general_path(monkeypatch)
    general = pool_ops._max_pool(x, kernel, kernel, (0, 0), (1, 1), False)
    np.testing.assert_array_equal(fast[0], general[0])
    np.testing.assert_array_equal(fast[1], general[1])  # the first maximum of each window, as PyTorch
    assert fast[0].dtype == dtype and fast[1].dtype == np.int64


def test_max_pool_tiles_give_nan_its_own_position(monkeypatch):
    x = _awkward(np.random.default_rng(1), (2, 2, 4, 4), np.float32)
    x[0, 0, 1, 1] = np.nan  # second row of the first window
    x[1, 1, 2, 3] = np.nan
    values, indices = pool_ops._max_pool(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    assert np.isnan(values[0, 0, 0, 0]) and indices[0, 0, 0, 0] == 1 * 4 + 1
    assert np.isnan(values[1, 1, 1, 1]) and indices[1, 1, 1, 1] == 2 * 4 + 3
    _general_path(monkeypatch)
    general = pool_ops._max_pool(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    np.testing.assert_array_equal(values, general[0])
    np.testing.assert_array_equal(indices, general[1])


@pytest.mark.parametrize("shape,kernel", TILE_CASES, ids=str)
def test_max_pool_grad_plain_scatter_matches_the_scatter_add(shape, kernel):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    values, argmax = pool_ops._max_pool(x, kernel, kernel, (0, 0), (1, 1), False)
    grad = rng.standard_normal(values.shape)
    assert pool_ops._windows_are_disjoint(kernel, kernel, (1, 1))
    np.testing.assert_array_equal(
        pool_ops._max_pool_grad_kernel(argmax, grad, shape, disjoint=True),
        pool_ops._max_pool_grad_kernel(argmax, grad, shape, disjoint=False),
    )


def test_overlapping_windows_are_not_disjoint():
    assert not pool_ops._windows_are_disjoint((3, 3), (2, 2), (1, 1))
    assert not pool_ops._windows_are_disjoint((2, 2), (2, 2), (2, 1))
    assert pool_ops._windows_are_disjoint((2, 2), (3, 2), (1, 1))


@pytest.mark.parametrize("shape,kernel", TILE_CASES, ids=str)
def test_avg_pool_grad_tiles_match_the_general_path(monkeypatch, shape, kernel):
    grad = np.random.default_rng(3).standard_normal(pool_ops._out_size(shape, kernel, kernel, (0, 0), (1, 1), False))
    grad = np.broadcast_to(grad, shape[:2] + grad.shape).copy()
    args = (shape, kernel, kernel, (0, 0), False, True, None)
    fast = pool_ops._avg_pool_grad_kernel(grad, *args)
    _general_path(monkeypatch)
    np.testing.assert_allclose(fast, pool_ops._avg_pool_grad_kernel(grad, *args), rtol=1e-15)


def test_avg_pool_keeps_float32():
    x = np.random.default_rng(4).standard_normal((1, 2, 5, 5)).astype(np.float32)
    out = pool_ops._avg_pool(x, (3, 3), (2, 2), (1, 1), True, False, None)
    assert out.dtype == np.float32
    assert pool_ops._avg_pool_grad_kernel(out, x.shape, (3, 3), (2, 2), (1, 1), True, False, None).dtype == np.float32


CONV_CASES = [
    dict(padding=((1, 1), (1, 1))),
    dict(padding=((0, 1), (2, 0)), dilation=(2, 1)),
    dict(padding=((1, 1), (1, 1)), groups=2),
    dict(padding=((0, 0), (0, 0)), dilation=(1, 2), stride=(2, 3)),
    dict(padding=((2, 1), (0, 1)), stride=(3, 1), groups=4),
]


def _conv_kernels(x, w, dy, attrs):
    out = conv_ops._conv2d(x, w, **attrs)
    dx = conv_ops._conv2d_backprop_input(w, dy, x.shape, **attrs)
    dw = conv_ops._conv2d_backprop_filter(x, dy, w.shape, **attrs)
    return out, dx, dw


@pytest.mark.parametrize("config", CONV_CASES, ids=str)
def test_conv_kernels_agree_in_both_column_layouts_and_any_block_size(monkeypatch, config):
    """im2col copies the columns as (pixels, K) or transposed, and runs its GEMMs over
    blocks of samples: every choice gives the same convolution and gradients."""
    rng = np.random.default_rng(5)
    attrs = {"stride": (1, 1), "dilation": (1, 1), "groups": 1, **config}
    groups = attrs["groups"]
    x, w = rng.standard_normal((5, 8, 6, 7)), rng.standard_normal((8, 8 // groups, 3, 2))
    dy = rng.standard_normal(conv_ops._conv2d(x, w, **attrs).shape)
    results = []
    for min_row_run in (1, 10**6):  # every layer in the rows layout, then every layer transposed
        for block_bytes in (1, 1 << 30):  # one sample per GEMM, then the whole batch in one
            monkeypatch.setattr(conv_ops, "_MIN_ROW_RUN", min_row_run)
            monkeypatch.setattr(conv_ops, "_BLOCK_BYTES", block_bytes)
            results.append(_conv_kernels(x, w, dy, attrs))
    for other in results[1:]:
        for mine, reference in zip(other, results[0]):
            np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-12)
    out, dx, dw = results[0]
    probe_x, probe_w = rng.standard_normal(x.shape), rng.standard_normal(w.shape)  # the gradients are Conv2D's adjoints
    assert (dx * probe_x).sum() == pytest.approx((conv_ops._conv2d(probe_x, w, **attrs) * dy).sum(), rel=1e-10)
    assert (dw * probe_w).sum() == pytest.approx((conv_ops._conv2d(x, probe_w, **attrs) * dy).sum(), rel=1e-10)


FULL_CONVOLUTION_CASES = [
    dict(padding=((1, 1), (1, 1))),
    dict(padding=((0, 1), (1, 0)), dilation=(2, 1)),
    dict(padding=((2, 1), (0, 1)), groups=4, dilation=(2, 3)),
]


@pytest.mark.parametrize("config", FULL_CONVOLUTION_CASES, ids=str)
def test_unit_stride_input_gradient_as_a_convolution_matches_col2im(config):
    rng = np.random.default_rng(13)
    attrs = {"stride": (1, 1), "dilation": (1, 1), "groups": 1, **config}
    x_shape, w = (3, 8, 6, 7), rng.standard_normal((8, 8 // attrs["groups"], 3, 2))
    assert conv_ops._is_full_convolution(w.shape[2:], attrs["stride"], attrs["padding"], attrs["dilation"])
    dy = rng.standard_normal(conv_ops._conv2d(np.zeros(x_shape), w, **attrs).shape)
    as_convolution = conv_ops._backprop_input_as_convolution(w, dy, attrs["padding"], attrs["dilation"], attrs["groups"])
    np.testing.assert_allclose(as_convolution, conv_ops._backprop_input_col2im(w, dy, x_shape, **attrs), rtol=1e-12, atol=1e-12)


def test_padding_beyond_the_kernel_reach_takes_col2im():
    assert not conv_ops._is_full_convolution((3, 3), (1, 1), ((3, 0), (0, 0)), (1, 1))
    assert not conv_ops._is_full_convolution((3, 3), (2, 1), ((0, 0), (0, 0)), (1, 1))
    assert conv_ops._is_full_convolution((3, 3), (1, 1), ((4, 0), (2, 2)), (2, 1))


@pytest.mark.parametrize("stride", [(1, 1), (2, 1)], ids=str)
def test_conv_kernels_take_an_empty_batch(stride):
    attrs = {"stride": stride, "padding": ((1, 1), (1, 1)), "dilation": (1, 1), "groups": 2}
    x, w, b = np.zeros((0, 4, 5, 5)), np.ones((6, 2, 3, 3)), np.ones(6)
    out = conv_ops._conv2d(x, w, b, **attrs)
    assert out.shape == (0, 6, 5 // stride[0] + (5 % stride[0] > 0), 5)
    assert conv_ops._conv2d_backprop_input(w, out, x.shape, **attrs).shape == x.shape
    np.testing.assert_array_equal(conv_ops._conv2d_backprop_filter(x, out, w.shape, **attrs), np.zeros(w.shape))
    np.testing.assert_array_equal(conv_ops._bias_add_grad(out), np.zeros(6))


def test_conv_matches_a_direct_sum_over_kernel_offsets():
    rng = np.random.default_rng(8)
    x, w, b = rng.standard_normal((2, 3, 5, 6)), rng.standard_normal((4, 3, 2, 3)), rng.standard_normal(4)
    out = conv_ops._conv2d(x, w, b, stride=(1, 1), padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1)
    direct = sum(np.einsum("nchw,oc->nohw", x[:, :, i:i + 4, j:j + 4], w[:, :, i, j]) for i in range(2) for j in range(3))
    np.testing.assert_allclose(out, direct + b.reshape(1, 4, 1, 1), rtol=1e-12)


def test_conv_keeps_float32_and_writes_channels_last():
    rng = np.random.default_rng(9)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 6, 6), (4, 3, 3, 3), (4,)))
    attrs = {"stride": (1, 1), "padding": ((1, 1), (1, 1)), "dilation": (1, 1), "groups": 1}
    out = conv_ops._conv2d(x, w, b, **attrs)
    assert out.dtype == np.float32 and out.transpose(0, 2, 3, 1).flags.c_contiguous
    dy = rng.standard_normal(out.shape).astype(np.float32)
    assert conv_ops._conv2d_backprop_input(w, dy, x.shape, **attrs).dtype == np.float32
    assert conv_ops._conv2d_backprop_filter(x, dy, w.shape, **attrs).dtype == np.float32
    assert conv_ops._bias_add_grad(dy).dtype == np.float32


def test_bias_add_grad_sums_any_layout_and_broadcasts():
    dy = np.random.default_rng(10).standard_normal((3, 4, 2, 5))
    for layout in (dy, np.asfortranarray(dy), np.broadcast_to(dy[:1], dy.shape)):
        np.testing.assert_allclose(conv_ops._bias_add_grad(layout), layout.sum(axis=(0, 2, 3)), rtol=1e-12)


def test_fused_batch_norm_grad_kernel_matches_the_composed_formula():
    rng = np.random.default_rng(6)
    dy, x = rng.standard_normal((3, 2, 4, 5)), rng.standard_normal((3, 2, 4, 5)) * 3 + 5
    scale = rng.standard_normal(2)
    _, _, _, mean, inv_std = batch_norm_ops._fused_batch_norm(x, scale, np.zeros(2), 1e-5)
    fused = batch_norm_ops._fused_batch_norm_grad_kernel(dy, x, scale, mean, inv_std)
    composed = batch_norm_ops._batch_norm_backward(*(mt.tensor(a) for a in (dy, x, scale, mean, inv_std)))
    for mine, reference in zip(fused, composed):
        np.testing.assert_allclose(mine, reference.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_batch_norm_gives_the_same_in_both_memory_layouts(dtype):
    """Channels-last inputs (what Conv2D writes) run as (N H, W C) rows, others as (N, C, L) planes."""
    rng = np.random.default_rng(11)
    x, dy = (rng.standard_normal((4, 3, 5, 6)).astype(dtype) * 2 + 1 for _ in range(2))
    scale, offset = rng.standard_normal(3).astype(dtype), rng.standard_normal(3).astype(dtype)
    as_channels_last = lambda a: np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)  # noqa: E731
    planes = batch_norm_ops._fused_batch_norm(x, scale, offset, 1e-5)
    rows = batch_norm_ops._fused_batch_norm(as_channels_last(x), scale, offset, 1e-5)
    assert conv_ops.is_channels_last(rows[0])  # the output keeps the input's layout
    tolerance = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for mine, reference in zip(rows, planes):
        np.testing.assert_allclose(mine, reference, **tolerance)
    for grad_layout in (dy, as_channels_last(dy)):  # any layout of dy, with x channels-last
        grads = batch_norm_ops._fused_batch_norm_grad_kernel(grad_layout, as_channels_last(x), scale, *planes[3:])
        reference = batch_norm_ops._fused_batch_norm_grad_kernel(dy, x, scale, *planes[3:])
        for mine, expected in zip(grads, reference):
            np.testing.assert_allclose(mine, expected, **tolerance)


def test_max_pool_grad_follows_the_input_layout():
    rng = np.random.default_rng(12)
    x = np.ascontiguousarray(rng.standard_normal((2, 5, 4, 6)).transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    values, argmax = pool_ops._max_pool(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    nchw_grad = rng.standard_normal(values.shape)  # as from a flatten before a Linear
    channels_last_grad = np.ascontiguousarray(nchw_grad.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)  # as from a conv
    for grad in (nchw_grad, channels_last_grad):
        for disjoint in (True, False):
            dx = pool_ops._max_pool_grad_kernel(argmax, grad, x.shape, disjoint=disjoint, channels_last=True)
            assert conv_ops.is_channels_last(dx)
            np.testing.assert_array_equal(dx, pool_ops._max_pool_grad_kernel(argmax, grad, x.shape, disjoint=disjoint))


def test_fused_batch_norm_keeps_float32():
    x = np.random.default_rng(7).standard_normal((4, 3, 2, 2)).astype(np.float32)
    outputs = batch_norm_ops._fused_batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32), 1e-5)
    assert all(o.dtype == np.float32 for o in outputs)
    grads = batch_norm_ops._fused_batch_norm_grad_kernel(x, x, np.ones(3, np.float32), outputs[3], outputs[4])
    assert all(g.dtype == np.float32 for g in grads)


@pytest.mark.parametrize("size", [activation_ops._FAST_LOOP_MIN_SIZE - 1, activation_ops._FAST_LOOP_MIN_SIZE], ids=["small", "big"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_and_its_gradient_match_the_plain_ufuncs_on_either_side_of_the_fast_loops(size, dtype):
    """Relu against np.maximum(x, 0), ReluGrad against g * (y > 0), bit for bit: NaN, infinities, zeros of
    either sign, in g as well as in y; and the result keeps g's memory layout (channels-last here)."""
    rng = np.random.default_rng(14)
    x = rng.standard_normal(size).astype(dtype)
    x[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30]
    y = activation_ops._relu(x)
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    np.testing.assert_array_equal(np.signbit(y), np.signbit(np.maximum(x, 0)))
    g = rng.standard_normal(size).astype(dtype)
    g[6:9] = [np.nan, np.inf, -np.inf]
    y[6:9] = [1.0, 0.0, 2.0]
    with np.errstate(invalid="ignore"):  # inf * 0 is NaN, on both sides
        dg, expected = activation_ops._relu_grad_kernel(g, y), np.multiply(g, y > 0)
    np.testing.assert_array_equal(dg, expected)
    assert dg.dtype == dtype
    images = rng.standard_normal((1, 3, 1, size // 3)).astype(dtype)
    channels_last = np.ascontiguousarray(images.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    dx = activation_ops._relu_grad_kernel(channels_last, activation_ops._relu(channels_last))
    assert conv_ops.is_channels_last(dx)
    np.testing.assert_array_equal(dx, np.multiply(channels_last, channels_last > 0))


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.float16])
def test_relu_keeps_the_plain_ufuncs_dtype_at_every_size(dtype):
    for size in (activation_ops._FAST_LOOP_MIN_SIZE - 1, activation_ops._FAST_LOOP_MIN_SIZE):
        x = (np.arange(size) % 5 - 2).astype(dtype)
        assert activation_ops._relu(x).dtype == np.maximum(x, 0).dtype
        np.testing.assert_array_equal(activation_ops._relu(x), np.maximum(x, 0))
        assert activation_ops._relu_grad_kernel(x, x).dtype == np.multiply(x, x > 0).dtype
