"""Version counters and views: how the engine notices a value that changed under a saved gradient.

Every write into a tensor's storage in place (`x += 1`, `x.add_(1)`, `x[0] = 5`,
an optimizer's step) bumps the version of that storage. A backward function
remembers the versions of the tensors it saved; if one moved before the
gradient runs, the reverse pass raises PyTorch's error ("one of the variables
needed for gradient computation has been modified by an inplace operation")
instead of computing a gradient from overwritten data.

A view (`reshape` without a copy, basic slicing, `transpose`, `squeeze`,
`unsqueeze`, `expand`, `detach()`, `.data`) shares its base's storage, so it
shares the base's counter: writing through a view bumps the version the base
sees. Views made by a recorded op also remember how they were made
(`_view_of` = (parent, op name, attrs)), so that an in-place op recorded on a
view can rewrite the history of its base (ops/in_place_ops.py).

The counter object is made lazily: most tensors are never written in place,
viewed or saved, and pay nothing.
"""
import weakref


class VersionCounter:
    """The version of one storage, shared by the tensors that view it, and the views made from it."""

    __slots__ = ("value", "views")

    def __init__(self):
        self.value = 0
        self.views = None  # WeakSet of the views of this storage that have a history (made by a recorded op)


def counter_of(t):
    """`t`'s version counter, made on first use."""
    counter = t._version
    if counter is None:
        counter = t._version = VersionCounter()
    return counter


def version(t):
    """The version of `t`'s storage: how many in-place writes it has seen."""
    counter = t._version
    return 0 if counter is None else counter.value


def bump(t):
    """One more in-place write into `t`'s storage."""
    counter_of(t).value += 1


def share_storage(view, base):
    """`view` reads and writes `base`'s memory: one version for both."""
    view._version = counter_of(base)


def mark_view(view, base, op_name, attrs):
    """`view` was made from `base` by the recorded view op `op_name`: same storage, and a way back."""
    counter = counter_of(base)
    view._version = counter
    view._view_of = (base, op_name, attrs)
    if counter.views is None:
        counter.views = weakref.WeakSet()
    counter.views.add(view)


def view_depth(t):
    """How many view ops lie between `t` and the tensor that owns its storage."""
    depth = 0
    while t._view_of is not None:
        t = t._view_of[0]
        depth += 1
    return depth
