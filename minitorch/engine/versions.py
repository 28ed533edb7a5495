"""Version counters and views: how the engine notices a value that changed under a saved gradient.

Every write into a tensor's storage in place (`x += 1`, `x.add_(1)`, `x[0] = 5`,
an optimizer's step) bumps the version of that storage. A backward function
remembers the versions of the tensors it saved; if one moved before the
gradient runs, the reverse pass raises PyTorch's error ("one of the variables
needed for gradient computation has been modified by an inplace operation")
instead of computing a gradient from overwritten data.

A view (`reshape` without a copy, basic slicing, `transpose`, `squeeze`,
`unsqueeze`, `expand`, `detach()`) shares its base's storage, so it shares the
base's counter: writing through a view bumps the version the base sees.

`.data` is the exception, as in PyTorch (`VariableHooks::variable_data` gives
it a new version counter; `set_data` keeps the tensor's own): it shares the
storage but has a counter of its own, so `w.data.mul_(2)` or `w.data = new`
between forward and backward is not tracked, by design (weight clipping, EMA
updates). Its counter remembers the one it stands beside (`shadows`), so that
under anomaly detection a write through it can warn when a pending graph saved
the values it changed (anomaly.untracked_write). Views made by a recorded op also remember how they were made
(`_view_of` = (parent, op name, attrs)), so that an in-place op recorded on a
view can rewrite the history of its base (ops/in_place_ops.py).

The counter object is made lazily: most tensors are never written in place,
viewed or saved, and pay nothing.
"""
import weakref

from .anomaly import untracked_write
from .state import switches


class VersionCounter:
    """The version of one storage, shared by the tensors that view it, and the views made from it."""

    __slots__ = ("value", "views", "shadows")

    def __init__(self, shadows=None):
        self.value = 0
        self.views = None  # WeakSet of the views of this storage that have a history (made by a recorded op)
        self.shadows = shadows  # for a `.data` alias: the counter of the tensor whose storage it writes untracked


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
    counter = counter_of(t)
    counter.value += 1
    if counter.shadows is not None and switches.check_anomalies:
        untracked_write(counter.shadows, "a write through .data")


def untracked_alias(alias, base):
    """`alias` (`base.data`) shares `base`'s storage but not its version: its writes are not tracked
    (PyTorch's `variable_data`)."""
    counter = counter_of(base)
    alias._version = VersionCounter(shadows=counter.shadows or counter)


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
