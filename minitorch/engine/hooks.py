"""Tensor hooks: functions that see (and may replace) a tensor's gradient during a reverse pass.

`t.register_hook(fn)` runs `fn(grad)` when the gradient with respect to `t`
is complete, before it flows on to the op that made `t` (or, for a leaf,
before it is accumulated into `.grad`). `t.retain_grad()` is such a hook: it
keeps a non-leaf's gradient in `.grad`. The hook functions live on the tensor
(`tensor._hooks`, a TensorHooks); the tables here map tensor ids to weak
references, so a hook that refers back to its tensor forms a cycle the
collector can free, not one held forever by this module. A tensor dropped
while the entry that made it lives leaves its hooks in
`state.orphaned_hooks` (its tracker rescues them at its death), so they still
run when its gradient comes, as in PyTorch. compute_gradient looks here only
when some hook exists.

`leaf.register_post_accumulate_grad_hook(fn)` runs `fn(leaf)` right after
backward() has accumulated into `leaf.grad`, during the pass, as soon as that
leaf's gradient is complete; `queue_callback(fn)`, called during a backward()
pass, runs `fn()` once when the pass has finished. DistributedDataParallel
uses both: the first to start all-reducing gradients while the pass goes on,
the second to wait for them.
"""
import contextlib
import itertools
import threading
import weakref

from .state import orphaned_hooks, tape_lock, track

tensor_hooks = {}  # tensor id -> weakref to a tensor with gradient hooks
retaining = {}  # tensor id -> weakref: non-leaf tensors whose gradient is kept in .grad
post_accumulate_hooks = {}  # leaf tensor id -> weakref to a leaf with post-accumulate-grad hooks
_handle_ids = itertools.count()
_passes = threading.local()  # .callbacks: one list per backward() running on this thread, innermost last


class RemovableHandle:
    """Returned by register_hook; `handle.remove()` unregisters the hook (also on leaving a `with` block).

    >>> x = mt.tensor([1.0], requires_grad=True)
    >>> with x.register_hook(lambda g: g * 0):
    ...     pass
    >>> (x * 2).sum().backward()
    >>> x.grad
    tensor([2.])
    """

    def __init__(self, hooks, key):
        self._hooks = hooks
        self.id = key

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_hook(tensor, fn):
    """Registers `fn(grad)` on `tensor` (which must require grad); returns a RemovableHandle. `Tensor.register_hook` calls this.

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> handle = x.register_hook(seen.append)
    >>> (x * 3).sum().backward()
    >>> seen
    [tensor([3., 3.])]
    """
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    with tape_lock:  # the tables are shared by all threads: no other thread forgets this entry meanwhile
        return add_hook(_hooks_of(tensor, "grad", tensor_hooks), fn)


class TensorHooks:
    """One tensor's hook functions: kind ("grad", "post_accumulate") -> {handle id: fn}.
    In the tensor's `_hooks` slot, which only tensors with hooks ever set (Tensor._make does not)."""

    __slots__ = ("kinds", "__weakref__")

    def __init__(self):
        self.kinds = {}


def _hooks_of(tensor, kind, registry):
    """The dict {handle id: fn} of `tensor`'s hooks of `kind`, made on first use and listed in `registry`."""
    _forget_dead(registry)
    registry[tensor._id] = weakref.ref(tensor)
    hooks = getattr(tensor, "_hooks", None)
    if hooks is None:
        hooks = tensor._hooks = TensorHooks()
        track(tensor)
        tensor._tracker.hooks = weakref.ref(hooks)
    return hooks.kinds.setdefault(kind, {})


def _hooks_for(tensor_id, kind, registry):
    """The hook functions of kind `kind` of the tensor `tensor_id`, alive or dropped with its op still taped."""
    ref = registry.get(tensor_id)
    tensor = ref() if ref is not None else None
    if tensor is not None:
        hooks = getattr(tensor, "_hooks", None)
    else:
        hooks, _ = orphaned_hooks.get(tensor_id, (None, None))
    return list(hooks.kinds.get(kind, {}).values()) if hooks is not None else []


def add_hook(hooks, fn):
    """Adds `fn` to the dict `hooks` under a new key; returns the handle that removes it."""
    key = next(_handle_ids)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


def _forget_dead(registry):
    for tid in [tid for tid, ref in registry.items() if ref() is None]:
        del registry[tid]


def apply(tensor_id, grad):
    """Runs the hooks of `tensor_id` on its gradient; a hook returning a tensor replaces it.
    retain_grad's keeping runs last, whenever it was asked for (as in PyTorch)."""
    for fn in _hooks_for(tensor_id, "grad", tensor_hooks):
        result = fn(grad)
        if result is not None:
            grad = result
    ref = retaining.get(tensor_id)
    tensor = ref() if ref is not None else None
    if tensor is not None:
        tensor.grad = grad if tensor.grad is None else tensor.grad + grad
    return grad



def retain_grad(tensor):
    """Keeps a non-leaf tensor's gradient in its `.grad` after backward(). `Tensor.retain_grad` calls this.

    >>> x = mt.tensor([2.0], requires_grad=True)
    >>> y = x * x
    >>> y.retain_grad()
    >>> (y * 3).sum().backward()
    >>> y.grad
    tensor([3.])
    """
    if tensor.is_leaf:
        return
    if not tensor._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    with tape_lock:
        for tid in [tid for tid, ref in retaining.items() if ref() is None]:
            del retaining[tid]
        retaining[tensor._id] = weakref.ref(tensor)


def register_post_accumulate_grad_hook(tensor, fn):
    """Registers `fn(tensor)` to run right after backward() accumulates into the leaf's `.grad`; returns a RemovableHandle.

    It runs during the pass, as soon as this leaf's gradient is complete
    (not at the end). `Tensor.register_post_accumulate_grad_hook` calls this.

    >>> w = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> handle = mt.engine.hooks.register_post_accumulate_grad_hook(w, lambda p: seen.append(p.grad))
    >>> (w * 3).sum().backward()
    >>> seen
    [tensor([3., 3.])]
    """
    if not tensor._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not tensor.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    with tape_lock:
        return add_hook(_hooks_of(tensor, "post_accumulate", post_accumulate_hooks), fn)


def run_post_accumulate(leaf):
    """Runs the post-accumulate-grad hooks of `leaf` (backward() calls this after updating `leaf.grad`).

    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> handle = w.register_post_accumulate_grad_hook(lambda p: print("hook saw", p.grad))
    >>> mt.engine.hooks.run_post_accumulate(w)
    hook saw None
    """
    for fn in _hooks_for(leaf._id, "post_accumulate", post_accumulate_hooks):
        fn(leaf)


@contextlib.contextmanager
def backward_pass():
    """The extent of one backward() pass: callbacks queued inside run when it ends without an error.

    >>> with mt.engine.hooks.backward_pass():
    ...     mt.engine.hooks.queue_callback(lambda: print("the pass has ended"))
    ...     print("in the pass")
    in the pass
    the pass has ended
    """
    stack = _passes.__dict__.setdefault("callbacks", [])
    stack.append([])
    try:
        yield
        callbacks = stack[-1]
        while callbacks:  # a callback may queue another one
            callbacks.pop(0)()
    finally:
        stack.pop()


def queue_callback(fn):
    """Runs `fn()` once when the backward() pass running now (on this thread) has finished.

    PyTorch's `Variable._execution_engine.queue_callback`; only valid during
    backward(), from a hook.

    >>> w = mt.tensor([1.0], requires_grad=True)
    >>> events = []
    >>> def on_grad(p):
    ...     events.append("grad")
    ...     mt.engine.hooks.queue_callback(lambda: events.append("pass finished"))
    >>> handle = w.register_post_accumulate_grad_hook(on_grad)
    >>> (w * 2).sum().backward()
    >>> events
    ['grad', 'pass finished']
    """
    stack = getattr(_passes, "callbacks", None)
    if not stack:
        raise RuntimeError("queue_callback: final callbacks can only be installed during the backward pass")
    stack[-1].append(fn)
