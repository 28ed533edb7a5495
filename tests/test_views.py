"""Every view op either writes through to its base or raises: never a silent copy (issue 26).

PyTorch's view ops (its "Tensor Views" page: slicing, diagonal, as_strided, unfold, t, view, split, ...)
are walked one by one: the view is written into, and the base must show the write exactly as
PyTorch's does, or the write must raise where PyTorch's raises. With autograd, a write through a
view must rewrite the base's history: the gradient of a loss on the base matches PyTorch's.
"""
import numpy as np
import pytest

import minitorch as mt

# name -> how to take the view of a (3, 4) base; every op PyTorch documents as returning a view
VIEWS = {
    "getitem": lambda x: x[1:, ::2],
    "select": lambda x: x.select(0, 1),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "diagonal": lambda x: x.diagonal(),
    "diagonal offset": lambda x: x.diagonal(1),
    "as_strided": lambda x: x.as_strided((2, 2), (4, 1), 1),
    "as_strided overlapping": lambda x: x.as_strided((3, 2), (1, 1)),
    "unfold": lambda x: x.unfold(1, 2, 2),
    "unfold overlapping": lambda x: x.unfold(1, 2, 1),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "H": lambda x: x.H,
    "adjoint": lambda x: x.adjoint(),
    "transpose": lambda x: x.transpose(0, 1),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "swapdims": lambda x: x.swapdims(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "movedim": lambda x: x.movedim(0, 1),
    "unsqueeze squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "view": lambda x: x.view(4, 3),
    "view_as": lambda x: x.view_as(mt_or_torch(x).zeros(2, 6)),
    "view of a transposed view": lambda x: x.t().view(-1),
    "flatten": lambda x: x.flatten(),
    "reshape": lambda x: x.reshape(12),
    "unbind": lambda x: x.unbind(0)[1],
    "split": lambda x: x.split(2, dim=1)[1],
    "split_with_sizes": lambda x: x.split_with_sizes([1, 3], dim=1)[1],
    "chunk": lambda x: x.chunk(2, dim=0)[0],
    "tensor_split": lambda x: x.tensor_split(2, dim=1)[0],
    "hsplit": lambda x: x.hsplit(2)[1],
    "vsplit": lambda x: x.vsplit([1])[1],
    "detach": lambda x: x.detach(),
    "expand": lambda x: x[:1].expand(2, 4),
    "expand_as": lambda x: x[:1].expand_as(mt_or_torch(x).zeros(2, 4)),
    "broadcast_to": lambda x: x[:1].broadcast_to(2, 4),
}

# In-place writes PyTorch refuses on these views, and so does minitorch. (PyTorch lets fill_ write the
# same value through an expanded view; minitorch refuses every write into a broadcast, so fill_ is
# not used on those: add_ raises in both.)
BROADCASTS = {"expand", "expand_as", "broadcast_to"}
# Views whose elements share memory: PyTorch calls arithmetic in place on them undefined ("may result in
# incorrect behavior", as_strided's documentation); fill_ is well defined and is what is compared.
SELF_OVERLAPPING = {"as_strided overlapping", "unfold overlapping"}


def mt_or_torch(x):
    return mt if isinstance(x, mt.Tensor) else pytest.importorskip("torch")


def write(name, view):
    if name in BROADCASTS:
        view.add_(1.0)
    elif name in SELF_OVERLAPPING:
        view.fill_(-1.5)
    else:
        view.mul_(-2.0).add_(0.5)


def outcome(L, name, requires_grad):
    """The base after a write through the view (or the error's class), and with autograd the gradient."""
    w = L.arange(12.0, requires_grad=requires_grad)
    base = (w * 1).reshape(3, 4) if requires_grad else w.reshape(3, 4)
    try:
        write(name, VIEWS[name](base))
    except RuntimeError as error:
        return "RuntimeError", str(error).split(":")[0]
    result = base.detach().numpy().copy()
    if not requires_grad:
        return result, None
    (base * L.arange(12.0).reshape(3, 4)).sum().backward()
    return result, w.grad.numpy().copy()


# Functions returning several views: with autograd, PyTorch refuses writes into their outputs ("Output 1
# of Split is a view and is being modified inplace"). minitorch rewrites the base's history as for any
# view: the test checks its gradient instead.
SEVERAL_VIEWS = {"unbind", "split", "split_with_sizes", "chunk"}


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "autograd"])
@pytest.mark.parametrize("name", VIEWS)
def test_a_write_through_a_view_reaches_the_base_as_in_pytorch(name, requires_grad):
    torch = pytest.importorskip("torch")
    theirs, ours = outcome(torch, name, requires_grad), outcome(mt, name, requires_grad)
    if requires_grad and name in SEVERAL_VIEWS:
        assert isinstance(theirs[0], str) and not isinstance(ours[0], str)
        written, _ = outcome(torch, name, False)
        changed = written != np.arange(12.0).reshape(3, 4)
        expected = np.where(changed, -2.0, 1.0).reshape(-1) * np.arange(12.0)  # d(-2 w + 0.5)/dw = -2 there
        np.testing.assert_array_equal(ours[0], written)
        np.testing.assert_array_equal(ours[1], expected)
        return
    if isinstance(theirs[0], str):
        assert isinstance(ours[0], str), f"{name}: PyTorch raises ({theirs[1]}), minitorch does not"
        return
    assert not isinstance(ours[0], str), f"{name}: minitorch raised ({ours[1]}), PyTorch writes through"
    np.testing.assert_array_equal(ours[0], theirs[0], err_msg=name)
    if requires_grad:
        np.testing.assert_array_equal(ours[1], theirs[1], err_msg=name)


@pytest.mark.parametrize("name", VIEWS)
def test_no_view_silently_copies(name):
    """Without PyTorch: each view shares its base's memory, or writing into it raises."""
    base = mt.arange(12.0).reshape(3, 4)
    try:
        view = VIEWS[name](base)
    except RuntimeError:
        assert name == "view of a transposed view"  # PyTorch's error too: the strides do not allow a view
        return
    assert np.shares_memory(np.asarray(view), np.asarray(base)), name
    before = base.numpy().copy()
    try:
        write(name, view)
    except RuntimeError:
        assert name in BROADCASTS and np.array_equal(base.numpy(), before)
        return
    assert not np.array_equal(base.numpy(), before), name


def test_pytorchs_view_error_and_the_reshape_that_copies():
    x = mt.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
        x.t().view(-1)
    copied = x.t().reshape(-1)
    copied[0] = 100.0
    assert x[0, 0].item() == 0.0  # reshape may copy, as PyTorch's
    assert x.view(mt.int32).dtype == mt.int32 and x.view(mt.int32).shape == (2, 3)


def test_expand_then_clone_owns_its_memory():
    x = mt.zeros(1, 3)
    y = x.expand(2, 3).clone()
    y[0, 0] = 1.0
    assert x.tolist() == [[0.0, 0.0, 0.0]] and y.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_as_strided_stays_inside_its_tensor_and_its_gradient_adds_overlaps():
    with pytest.raises(RuntimeError, match="outside the tensor"):
        mt.zeros(4).as_strided((3,), (2,))
    x = mt.arange(4.0, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: t.as_strided((3, 2), (1, 1)) ** 2, (x,))
    windows = x.as_strided((3, 2), (1, 1))
    windows.sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 2.0, 1.0]
    assert mt.arange(6.0)[2:].storage_offset() == 2
