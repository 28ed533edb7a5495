"""Tensor creation, dtypes and promotion, ops' forward values, indexing, repr and errors."""
import numpy as np
import pytest

import minitorch as mt


def test_default_dtypes_follow_pytorch():
    assert mt.tensor([1.0, 2.0]).dtype == mt.float32
    assert mt.tensor([1, 2]).dtype == mt.int64
    assert mt.tensor([True]).dtype == mt.bool
    assert mt.tensor(np.zeros(2, np.float64)).dtype == mt.float64
    assert mt.zeros(2, 3).dtype == mt.float32 and mt.zeros(2, 3).shape == (2, 3)
    assert mt.ones((2, 3)).shape == (2, 3)
    assert mt.arange(5).dtype == mt.int64 and mt.arange(0.0, 1.0, 0.5).dtype == mt.float32
    assert mt.full((2,), 7).dtype == mt.int64 and mt.full((2,), 0.5).dtype == mt.float32
    assert mt.linspace(0, 1, 5).shape == (5,) and mt.eye(3).numpy().trace() == 3
    assert mt.randint(0, 10, (4,)).dtype == mt.int64
    assert mt.rand(2, 2).dtype == mt.float32 and mt.randn_like(mt.zeros(3, dtype=mt.float64)).dtype == mt.float64


def test_conversions():
    t = mt.tensor([1.7, -2.2])
    assert t.long().dtype == mt.int64 and t.double().dtype == mt.float64
    assert t.to(mt.int32).tolist() == [1, -2]
    assert t.bool().dtype == mt.bool and t.int().float().dtype == mt.float32



def test_the_tensor_class_called_directly_is_pytorchs_legacy_constructor():
    # sizes give that shape (old PyTorch layers write nn.Parameter(torch.Tensor(out, in)))
    assert mt.Tensor(2, 3).shape == (2, 3) and mt.Tensor(2, 3).dtype == mt.float32
    assert mt.Tensor(5).shape == (5,) and mt.Tensor(mt.Size([4, 1])).shape == (4, 1)
    assert mt.Tensor().shape == (0,)
    assert mt.nn.Parameter(mt.Tensor(3, 2)).shape == (3, 2)
    # data is copied into the default float dtype, whatever its own dtype
    assert mt.Tensor([1, 2]).dtype == mt.float32 and mt.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert mt.Tensor(np.array([1.5], dtype=np.float64)).dtype == mt.float32
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.Tensor([1]).dtype == mt.float64 and mt.Tensor(2).dtype == mt.float64
    finally:
        mt.set_default_dtype(mt.float32)
    # Karpathy's micrograd lecture
    x = mt.Tensor([2.0]).double()
    x.requires_grad = True
    (x * x).backward()
    assert x.grad.tolist() == [4.0] and x.dtype == mt.float64
    # mt.tensor keeps the data's dtype and makes 0-d tensors from numbers
    assert mt.tensor(3).shape == () and mt.tensor([1, 2]).dtype == mt.int64
    with pytest.raises(TypeError, match=r"Tensor\(\): expected sizes"):
        mt.Tensor(2, "a")


def test_type_without_a_dtype_names_the_type_and_with_one_converts():
    assert mt.tensor([1.0]).type() == "minitorch.FloatTensor"
    assert mt.tensor([1]).type() == "minitorch.LongTensor" and mt.tensor([True]).type() == "minitorch.BoolTensor"
    assert mt.tensor([1.0], dtype=mt.float64).type() == "minitorch.DoubleTensor"
    assert mt.tensor([1.7]).type(mt.int64).tolist() == [1]
    # PyTorch code names types as strings; a script run on minitorch still says "torch."
    assert mt.tensor([1.7]).type("torch.DoubleTensor").dtype == mt.float64
    assert mt.tensor([1]).type("minitorch.FloatTensor").dtype == mt.float32
    assert mt.tensor([1.0]).type(dtype=mt.float16, non_blocking=True).dtype == mt.float16
    with pytest.raises(ValueError, match="invalid type 'torch.cuda.FloatTensor'"):
        mt.tensor([1.0]).type("torch.cuda.FloatTensor")


@pytest.mark.parametrize("x, y, expected, dtype", [
    (1.0, 0.0, [1.0, 0.0], mt.float32),
    (1, 0, [1, 0], mt.int64),
    (1, 0.5, [1.0, 0.5], mt.float32),
    (True, False, [True, False], mt.bool),
    (True, 2, [1, 2], mt.int64),
])
def test_where_with_two_python_numbers_takes_their_dtype(x, y, expected, dtype):
    result = mt.where(mt.tensor([True, False]), x, y)
    assert result.dtype == dtype and result.tolist() == expected
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.where(mt.tensor([True]), x, y).dtype == (mt.float64 if dtype.is_floating_point else dtype)
    finally:
        mt.set_default_dtype(mt.float32)


def test_promotion_rules():
    f32, f64, i64 = mt.ones(2), mt.ones(2, dtype=mt.float64), mt.tensor([1, 2])
    assert (f32 + f64).dtype == mt.float64
    assert (i64 * 2.5).dtype == mt.float32  # a Python float promotes ints to the default float
    assert (f32 * mt.tensor(2.0, dtype=mt.float64)).dtype == mt.float32  # zero-dim loses to dimensioned
    assert (i64 + f32).dtype == mt.float32
    assert (i64 / i64).dtype == mt.float32  # true division
    assert (f32 * 2).dtype == mt.float32 and (i64 * 2).dtype == mt.int64
    assert (f32 < 1).dtype == mt.bool


def test_seed_gives_reproducible_numbers():
    mt.manual_seed(3)
    a = mt.randn(4)
    mt.manual_seed(3)
    assert np.array_equal(a.numpy(), mt.randn(4).numpy())


def test_numpy_interop():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = mt.from_numpy(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42  # from_numpy shares memory
    assert np.asarray(t).shape == (2, 3) and np.asarray(t, dtype=np.float64).dtype == np.float64
    assert mt.tensor(a)._data is not a  # tensor() copies
    with pytest.raises(RuntimeError, match="detach"):
        mt.ones(2, requires_grad=True).numpy()


@pytest.mark.parametrize(
    "fn, ref",
    [
        (lambda m, x: m.exp(x), np.exp),
        (lambda m, x: m.tanh(x), np.tanh),
        (lambda m, x: m.sigmoid(x), lambda x: 1 / (1 + np.exp(-x))),
        (lambda m, x: m.relu(x), lambda x: np.maximum(x, 0)),
        (lambda m, x: x.clamp(-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
        (lambda m, x: x.sum(dim=1, keepdim=True), lambda x: x.sum(axis=1, keepdims=True)),
        (lambda m, x: x.mean(dim=0), lambda x: x.mean(axis=0)),
        (lambda m, x: x.var(dim=1), lambda x: x.var(axis=1, ddof=1)),
        (lambda m, x: x.std(), lambda x: x.std(ddof=1)),
        (lambda m, x: x.logsumexp(dim=1), lambda x: np.log(np.exp(x).sum(axis=1))),
        (lambda m, x: x.softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)),
        (lambda m, x: x.log_softmax(dim=1), lambda x: x - np.log(np.exp(x).sum(axis=1, keepdims=True))),
        (lambda m, x: x.max(dim=1).values, lambda x: x.max(axis=1)),
        (lambda m, x: x.argmax(dim=1), lambda x: x.argmax(axis=1)),
        (lambda m, x: x.prod(dim=0), lambda x: x.prod(axis=0)),
        (lambda m, x: x.T @ x, lambda x: x.T @ x),
        (lambda m, x: x.permute(1, 0).reshape(-1), lambda x: x.T.reshape(-1)),
        (lambda m, x: x.unsqueeze(0).squeeze(0).flatten(), lambda x: x.reshape(-1)),
        (lambda m, x: m.where(x > 0, x, m.zeros_like(x)), lambda x: np.where(x > 0, x, 0)),
        (lambda m, x: m.cat([x, x], dim=1), lambda x: np.concatenate([x, x], axis=1)),
        (lambda m, x: m.stack([x, x], dim=0), lambda x: np.stack([x, x])),
        (lambda m, x: x.expand(2, 3, 4), lambda x: np.broadcast_to(x, (2, 3, 4))),
        (lambda m, x: x ** 2 - 3 / (x * x + 1), lambda x: x**2 - 3 / (x * x + 1)),
    ],
)
def test_forward_values_match_numpy(fn, ref):
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    out = fn(mt, mt.tensor(x))
    assert np.allclose(np.asarray(out), ref(x), rtol=1e-5, atol=1e-6)


def test_indexing_matches_numpy():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = mt.tensor(a)
    for index in [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 0), (slice(None, None, 2),),
                  ([0, 1], [2, 0]), (a > 10,), (slice(None), [0, 2], 1), (mt.tensor([1, 0]),)]:
        expected = a[tuple(i._data if isinstance(i, mt.Tensor) else i for i in (index if isinstance(index, tuple) else (index,)))]
        assert np.array_equal(np.asarray(t[index]), expected), index


def test_indexing_errors_are_clear():
    t = mt.ones(3, 2)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 3$"):  # PyTorch's words
        t[5]
    with pytest.raises(IndexError):
        t[[0, 7]]
    with pytest.raises(IndexError, match="valid indices"):
        t["a"]


def test_shape_mismatch_names_the_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"Add.*\(2, 3\).*\(4,\)"):
        mt.ones(2, 3) + mt.ones(4)
    with pytest.raises(ValueError, match=r"MatMul.*\(2, 3\).*\(2, 3\)"):
        mt.ones(2, 3) @ mt.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"Reshape.*\[4, 4\].*6"):
        mt.ones(2, 3).reshape(4, 4)
    with pytest.raises(RuntimeError, match="ConcatV2"):
        mt.cat([mt.ones(2, 3), mt.ones(3, 2)], dim=0)
    with pytest.raises(IndexError, match="dimension out of range"):
        mt.ones(2, 3).sum(dim=2)


def test_repr_looks_like_pytorch():
    assert repr(mt.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(mt.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(mt.tensor([0.5, 0.25], dtype=mt.float64)) == "tensor([0.5000, 0.2500], dtype=minitorch.float64)"
    assert repr(mt.tensor([1.0], requires_grad=True)) == "tensor([1.], requires_grad=True)"
    x = mt.tensor([1.0], requires_grad=True)
    assert repr(x * 2) == "tensor([2.], grad_fn=<MulBackward0>)"
    assert repr(mt.tensor(3.5)) == "tensor(3.5000)"


def test_python_conversions():
    assert float(mt.tensor(2.5)) == 2.5 and int(mt.tensor([3])) == 3
    assert mt.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert len(mt.ones(4, 2)) == 4 and mt.ones(4, 2).size(1) == 2 and mt.ones(4, 2).numel() == 8
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(mt.ones(2))
    with pytest.raises(RuntimeError, match="cannot be converted"):
        mt.ones(2).item()


def test_in_place_ops_under_no_grad():
    p = mt.ones(3, requires_grad=True)
    with mt.no_grad():
        p.mul_(2).add_(mt.ones(3), alpha=0.5).sub_(0.25)
        assert np.allclose(p.detach().numpy(), 2.25)
        p.zero_()
        p.copy_(mt.tensor([1.0, 2.0, 3.0]))
        p.fill_(4.0)
    assert np.allclose(p.detach().numpy(), 4.0)
    with pytest.raises(RuntimeError, match="copy_"):
        with mt.no_grad():
            p.copy_(mt.ones(4))


def test_deepcopy_gives_a_new_id_and_its_own_data():
    import copy

    t = mt.tensor([1.0, 2.0], requires_grad=True)
    c = copy.deepcopy(t)
    assert c._id != t._id and c.requires_grad and c.is_leaf
    c.detach().numpy()[0] = 5.0
    assert t.detach().numpy()[0] == 1.0
    (c * c).sum().backward()
    assert t.grad is None and c.grad.tolist() == [10.0, 4.0]
