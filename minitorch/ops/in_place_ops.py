"""In-place updates: `x += y`, `x.add_(y)`, `x[i] = v`, with PyTorch's rules for autograd.

The same Python object and the same storage are updated, and the storage's
version is bumped (engine/versions.py), so a gradient that saved the old
value refuses to run instead of computing from overwritten data. Three cases:

* No tape would record the update (under `mt.no_grad()`, or on tensors no tape
  watches): numpy writes straight into the storage, nothing is recorded. This
  is an optimizer's step: `p -= lr * p.grad` costs numpy's `-=` plus a constant.
* A leaf that requires grad, outside `no_grad()`: PyTorch's error.
* Otherwise the update is recorded like any op, the tape-friendly way: the op
  runs on a stand-in that keeps the tensor's old id (and a copy of its old
  values, for gradients that read them), the result is written into the
  storage, and the tensor takes the result's id, so the tape sees
  old id -> op -> new id. When the tensor is a view, its base's history is
  rewritten too (the base's new value is "the old base with this view written
  in"), and the other views of the storage are re-derived from the new base.

The in-place twins of the op functions (`exp_` of `exp`, `add_` of `add`, ...)
are made from the method table by `twin` (tensor_methods.py).
"""
import inspect

import numpy as np

from .. import random
from ..engine.backprop import broadcast_axes
from ..engine.execute import execute
from ..engine.registry import OPS
from ..engine.state import active_accumulators, active_tapes, thread_state, track, untrack
from ..engine.versions import bump, view_depth
from ..errors import ShapeError
from ..tensor import Tensor
from .array_ops import broadcast_to, normalize_index
from .coercion import as_operand, cast
from .comparison_ops import masked_fill
from .writes import cast_error, check_writable


# ----- the rules -----

def would_record(tensors):
    """Would some active tape or accumulator record an op reading `tensors`?"""
    if not (active_tapes or active_accumulators) or not thread_state.recording:
        return False
    floating = tuple(t for t in tensors if isinstance(t, Tensor) and t._data.dtype.kind == "f")
    if not floating:
        return False
    return any(tape.should_record(floating) for tape in tuple(active_tapes)) or any(
        acc.should_record(floating) for acc in active_accumulators)


# ----- writing without recording -----

def _ufunc_write(t, ufunc, operands, name):
    """`ufunc(t, *operands)` written straight into t's storage (numpy's `out=`)."""
    arrays = [o._data if isinstance(o, Tensor) else o for o in operands]
    try:
        ufunc(t._data, *arrays, out=t._data, casting="same_kind")
    except TypeError:
        raise cast_error(name, np.result_type(t._data, *arrays), t) from None
    except ValueError:
        shape = np.broadcast_shapes(t.shape, *(np.shape(a) for a in arrays))
        raise ShapeError(f"{name}: output with shape {list(t.shape)} doesn't match the broadcast shape {list(shape)}") from None


def _write(t, result, name, casting="same_kind"):
    """Writes the tensor `result` (of t's shape) into t's storage."""
    if result.shape != t.shape:
        raise ShapeError(f"{name}: output with shape {list(t.shape)} doesn't match the broadcast shape {list(result.shape)}")
    if not np.can_cast(result._data.dtype, t._data.dtype, casting):
        raise cast_error(name, result._data.dtype, t)
    np.copyto(t._data, result._data, casting="unsafe")


# ----- writing with recording -----

def _stand_in(t, copy):
    """A new Tensor object that takes over `t`'s id and tape identity (t will take a new id).
    With `copy`, it holds a copy of t's values: gradients that read the old value get it."""
    old = Tensor._make(t._data.copy() if copy else t._data, t._id)
    old._requires_grad = t._requires_grad
    old._node = t._node
    if t._tracker is not None:
        untrack(t)
        track(old)
    return old


def _on_a_tape(t):
    """Does some tape know `t` (made by a recorded op, or watched)?"""
    return t._node is not None or t._tracker is not None


def _take_identity(t, result):
    """`t` becomes, for the tapes, the tensor `result` (whose values t's storage now holds)."""
    t._id = result._id
    t._node = result._node
    if result._tracker is not None:
        untrack(result)
        track(t)
    t._requires_grad = result._requires_grad


def _recorded(t, name, compute):
    """Records `t`'s new value `compute(old t)` and writes it into t's storage."""
    old = _stand_in(t, copy=True)
    try:
        result = compute(old)
        if result._data.dtype != t._data.dtype:
            if not np.can_cast(result._data.dtype, t._data.dtype, "same_kind"):
                raise cast_error(name, result._data.dtype, t)
            result = cast(result, t._data.dtype)
        _write(t, result, name)
    except BaseException:
        if old._tracker is not None:  # t keeps its old identity
            untrack(old)
            track(t)
        raise
    bump(t)
    _take_identity(t, result)
    _rewrite_bases(t)
    _rederive_views(t)
    return t


def _rewrite_bases(view):
    """After a recorded write through `view`, each base up the chain becomes
    'the old base with the view written in' (PyTorch's CopySlices)."""
    while view._view_of is not None:
        base, op_name, attrs = view._view_of
        old = _stand_in(base, copy=False)
        if op_name == "StridedSlice":
            new_base = execute("TensorScatterUpdate", (old, view), {"index": attrs["index"]})
        elif op_name == "Reshape":
            new_base = execute("Reshape", (view,), {"shape": base.shape})
        elif op_name == "Transpose":
            new_base = execute("Transpose", (view,), {"perm": tuple(np.argsort(attrs["perm"]))})
        else:  # Diagonal, Unfold, AsStrided: the view written over the positions of base it shows
            new_base = execute("TensorScatterUpdate", (old, view), {"index": _positions_shown(base, op_name, attrs)})
        _take_identity(base, new_base)
        view = base


def _positions_shown(base, op_name, attrs):
    """The positions of `base` that the view op shows: its kernel run on an array of base's positions
    (AsStrided, whose kernel reads memory, not positions, carries them in its attrs)."""
    if op_name == "AsStrided":
        return attrs["index"]
    positions = OPS[op_name].kernel(np.arange(base._data.size).reshape(base.shape), **attrs)
    return np.unravel_index(positions, base.shape)


def _rederive_views(t):
    """The other views of the storage now show new values: take each again from its (new) base."""
    views = t._version.views
    if not views:
        return
    chain = set()
    node = t
    while node is not None:
        chain.add(id(node))
        node = node._view_of[0] if node._view_of is not None else None
    for view in sorted((v for v in views if id(v) not in chain), key=view_depth):
        base, op_name, attrs = view._view_of
        if _on_a_tape(base) or _on_a_tape(view):
            _stand_in(view, copy=False)  # the old id is dropped with it
            _take_identity(view, execute(op_name, (base,), attrs))


# ----- the generic twin and the special ones -----

def twin(fn, name, op_name=None, casting="same_kind"):
    """The in-place twin `name` of the op function `fn`: `x.name(*args)` writes `fn(x, *args)` into x.

    With `op_name` whose kernel is a numpy ufunc, an unrecorded update runs the
    ufunc with `out=` straight into the storage (no temporary)."""
    kernel = OPS[op_name].kernel if op_name is not None else None
    ufunc = kernel if isinstance(kernel, np.ufunc) else None
    takes_alpha = op_name in ("Add", "Sub")  # add_(other, alpha=...) is the optimizers' favourite

    def in_place(input, *args, **kwargs):
        check_writable(input, name)
        if would_record((input,) + args + tuple(kwargs.values())):
            return _recorded(input, name, lambda old: fn(old, *args, **kwargs))
        if ufunc is not None and len(args) == ufunc.nin - 1 and (not kwargs or takes_alpha and kwargs.keys() == {"alpha"}):
            if kwargs:
                other = args[0]
                args = ((other._data if isinstance(other, Tensor) else np.asarray(other)) * kwargs["alpha"],)
            _ufunc_write(input, ufunc, args, name)
        else:
            _write(input, fn(input, *args, **kwargs), name, casting)
        bump(input)
        return input

    in_place.__name__ = in_place.__qualname__ = name
    in_place.__signature__ = inspect.signature(fn)  # what it takes: it passes everything on to fn
    in_place.__doc__ = (f"In place: writes `{fn.__name__}(self, ...)` into this tensor's storage and returns it "
                        f"(see `mt.{fn.__name__}`).\n\n{fn.__doc__ or ''}")
    return in_place


def setitem(self, index, value):
    """`x[index] = value`: writes into x's storage, recorded when a tape watches x or value.

    >>> x = mt.zeros(3)
    >>> x[1] = 5
    >>> x
    tensor([0., 5., 0.])
    >>> w = mt.tensor(2.0, requires_grad=True)
    >>> y = mt.zeros(3)
    >>> y[0] = w * 3                          # y now depends on w
    >>> y.sum().backward(); w.grad
    tensor(3.)
    """
    check_writable(self, "__setitem__")
    np_index, _ = normalize_index(self, index)
    if would_record((self, value)):
        update = cast(as_operand(value, like=self), self._data.dtype)
        return _recorded(self, "__setitem__",
                         lambda old: execute("TensorScatterUpdate", (old, update), {"index": np_index}))
    self._data[np_index] = value._data if isinstance(value, Tensor) else value
    bump(self)


def _overwritten(old, value):
    """`value` in old's shape and dtype, recorded as a function of `old` too (a SelectV2 that always picks
    value): the tensor keeps requiring grad and its old value gets a zero gradient, as in PyTorch."""
    always = Tensor._make(np.ones((), np.bool_))
    return execute("SelectV2", (always, broadcast_to(cast(value, old._data.dtype), old.shape), old))


def fill_(input, value):
    """Fills this tensor with `value` in place.

    >>> mt.zeros(2).fill_(7)
    tensor([7., 7.])
    """
    check_writable(input, "fill_")
    if would_record((input, value)):
        return _recorded(input, "fill_", lambda old: _overwritten(old, as_operand(value, like=old)))
    input._data[...] = value._data if isinstance(value, Tensor) else value
    bump(input)
    return input


def zero_(input):
    """Fills this tensor with zeros in place (how optimizers clear `.grad`).

    >>> mt.ones(3).zero_()
    tensor([0., 0., 0.])
    """
    return fill_(input, 0)


def copy_(self, other, non_blocking=False):
    """Copies `other` (broadcast to this shape, cast to this dtype) into this tensor in place.

    >>> x = mt.zeros(2, 2)
    >>> x.copy_(mt.tensor([1, 2]))
    tensor([[1., 2.],
            [1., 2.]])
    """
    check_writable(self, "copy_")
    other = as_operand(other)
    if broadcast_axes(self.shape, other.shape) is None:
        raise ShapeError(f"copy_: cannot copy a tensor of shape {tuple(other.shape)} into one of shape {tuple(self.shape)}")
    if would_record((self, other)):
        return _recorded(self, "copy_", lambda old: _overwritten(old, other))
    np.copyto(self._data, other._data, casting="unsafe")
    bump(self)
    return self


def masked_fill_(self, mask, value):
    """Writes `value` where `mask` is True, in place.

    >>> mt.zeros(3).masked_fill_(mt.tensor([True, False, True]), 2.0)
    tensor([2., 0., 2.])
    """
    check_writable(self, "masked_fill_")
    mask = as_operand(mask)
    if would_record((self, value)):
        return _recorded(self, "masked_fill_", lambda old: masked_fill(old, mask, value))
    np.copyto(self._data, value._data if isinstance(value, Tensor) else value, where=np.broadcast_to(mask._data, self.shape))
    bump(self)
    return self


def random_fill(name, draw):
    """The in-place fill `name`: writes `draw(numpy generator, shape, *args)`, from `generator=` or the default."""
    def fill(self, *args, generator=None, **kwargs):
        check_writable(self, name)
        values = draw(random.generator(generator), self.shape, *args, **kwargs)
        _write_constant(self, values)
        return self

    fill.__name__ = fill.__qualname__ = name
    drawn = list(inspect.signature(draw).parameters.values())[2:]  # after (rng, shape)
    fill.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)] + drawn
        + [inspect.Parameter("generator", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return fill


def _write_constant(t, values):
    """Values that do not depend on anything recorded: t's history ends here (it becomes a constant)."""
    np.copyto(t._data, values, casting="unsafe")
    bump(t)
    if _on_a_tape(t) and would_record((t,)):
        _stand_in(t, copy=False)  # the old id, and its history, go with it
        _take_identity(t, Tensor._make(t._data))


uniform_ = random_fill("uniform_", lambda rng, shape, from_=0.0, /, to=1.0: rng.uniform(from_, to, shape))
uniform_.__doc__ = """Fills this tensor in place with uniform random numbers in [a, b) from `generator=` (default: the global one).

    >>> _ = mt.manual_seed(0)
    >>> x = mt.empty(100).uniform_(-1, 1)
    >>> bool(((x >= -1) & (x < 1)).all())
    True
    """
normal_ = random_fill("normal_", lambda rng, shape, mean=0.0, std=1.0: rng.normal(mean, std, shape))
normal_.__doc__ = """Fills this tensor in place with normal random numbers (mean, std) from `generator=` (default: the global one).

    >>> _ = mt.manual_seed(0)
    >>> mt.empty(2, 3).normal_(0.0, 0.01).shape
    minitorch.Size([2, 3])
    """
bernoulli_ = random_fill("bernoulli_", lambda rng, shape, p=0.5: rng.random(shape) < p)
bernoulli_.__doc__ = """Fills this tensor in place with 1s (probability p) and 0s.

    >>> _ = mt.manual_seed(0)
    >>> x = mt.empty(1000).bernoulli_(0.25)
    >>> 0.2 < float(x.mean()) < 0.3
    True
    """
