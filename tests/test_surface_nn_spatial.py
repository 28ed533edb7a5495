"""The spatial nn surface against PyTorch: convolution, pooling, padding, resampling,
normalization, containers, lazy modules and nn.init.

Functions: values, dtypes, shapes and input/parameter gradients on the same inputs,
and the same errors (both raise). Modules: PyTorch's constructor defaults, state_dict
keys and parameter shapes, repr, and forward/backward with PyTorch's weights loaded.
Finite-difference checks (first and second order, forward mode) of the same functions
are in tests/op_cases/nn_spatial.py.
"""
import copy
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")
tF = torch.nn.functional
F = mt.nn.functional


def _run(fn, args, kwargs, make):
    """(result, None) or (None, the exception) of fn on args made by make (torch.tensor or mt.tensor);
    arrays among the keyword arguments become constant tensors."""
    converted = [make(a) if isinstance(a, np.ndarray) else a for a in args]
    kwargs = {key: make(value, constant=True) if isinstance(value, np.ndarray) else value for key, value in kwargs.items()}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*converted, **kwargs), None, converted
    except Exception as error:  # noqa: BLE001  (any exception: the test only asks that both raise)
        return None, error, converted


def _grad_tensor(make):
    def build(a, constant=False):
        return make(a, requires_grad=a.dtype.kind == "f" and not constant)
    return build


def assert_like_torch(torch_fn, mt_fn, *args, atol=1e-6, grad=True, **kwargs):
    """Same outputs (values, shapes, dtypes), same gradients for every float input, or both raise."""
    expected, torch_error, torch_args = _run(torch_fn, args, kwargs, _grad_tensor(torch.tensor))
    got, mt_error, mt_args = _run(mt_fn, args, kwargs, _grad_tensor(mt.tensor))
    if torch_error is not None or mt_error is not None:
        assert torch_error is not None and mt_error is not None, f"torch raised {torch_error!r}, minitorch raised {mt_error!r}"
        return
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    for e, g in zip(expected, got):
        assert tuple(g.shape) == tuple(e.shape)
        assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1]
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), atol=atol, rtol=1e-5)
    if grad and expected[0].is_floating_point() and expected[0].numel():
        seed = np.random.default_rng(1).standard_normal(tuple(expected[0].shape)).astype(expected[0].detach().numpy().dtype)
        expected[0].backward(torch.tensor(seed))
        got[0].backward(mt.tensor(seed))
        for t, m in zip(torch_args, mt_args):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=atol, rtol=1e-5)


def battery(seed, count):
    rng = np.random.default_rng(seed)
    return [(rng, i) for i in range(count)]


# ----- padding -----

@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 4, 5)])
def test_pad_like_torch(mode, shape):
    rng = np.random.default_rng(len(shape))
    for pairs in (1, 2, 3):
        for _ in range(8):
            pad = tuple(int(v) for v in rng.integers(-2, 4, 2 * pairs))
            if mode == "circular" and any(p < 0 for p in pad):
                continue  # PyTorch's circular cropping reads uninitialised memory in some cases
            assert_like_torch(tF.pad, F.pad, rng.standard_normal(shape), pad, mode=mode)


def test_pad_value_dtype_and_errors():
    assert_like_torch(tF.pad, F.pad, np.arange(6).reshape(2, 3), (1, 2), value=2.5)
    assert_like_torch(tF.pad, F.pad, np.ones((2, 3), np.float32), (1, 0, 1, 1), value=-1.0)
    for pad, kwargs in [((1,), {}), ((1, 1), {"mode": "foo"}), ((1, 1), {"mode": "reflect", "value": 2.0}),
                        ((4, 0), {"mode": "reflect"}), ((1, 1, 1, 1, 1, 1, 1, 1), {})]:
        assert_like_torch(tF.pad, F.pad, np.ones((2, 3, 4)), pad, **kwargs)
    with pytest.raises(NotImplementedError, match="not supported"):
        F.pad(mt.ones(4), (1, 1), mode="reflect")
    x = mt.ones(2, 3)
    for mode in ("constant", "reflect"):
        padded = F.pad(x, (0, 0), mode=mode)
        padded.add_(1)  # a new tensor, as PyTorch's, even when nothing is padded
        assert padded is not x and x.tolist() == [[1.0] * 3] * 2


def test_padding_modules_like_torch():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5))
    for name, args in [("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 0, 2, 1),)), ("ConstantPad1d", ((1, 2), 3.5)),
                       ("ConstantPad2d", (1, -1.0)), ("ReflectionPad1d", (2,)), ("ReflectionPad2d", ((1, 2, 3, 0),)),
                       ("ReplicationPad1d", ((3, 1),)), ("ReplicationPad2d", (2,)), ("CircularPad1d", (2,)),
                       ("CircularPad2d", ((1, 2, 0, 3),))]:
        theirs, ours = getattr(torch.nn, name)(*args), getattr(mt.nn, name)(*args)
        assert repr(ours) == repr(theirs)
        data = x[0] if name.endswith("1d") else x
        assert_like_torch(theirs, ours, data)


# ----- convolutions -----

def test_conv_transpose2d_like_torch():
    for rng, _ in battery(0, 60):
        groups = int(rng.choice([1, 2]))
        stride, dilation = tuple(int(v) for v in rng.integers(1, 4, 2)), tuple(int(v) for v in rng.integers(1, 3, 2))
        output_padding = tuple(int(rng.integers(0, max(s, d))) for s, d in zip(stride, dilation))
        x = rng.standard_normal((2, 2 * groups, int(rng.integers(1, 6)), int(rng.integers(1, 6))))
        w = rng.standard_normal((2 * groups, int(rng.integers(1, 3)), *rng.integers(1, 4, 2)))
        b = rng.standard_normal(w.shape[1] * groups)
        assert_like_torch(tF.conv_transpose2d, F.conv_transpose2d, x, w, b, stride=stride,
                          padding=tuple(int(v) for v in rng.integers(0, 3, 2)), output_padding=output_padding,
                          groups=groups, dilation=dilation)


def test_conv1d_and_conv_transpose1d_like_torch():
    for rng, i in battery(1, 40):
        x = rng.standard_normal((2, 4, int(rng.integers(3, 9))))
        k, stride, dilation = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
        padding = "same" if i % 5 == 0 else int(rng.integers(0, 3))
        assert_like_torch(tF.conv1d, F.conv1d, x, rng.standard_normal((4, 2, k)), rng.standard_normal(4),
                          stride=1 if padding == "same" else stride, padding=padding, dilation=dilation, groups=2)
        assert_like_torch(tF.conv_transpose1d, F.conv_transpose1d, x, rng.standard_normal((4, 3, k)), rng.standard_normal(3),
                          stride=stride, padding=int(rng.integers(0, 2)), output_padding=stride - 1, dilation=dilation)
    assert_like_torch(tF.conv1d, F.conv1d, np.ones((3, 5)), np.ones((2, 3, 3)))  # unbatched
    assert_like_torch(tF.conv1d, F.conv1d, np.ones((1, 3, 2)), np.ones((2, 3, 3)))  # kernel larger than the input
    assert_like_torch(tF.conv1d, F.conv1d, np.ones((1, 3, 5, 5)), np.ones((2, 3, 3)))
    assert_like_torch(tF.conv_transpose2d, F.conv_transpose2d, np.ones((1, 3, 5, 5)), np.ones((2, 3, 3, 3)))
    assert_like_torch(tF.conv_transpose2d, F.conv_transpose2d, np.ones((1, 2, 5, 5)), np.ones((2, 3, 3, 3)), stride=2,
                      output_padding=2)


def _module_pair(name, *args, **kwargs):
    """The torch module and ours built with the same arguments, ours loaded with torch's state."""
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(mt.nn, name)(*args, **kwargs).double()
    state = theirs.state_dict()
    assert list(ours.state_dict()) == list(state)
    for key, value in state.items():
        assert tuple(ours.state_dict()[key].shape) == tuple(value.shape), key
    ours.load_state_dict({key: mt.tensor(value.numpy()) for key, value in state.items()})
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")
    return theirs, ours


def _parameters_like_torch(theirs, ours):
    for (name, t), (our_name, m) in zip(theirs.named_parameters(), ours.named_parameters()):
        assert name == our_name
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=1e-8, err_msg=name)


@pytest.mark.parametrize("name, args, kwargs, shape", [
    ("Conv1d", (4, 6, 3), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, (2, 4, 9)),
    ("Conv1d", (3, 2, 4), {"padding": "same", "padding_mode": "reflect", "bias": False}, (2, 3, 7)),
    ("Conv1d", (3, 2, 3), {"padding": 2, "padding_mode": "circular"}, (3, 6)),
    ("Conv2d", (3, 4, (3, 2)), {"padding": (2, 1), "padding_mode": "replicate"}, (2, 3, 5, 6)),
    ("Conv2d", (2, 4, 3), {"padding": "same", "padding_mode": "circular", "dilation": 2}, (1, 2, 6, 6)),
    ("ConvTranspose1d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, (3, 2)), {"stride": 2, "groups": 2, "dilation": (1, 2), "bias": False}, (2, 4, 3, 4)),
    ("ConvTranspose2d", (2, 3, 4), {"stride": 2, "padding": 1}, (2, 4, 4)),
])
def test_conv_modules_like_torch(name, args, kwargs, shape):
    theirs, ours = _module_pair(name, *args, **kwargs)
    assert_like_torch(theirs, ours, np.random.default_rng(0).standard_normal(shape))
    _parameters_like_torch(theirs, ours)


def test_conv_transpose_output_size_and_default_init():
    theirs, ours = _module_pair("ConvTranspose2d", 3, 2, 3, stride=3, padding=1)
    x = np.random.default_rng(0).standard_normal((1, 3, 4, 4))
    for size in ([10, 10], [11, 12], (1, 2, 12, 10)):
        assert_like_torch(lambda v: theirs(v, output_size=size), lambda v: ours(v, output_size=size), x)
    assert_like_torch(lambda v: theirs(v, output_size=[13, 10]), lambda v: ours(v, output_size=[13, 10]), x)
    for layer in (mt.nn.ConvTranspose2d(8, 4, 3), mt.nn.Conv1d(8, 4, 3)):
        bound = 1 / np.sqrt(layer.weight.shape[1] * int(np.prod(layer.weight.shape[2:])))  # PyTorch's fan_in
        assert float(layer.weight.abs().max()) <= bound and float(layer.bias.abs().max()) <= bound


def test_conv_constructor_errors_like_torch():
    for name, args, kwargs in [("Conv1d", (3, 4, 2), {"groups": 2}), ("Conv1d", (2, 4, 2), {"padding": "full"}),
                               ("Conv1d", (2, 4, 2), {"padding": "same", "stride": 2}),
                               ("Conv2d", (2, 4, 2), {"padding_mode": "mirror"}),
                               ("ConvTranspose2d", (2, 4, 2), {"padding_mode": "reflect"})]:
        with pytest.raises(Exception):
            getattr(torch.nn, name)(*args, **kwargs)
        with pytest.raises(ValueError):
            getattr(mt.nn, name)(*args, **kwargs)


# ----- pooling -----

def test_one_dimensional_and_adaptive_pooling_like_torch():
    for rng, i in battery(2, 20):
        x = np.round(rng.standard_normal((2, 3, int(rng.integers(1, 9)))), 1)
        k, stride, padding = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(0, 2))
        assert_like_torch(tF.max_pool1d, F.max_pool1d, x, k, stride=stride, padding=padding, ceil_mode=bool(i % 2),
                          return_indices=bool(i % 3))
        assert_like_torch(tF.max_pool1d_with_indices, F.max_pool1d_with_indices, x[0], k, stride=stride)
        assert_like_torch(tF.avg_pool1d, F.avg_pool1d, x, k, stride=stride, padding=padding, ceil_mode=bool(i % 2),
                          count_include_pad=bool(i % 3))
        assert_like_torch(tF.adaptive_avg_pool1d, F.adaptive_avg_pool1d, x, int(rng.integers(1, 8)))
        assert_like_torch(tF.adaptive_max_pool1d, F.adaptive_max_pool1d, x, int(rng.integers(1, 8)), return_indices=True)
        image = np.round(rng.standard_normal((2, 3, *rng.integers(1, 8, 2))), 1)
        size = tuple(int(v) for v in rng.integers(1, 8, 2))
        assert_like_torch(tF.adaptive_max_pool2d, F.adaptive_max_pool2d, image, size, return_indices=bool(i % 2))
        assert_like_torch(tF.adaptive_max_pool2d_with_indices, F.adaptive_max_pool2d_with_indices, image[0], size[0])
        assert_like_torch(tF.max_pool2d_with_indices, F.max_pool2d_with_indices, image, k, stride=stride, padding=padding)
        assert_like_torch(tF.adaptive_max_pool2d, F.adaptive_max_pool2d, image, (None, size[1]))


def test_adaptive_max_pool_takes_the_last_nan_as_torch():
    x = np.array([[[1.0, np.nan, 3.0, np.nan, 0.5]]])
    assert_like_torch(tF.adaptive_max_pool1d, F.adaptive_max_pool1d, x, 1, return_indices=True, grad=False)


def test_lp_pooling_like_torch():
    for rng, i in battery(3, 20):
        image = np.abs(rng.standard_normal((2, 2, *rng.integers(2, 7, 2)))) + 0.1
        p = float(rng.choice([1.0, 2.0, 3.5]))
        kernel = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        stride = None if i % 2 else int(rng.integers(1, 3))
        assert_like_torch(tF.lp_pool2d, F.lp_pool2d, image, p, kernel, stride=stride, ceil_mode=bool(i % 3))
        assert_like_torch(tF.lp_pool1d, F.lp_pool1d, image[:, :, 0], p, kernel[0], stride=stride)


def test_fractional_max_pool_like_torch():
    for rng, _ in battery(4, 30):
        image = np.round(rng.standard_normal((2, 3, *rng.integers(2, 9, 2))), 1)
        samples = rng.random((2, 3, 2))
        kernel = int(rng.integers(1, 3))
        size = (int(rng.integers(1, 5)), int(rng.integers(1, 5)))
        assert_like_torch(tF.fractional_max_pool2d, F.fractional_max_pool2d, image, kernel, output_size=size,
                          return_indices=True, _random_samples=samples)
    with pytest.raises(ValueError, match="output_size or an output_ratio"):
        F.fractional_max_pool2d(mt.ones(1, 1, 4, 4), 2)
    pool = mt.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
    assert pool(mt.randn(2, 3, 10, 12)).shape == (2, 3, 5, 6)


def test_max_unpool_like_torch():
    for rng, _ in battery(5, 20):
        image = rng.standard_normal((2, 3, *rng.integers(2, 8, 2)))
        k, stride = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        padding = int(rng.integers(0, k // 2 + 1))
        values, indices = tF.max_pool2d(torch.tensor(image), k, stride=stride, padding=padding, return_indices=True)
        assert_like_torch(tF.max_unpool2d, F.max_unpool2d, values.numpy(), indices.numpy(), k, stride=stride, padding=padding)
        values, indices = tF.max_pool1d(torch.tensor(image[:, :, 0]), k, stride=stride, return_indices=True)
        assert_like_torch(tF.max_unpool1d, F.max_unpool1d, values.numpy(), indices.numpy(), k, stride=stride)
    values, indices = tF.max_pool2d(torch.randn(1, 2, 5, 5, dtype=torch.float64), 2, return_indices=True)
    for bad in (dict(output_size=(7, 7)), dict(output_size=(5, 5, 5))):
        assert_like_torch(tF.max_unpool2d, F.max_unpool2d, values.numpy(), indices.numpy(), 2, **bad)
    assert_like_torch(tF.max_unpool2d, F.max_unpool2d, values.numpy(), indices.numpy() + 100, 2)
    assert_like_torch(tF.max_unpool2d, F.max_unpool2d, values.numpy(), indices.numpy().astype(np.float64), 2)


@pytest.mark.parametrize("name, args, kwargs, shape", [
    ("MaxPool1d", (3,), {"stride": 2, "padding": 1}, (2, 3, 8)),
    ("AvgPool1d", (2,), {"ceil_mode": True, "count_include_pad": False}, (2, 3, 7)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", ((2, None),), {}, (2, 3, 5, 4)),
    ("LPPool1d", (2, 3), {"stride": 2}, (2, 3, 7)),
    ("LPPool2d", (1.5, (2, 3)), {}, (2, 3, 5, 6)),
])
def test_pooling_modules_like_torch(name, args, kwargs, shape):
    theirs, ours = getattr(torch.nn, name)(*args, **kwargs), getattr(mt.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    x = np.abs(np.random.default_rng(0).standard_normal(shape)) + 0.1
    assert_like_torch(theirs, ours, x)


def test_unpool_modules_like_torch():
    for name, pool_name, shape in [("MaxUnpool1d", "MaxPool1d", (2, 3, 8)), ("MaxUnpool2d", "MaxPool2d", (2, 3, 6, 4))]:
        theirs, ours = getattr(torch.nn, name)(2), getattr(mt.nn, name)(2)
        assert repr(ours) == repr(theirs)
        values, indices = getattr(torch.nn, pool_name)(2, return_indices=True)(torch.randn(*shape, dtype=torch.float64))
        assert_like_torch(theirs, ours, values.numpy(), indices.numpy())


# ----- resampling -----

def _interpolation_cases():
    cases = []
    for mode, rank in [("nearest", 3), ("nearest", 4), ("nearest", 5), ("nearest-exact", 4), ("linear", 3), ("bilinear", 4),
                       ("bicubic", 4), ("trilinear", 5), ("area", 3), ("area", 4)]:
        for align_corners in ([None] if mode in ("nearest", "nearest-exact", "area") else [False, True]):
            for antialias in ([False, True] if mode in ("bilinear", "bicubic") else [False]):
                cases.append((mode, rank, align_corners, antialias))
    return cases


@pytest.mark.parametrize("mode, rank, align_corners, antialias", _interpolation_cases())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_like_torch(mode, rank, align_corners, antialias, dtype):
    rng = np.random.default_rng(rank)
    for i in range(6):
        shape = (2, 2) + tuple(int(v) for v in rng.integers(1, 8, rank - 2))
        if i % 2:
            kwargs = {"size": tuple(int(v) for v in rng.integers(2 if antialias else 1, 11, rank - 2))}
        else:
            kwargs = {"scale_factor": tuple(float(v) for v in rng.choice([0.5, 0.7, 1.0, 1.3, 2.0, 2.5], rank - 2))}
            kwargs["recompute_scale_factor"] = bool(i % 4)
        if antialias and (kwargs.get("size", (2, 2))[-1] == 1 or min(shape[2:]) < 2):
            continue  # PyTorch's antialiased kernel mis-resizes the height when the output width is 1
        x = rng.standard_normal(shape).astype(dtype)
        assert_like_torch(tF.interpolate, F.interpolate, x, mode=mode, align_corners=align_corners, antialias=antialias,
                          atol=2e-5 if dtype == np.float32 else 1e-10, **kwargs)


def test_interpolate_lanczos_integers_and_errors():
    x = np.random.default_rng(0).standard_normal((1, 2, 9, 7))
    assert_like_torch(tF.interpolate, F.interpolate, x, size=(4, 11), mode="lanczos", antialias=True)
    got = F.interpolate(mt.arange(8).reshape(1, 1, 8), size=5)
    assert got.dtype == mt.int64 and got.tolist() == [[[0, 1, 3, 4, 6]]]
    x3 = np.ones((1, 1, 4))
    for kwargs in [dict(size=3, scale_factor=2), dict(), dict(size=(2, 2)), dict(scale_factor=(2, 2)),
                   dict(size=3, align_corners=True), dict(size=3, mode="bilinear"), dict(size=3, mode="linear", antialias=True),
                   dict(size=3, recompute_scale_factor=True), dict(size=3, mode="foo"), dict(size=0), dict(scale_factor=0.1)]:
        assert_like_torch(tF.interpolate, F.interpolate, x3, **kwargs)
    assert_like_torch(tF.interpolate, F.interpolate, np.ones((4, 4)), size=2)


def test_half_precision_is_resampled_in_float32_and_stays_half():
    x = np.random.default_rng(0).standard_normal((1, 2, 5)).astype(np.float16)
    assert_like_torch(tF.interpolate, F.interpolate, x, size=8, mode="linear", atol=2e-3, grad=False)
    assert_like_torch(tF.pad, F.pad, x, (2, 1), mode="reflect", grad=False)


def test_interpolate_keeps_non_finite_values_local():
    x = np.array([[[0.0, 1.0, np.inf, 3.0, 4.0, 5.0]]])
    assert_like_torch(tF.interpolate, F.interpolate, x, size=12, mode="linear", grad=False)
    assert_like_torch(tF.interpolate, F.interpolate, x, size=4, mode="nearest", grad=False)


def test_deprecated_upsample_functions_warn_and_match():
    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    for name, kwargs in [("upsample", {"scale_factor": 2, "mode": "bilinear"}), ("upsample_nearest", {"size": (5, 7)}),
                         ("upsample_bilinear", {"scale_factor": 2})]:
        with pytest.warns(UserWarning, match="deprecated"):
            getattr(F, name)(mt.tensor(x), **kwargs)
        assert_like_torch(getattr(tF, name), getattr(F, name), x, **kwargs)


@pytest.mark.parametrize("name, args, kwargs, shape", [
    ("Upsample", (), {"scale_factor": 2}, (1, 2, 3, 4)),
    ("Upsample", ((5, 7),), {"mode": "bilinear", "align_corners": True}, (1, 2, 3, 4)),
    ("Upsample", (), {"scale_factor": (1.5, 2), "mode": "bicubic"}, (1, 2, 3, 4)),
    ("Upsample", (9,), {"mode": "linear"}, (2, 3, 4)),
    ("UpsamplingNearest2d", (), {"scale_factor": 3}, (1, 2, 2, 3)),
    ("UpsamplingBilinear2d", ((4, 5),), {}, (1, 2, 2, 3)),
    ("PixelShuffle", (2,), {}, (2, 8, 3, 4)),
    ("PixelUnshuffle", (2,), {}, (2, 2, 4, 6)),
    ("ChannelShuffle", (3,), {}, (2, 6, 2, 2)),
    ("Unfold", ((2, 3),), {"dilation": (1, 2), "padding": 1, "stride": 2}, (2, 3, 5, 7)),
    ("Fold", ((5, 6), 2), {"stride": 1}, (2, 12, 20)),
    ("Unflatten", (1, (2, -1)), {}, (3, 8, 2)),
])
def test_resampling_modules_like_torch(name, args, kwargs, shape):
    theirs, ours = getattr(torch.nn, name)(*args, **kwargs), getattr(mt.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert_like_torch(theirs, ours, np.random.default_rng(0).standard_normal(shape))


def test_shuffle_fold_and_unfold_functions_like_torch():
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 6))
    for kwargs in [dict(kernel_size=2), dict(kernel_size=(3, 2), dilation=(1, 2), padding=(1, 2), stride=(2, 1))]:
        assert_like_torch(tF.unfold, F.unfold, x, **kwargs)
        columns = tF.unfold(torch.tensor(x), **kwargs).numpy()
        assert_like_torch(tF.fold, F.fold, columns, (7, 6), **kwargs)
        assert_like_torch(tF.fold, F.fold, columns[0], (7, 6), **kwargs)
    for bad in [dict(kernel_size=3, stride=0), dict(kernel_size=(2, 2, 2)), dict(kernel_size=2, padding=-1), dict(kernel_size=8)]:
        assert_like_torch(tF.unfold, F.unfold, x, **bad)
    assert_like_torch(tF.fold, F.fold, np.ones((2, 13, 9)), 4, 2)
    assert_like_torch(tF.fold, F.fold, np.ones((2, 12, 8)), 4, 2)
    assert_like_torch(tF.pixel_shuffle, F.pixel_shuffle, np.random.default_rng(1).standard_normal((2, 3, 8, 2, 5)), 2)
    assert_like_torch(tF.pixel_shuffle, F.pixel_shuffle, np.ones((2, 9, 2, 2)), 3)
    assert_like_torch(tF.pixel_shuffle, F.pixel_shuffle, np.ones((2, 8, 2, 2)), 3)
    assert_like_torch(tF.pixel_unshuffle, F.pixel_unshuffle, np.ones((3, 4, 6)), 2)
    assert_like_torch(tF.channel_shuffle, F.channel_shuffle, np.arange(24.0).reshape(1, 6, 2, 2), 4)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_like_torch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(len(mode) + len(padding_mode))
    for dtype in (np.float64, np.float32):
        for _ in range(3):
            image = rng.standard_normal((2, 3, *rng.integers(1, 6, 2))).astype(dtype)
            grid = rng.uniform(-1.6, 1.6, (2, 4, 5, 2)).astype(dtype)
            if mode == "nearest":  # PyTorch gives the grid a zero gradient, minitorch none: compare the values only
                assert_like_torch(tF.grid_sample, F.grid_sample, image, grid, mode=mode, padding_mode=padding_mode,
                                  align_corners=align_corners, atol=1e-5, grad=False)
                continue
            assert_like_torch(tF.grid_sample, F.grid_sample, image, grid, mode=mode, padding_mode=padding_mode,
                              align_corners=align_corners, atol=1e-4 if dtype == np.float32 else 1e-9)


def test_affine_grid_and_errors_like_torch():
    theta = np.random.default_rng(0).standard_normal((2, 2, 3))
    for align_corners in (False, True):
        assert_like_torch(tF.affine_grid, F.affine_grid, theta, (2, 3, 4, 5), align_corners=align_corners)
    for size in [(2, 3, 4), (2, 3, 0, 5)]:
        assert_like_torch(tF.affine_grid, F.affine_grid, theta, size, align_corners=False)
    assert_like_torch(tF.affine_grid, F.affine_grid, theta[:, :, :2], (2, 3, 4, 5), align_corners=False)
    assert_like_torch(tF.affine_grid, F.affine_grid, np.ones((2, 2, 3), np.int64), (2, 3, 4, 5), align_corners=False)
    with pytest.warns(UserWarning, match="align_corners=False"):
        F.affine_grid(mt.tensor(theta), (2, 3, 4, 5))
    image, grid = np.ones((2, 3, 4, 5)), np.zeros((2, 6, 7, 2))
    for kwargs in [dict(mode="foo"), dict(padding_mode="foo")]:
        assert_like_torch(tF.grid_sample, F.grid_sample, image, grid, align_corners=False, **kwargs)
    for bad_image, bad_grid in [(image, grid[:1]), (image, grid[..., :1]), (image[0], grid[0]), (image.astype(np.float32), grid)]:
        assert_like_torch(tF.grid_sample, F.grid_sample, bad_image, bad_grid, align_corners=False)


def test_a_spatial_transformer_learns_a_shift():
    mt.manual_seed(0)
    image = mt.tensor(np.kron(np.eye(4), np.ones((2, 2)))[None, None], dtype=mt.float32)
    target = F.grid_sample(image, F.affine_grid(mt.tensor([[[1.0, 0.0, 0.25], [0.0, 1.0, 0.0]]]), (1, 1, 8, 8), False),
                           align_corners=False)
    theta = mt.nn.Parameter(mt.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]))
    optimizer = mt.optim.Adam([theta], lr=0.02)
    for _ in range(150):
        optimizer.zero_grad()
        loss = ((F.grid_sample(image, F.affine_grid(theta, (1, 1, 8, 8), False), align_corners=False) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
    assert abs(theta[0, 0, 2].item() - 0.25) < 0.02 and loss.item() < 1e-4


def test_torch_function_helpers():
    class Logged:
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return "handled"

    assert not F.has_torch_function((mt.ones(1), 1.0)) and not F.has_torch_function_unary(mt.ones(1))
    assert F.has_torch_function_variadic(mt.ones(1), Logged())
    assert F.handle_torch_function(F.relu, (Logged(),), Logged()) == "handled" and Logged.calls == ["relu"]
    with pytest.raises(TypeError, match="no implementation found"):
        F.handle_torch_function(F.relu, (mt.ones(1),), mt.ones(1))
    pool = F.boolean_dispatch("return_indices", 6, False, lambda *a, **k: F.max_pool2d_with_indices(*a, **k),
                              lambda *a, **k: F.max_pool2d(*a, **k), None, "pool")
    x = mt.arange(16.0).reshape(1, 1, 4, 4)
    assert isinstance(pool(x, 2, return_indices=True), tuple) and pool(x, 2).shape == (1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="only one function"):
        F.boolean_dispatch("flag", 0, False, F.max_pool2d, F.avg_pool2d, None, None)
    with pytest.raises(AssertionError, match="kernel_size must"):
        F.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be an int or a pair")


# ----- normalization -----

def test_normalization_functions_like_torch():
    for rng, _ in battery(6, 30):
        shape = (int(rng.integers(1, 4)), 4) + tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(0, 3))))
        x = rng.standard_normal(shape)
        groups = int(rng.choice([1, 2, 3, 4]))
        assert_like_torch(tF.group_norm, F.group_norm, x, groups, rng.standard_normal(4), rng.standard_normal(4), eps=1e-3)
        assert_like_torch(tF.instance_norm, F.instance_norm, x)
        assert_like_torch(tF.instance_norm, F.instance_norm, x, None, None, rng.standard_normal(4), rng.standard_normal(4))
        assert_like_torch(tF.rms_norm, F.rms_norm, x, shape[-1:], rng.standard_normal(shape[-1:]))
        assert_like_torch(tF.rms_norm, F.rms_norm, x, shape[-2:], eps=1e-3)
        zero_row = x.copy()
        zero_row[0] = 0
        assert_like_torch(tF.normalize, F.normalize, zero_row, p=float(rng.choice([1.0, 2.0, 3.0, np.inf])),
                          dim=int(rng.integers(0, len(shape))))
        assert_like_torch(tF.local_response_norm, F.local_response_norm, x, int(rng.integers(1, 5)), alpha=0.1, beta=0.7, k=2.0)
    assert_like_torch(tF.rms_norm, F.rms_norm, np.ones((2, 3), np.float32), (2,))
    assert_like_torch(tF.local_response_norm, F.local_response_norm, np.ones((2, 3)), 2)


def test_instance_norm_running_statistics_like_torch():
    rng = np.random.default_rng(7)
    theirs = [torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)]
    ours = [mt.zeros(4, dtype=mt.float64), mt.ones(4, dtype=mt.float64)]
    for _ in range(3):
        x, w, b = rng.standard_normal((3, 4, 5)), rng.standard_normal(4), rng.standard_normal(4)
        expected = tF.instance_norm(torch.tensor(x), *theirs, torch.tensor(w), torch.tensor(b), momentum=0.3)
        got = F.instance_norm(mt.tensor(x), *ours, mt.tensor(w), mt.tensor(b), momentum=0.3)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-10)
        for t, m in zip(theirs, ours):
            np.testing.assert_allclose(m.numpy(), t.numpy(), atol=1e-12)
    expected = tF.instance_norm(torch.tensor(x), *theirs, use_input_stats=False)
    np.testing.assert_allclose(F.instance_norm(mt.tensor(x), *ours, use_input_stats=False).numpy(), expected.numpy())


@pytest.mark.parametrize("name, args, kwargs, shape, train", [
    ("GroupNorm", (2, 6), {}, (3, 6, 4), True),
    ("GroupNorm", (3, 6), {"affine": False, "eps": 1e-3}, (3, 6, 2, 2), True),
    ("GroupNorm", (2, 4), {"bias": False}, (2, 4), True),
    ("InstanceNorm1d", (3,), {}, (2, 3, 5), True),
    ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (3, 5), True),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True, "momentum": 0.5}, (2, 3, 4, 4), True),
    ("InstanceNorm2d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 4, 4), False),
    ("LocalResponseNorm", (3,), {"alpha": 0.5}, (2, 5, 3, 3), True),
    ("RMSNorm", (4,), {}, (2, 3, 4), True),
    ("RMSNorm", ((3, 4),), {"eps": 1e-4, "elementwise_affine": False}, (2, 3, 4), True),
    ("Bilinear", (3, 4, 5), {}, None, True),
])
def test_normalization_modules_like_torch(name, args, kwargs, shape, train):
    theirs, ours = _module_pair(name, *args, **kwargs)
    theirs.train(train)
    ours.train(train)
    rng = np.random.default_rng(0)
    if name == "Bilinear":
        assert_like_torch(theirs, ours, rng.standard_normal((2, 3)), rng.standard_normal((2, 4)))
    else:
        for _ in range(2):  # twice: the running statistics move
            assert_like_torch(theirs, ours, rng.standard_normal(shape))
        for key, value in theirs.state_dict().items():
            np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), atol=1e-12, err_msg=key)
    if list(theirs.parameters()):
        _parameters_like_torch(theirs, ours)


def test_instance_norm_checks_like_torch():
    norm = mt.nn.InstanceNorm1d(3, affine=True)
    with pytest.raises(ValueError, match="num_features"):
        norm(mt.ones(2, 4, 5))
    with pytest.warns(UserWarning, match="does not match num_features"):
        mt.nn.InstanceNorm1d(3)(mt.randn(2, 4, 5))
    with pytest.raises(ValueError, match="expected 2D or 3D"):
        norm(mt.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        F.instance_norm(mt.ones(2, 3, 1))
    assert_like_torch(tF.group_norm, F.group_norm, np.ones((1, 4)), 4)
    assert_like_torch(tF.group_norm, F.group_norm, np.ones((2, 4, 3)), 3)


def test_default_initialisation_matches_torch_distributions():
    mt.manual_seed(0)
    bilinear = mt.nn.Bilinear(16, 4, 300)
    bound = 1 / np.sqrt(16)
    assert float(bilinear.weight.abs().max()) <= bound
    assert abs(float(bilinear.weight.std()) - bound / np.sqrt(3)) < 0.01
    assert mt.nn.GroupNorm(2, 4).weight.tolist() == [1.0] * 4 and mt.nn.RMSNorm(3).weight.tolist() == [1.0] * 3


# ----- containers -----

def test_parameter_list_like_torch():
    values = [np.ones((2, 3)), np.zeros(2)]
    theirs = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(values[0])), torch.tensor(values[1]), 3])
    ours = mt.nn.ParameterList([mt.nn.Parameter(mt.tensor(values[0])), mt.tensor(values[1]), 3])
    assert repr(ours) == repr(theirs).replace("torch.", "minitorch.")
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["0", "1"]
    assert [type(v).__name__ for v in ours] == [type(v).__name__ for v in theirs]
    assert ours[1].requires_grad and ours[-1] == 3 and len(ours[1:]) == 2
    ours.append(mt.ones(1))
    ours += [mt.ones(2)]
    assert len(ours) == 5 and [name for name, _ in ours.named_parameters()] == ["0", "1", "3", "4"]
    ours[0] = mt.zeros(1)
    assert isinstance(ours[0], mt.nn.Parameter) and ours[0].shape == (1,)
    with pytest.raises(IndexError):
        ours[5]
    with pytest.raises(TypeError):
        ours.extend(mt.ones(2))
    with pytest.raises(RuntimeError, match="should not be called"):
        ours(mt.ones(1))
    model = mt.nn.Module()
    model.weights = mt.nn.ParameterList([mt.ones(2)])
    assert list(model.state_dict()) == ["weights.0"]


def test_parameter_dict_like_torch():
    theirs = torch.nn.ParameterDict({"b": torch.ones(2), "a": torch.nn.Parameter(torch.zeros(3))})
    ours = mt.nn.ParameterDict({"b": mt.ones(2), "a": mt.nn.Parameter(mt.zeros(3))})
    assert list(ours.keys()) == list(theirs.keys()) == ["a", "b"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(isinstance(v, mt.nn.Parameter) for v in ours.values())
    ours.update([("z", mt.ones(1)), ("c", mt.ones(1))])
    assert list(ours) == ["a", "b", "z", "c"] and "z" in ours and len(ours) == 4
    assert ours.pop("z").shape == (1,) and "z" not in ours and ours.get("z") is None
    assert ours.popitem()[0] == "c"
    merged = ours | {"d": mt.ones(4)}
    assert list(merged) == ["a", "b", "d"] and list(ours) == ["a", "b"]
    assert ours.setdefault("e", mt.ones(5)).shape == (5,)
    assert list(reversed(ours)) == ["e", "b", "a"] and list(ours.copy()) == ["a", "b", "e"]
    ours.clear()
    assert len(ours) == 0 and list(ours.parameters()) == []
    with pytest.raises(TypeError, match="not a string"):
        ours[1] = mt.ones(1)
    with pytest.raises(ValueError, match="length 3"):
        ours.update([("a", 1, 2)])
    with pytest.raises(KeyError):
        ours["missing"]


def test_parameters_of_a_parameter_list_train():
    weights = mt.nn.ParameterList([mt.ones(3), mt.ones(3)])
    optimizer = mt.optim.SGD(weights.parameters(), lr=0.5)
    (weights[0] * weights[1]).sum().backward()
    optimizer.step()
    assert weights[0].tolist() == [0.5, 0.5, 0.5]


# ----- lazy modules -----

@pytest.mark.parametrize("name, plain, args, shape", [
    ("LazyLinear", "Linear", (4,), (2, 7)),
    ("LazyConv1d", "Conv1d", (4, 3), (2, 5, 9)),
    ("LazyConv2d", "Conv2d", (4, 3), (5, 8, 8)),
    ("LazyConvTranspose1d", "ConvTranspose1d", (4, 3), (2, 5, 9)),
    ("LazyConvTranspose2d", "ConvTranspose2d", (4, 3), (2, 5, 6, 6)),
    ("LazyBatchNorm1d", "BatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", "BatchNorm2d", (), (4, 3, 2, 2)),
    ("LazyInstanceNorm1d", "InstanceNorm1d", (), (2, 3, 5)),
    ("LazyInstanceNorm2d", "InstanceNorm2d", (), (2, 3, 4, 4)),
])
def test_lazy_modules_become_their_plain_twins(name, plain, args, shape):
    theirs, ours = getattr(torch.nn, name)(*args), getattr(mt.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert isinstance(ours.weight, mt.nn.UninitializedParameter) and ours.has_uninitialized_params()
    with pytest.raises(RuntimeError, match="uninitialized"):
        ours.weight.shape
    assert list(ours.state_dict()) == list(theirs.state_dict())
    before = list(ours.parameters())
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    theirs(torch.tensor(x))
    out = ours(mt.tensor(x))
    assert type(ours).__name__ == plain and type(ours.weight) is mt.nn.Parameter
    assert repr(ours) == repr(theirs)
    assert [p is q for p, q in zip(before, ours.parameters())] == [True] * len(before)  # optimizers keep them
    for key, value in theirs.state_dict().items():
        assert tuple(ours.state_dict()[key].shape) == tuple(value.shape), key
    ours.load_state_dict({key: mt.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    theirs.eval()
    ours.eval()
    assert_like_torch(theirs, ours, x, atol=1e-5)
    assert out.shape == tuple(theirs(torch.tensor(x)).shape)


def test_lazy_instance_norm_reads_the_channels_of_an_unbatched_input():
    # PyTorch 2.13 reads dimension 1 even for an unbatched input, then rejects its own guess
    norm = mt.nn.LazyInstanceNorm1d()
    assert norm(mt.randn(3, 5)).shape == (3, 5) and norm.num_features == 3


def test_lazy_module_loads_a_state_dict_and_reports_what_is_missing():
    source = mt.nn.Linear(3, 2)
    lazy = mt.nn.LazyLinear(2)
    lazy.load_state_dict(source.state_dict())
    assert not lazy.has_uninitialized_params() and lazy.weight.tolist() == source.weight.tolist()
    assert lazy(mt.ones(1, 3)).tolist() == source(mt.ones(1, 3)).tolist() and lazy.in_features == 3
    assert mt.nn.LazyLinear(2).load_state_dict(mt.nn.LazyLinear(2).state_dict()) == ([], [])
    with pytest.raises(RuntimeError, match="Missing key"):
        mt.nn.LazyLinear(2).load_state_dict({"weight": mt.ones(2, 3)})
    model = mt.nn.Sequential(mt.nn.LazyConv2d(4, 3), mt.nn.ReLU(), mt.nn.Flatten(), mt.nn.LazyLinear(2))
    optimizer = mt.optim.Adam(model.parameters())
    model(mt.randn(2, 3, 6, 6)).sum().backward()
    optimizer.step()
    assert model[3].in_features == 64 and model[0].weight.grad.shape == (4, 3, 3, 3)


def test_lazy_modules_copy_and_convert_before_their_first_call():
    model = mt.nn.Sequential(mt.nn.LazyLinear(3), mt.nn.ReLU()).double()
    twin = copy.deepcopy(model)
    assert isinstance(twin[0].weight, mt.nn.UninitializedParameter)
    assert twin(mt.ones(2, 5, dtype=mt.float64)).dtype == mt.float64 and twin[0].in_features == 5
    assert model[0].has_uninitialized_params() and model(mt.ones(2, 7, dtype=mt.float64)).shape == (2, 3)
    assert repr(model[0]) == "Linear(in_features=7, out_features=3, bias=True)"


# ----- nn.init -----

def test_eye_and_dirac_like_torch():
    for shape in [(3, 5), (4, 2)]:
        np.testing.assert_array_equal(mt.nn.init.eye_(mt.empty(*shape)).numpy(), torch.nn.init.eye_(torch.empty(*shape)).numpy())
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 2), 2), ((4, 4, 1, 3, 3), 2)]:
        expected = torch.nn.init.dirac_(torch.empty(*shape), groups=groups).numpy()
        np.testing.assert_array_equal(mt.nn.init.dirac_(mt.empty(*shape), groups=groups).numpy(), expected)
    for bad in [lambda init: init.eye_(mt.empty(2, 2, 2)), lambda init: init.dirac_(mt.empty(2, 2)),
                lambda init: init.dirac_(mt.empty(3, 2, 2), groups=2), lambda init: init.orthogonal_(mt.empty(3))]:
        with pytest.raises(ValueError):
            bad(mt.nn.init)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape):
    mt.manual_seed(0)
    w = mt.nn.init.orthogonal_(mt.empty(*shape), gain=2.0).numpy().reshape(shape[0], -1)
    gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(gram, 4 * np.eye(min(w.shape)), atol=1e-5)
    assert mt.nn.init.orthogonal_(mt.empty(0, 3)).shape == (0, 3)


def test_trunc_normal_and_sparse():
    mt.manual_seed(0)
    w = mt.nn.init.trunc_normal_(mt.empty(20000), mean=1.0, std=2.0, a=0.0, b=3.0).numpy()
    assert w.min() >= 0.0 and w.max() <= 3.0 and w.dtype == np.float32
    expected = torch.nn.init.trunc_normal_(torch.empty(200000), mean=1.0, std=2.0, a=0.0, b=3.0)
    assert abs(w.mean() - float(expected.mean())) < 0.03 and abs(w.std() - float(expected.std())) < 0.03
    with pytest.warns(UserWarning, match="more than 2 std"):
        mt.nn.init.trunc_normal_(mt.empty(3), mean=10.0)
    w = mt.nn.init.sparse_(mt.empty(10, 4), sparsity=0.3, std=0.5)
    assert (w == 0).sum(dim=0).tolist() == [3, 3, 3, 3]


# ----- a model built from these layers trains like its PyTorch twin -----

def _autoencoder(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1, padding_mode="reflect"), nn.GroupNorm(2, 4), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(4, 8, 3, padding=1, padding_mode="circular"), nn.InstanceNorm2d(8, affine=True),
        nn.ReLU(), nn.ConvTranspose2d(8, 4, 2, stride=2), nn.Upsample(scale_factor=2, mode="bilinear"),
        nn.ReplicationPad2d(1), nn.Conv2d(4, 4, 3), nn.PixelUnshuffle(2), nn.Identity(),
        nn.PixelShuffle(2), nn.Conv2d(4, 1, 1), nn.AdaptiveAvgPool2d(8),
    )


def test_a_model_of_spatial_layers_trains_like_its_torch_twin():
    theirs, ours = _autoencoder(torch.nn).double(), _autoencoder(mt.nn).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({key: mt.tensor(value.numpy()) for key, value in theirs.state_dict().items()})
    images = np.random.default_rng(0).standard_normal((4, 1, 8, 8))
    torch_optimizer = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    optimizer = mt.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    for _ in range(5):
        torch_optimizer.zero_grad()
        optimizer.zero_grad()
        expected = ((theirs(torch.tensor(images)) - torch.tensor(images)) ** 2).mean()
        loss = ((ours(mt.tensor(images)) - mt.tensor(images)) ** 2).mean()
        assert loss.item() == pytest.approx(expected.item(), rel=1e-9)
        expected.backward()
        loss.backward()
        torch_optimizer.step()
        optimizer.step()
