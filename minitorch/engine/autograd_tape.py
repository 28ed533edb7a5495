"""The PyTorch door: `requires_grad`, `.backward()`, `.grad`, `autograd.grad`.

There is no second engine behind it. It is one more tape, AUTOGRAD_TAPE:
persistent, living as long as the program, joining the global tape set the
first time any tensor requires grad. It watches every tensor that is made to
require grad (`requires_grad_()` calls `watch` below: TensorFlow's tapes
watch trainable variables the same way), and what it records requires grad
itself (`marks_outputs`), so "is this tensor on the autograd tape?" is one
flag, `_requires_grad`. `backward()` (minitorch/autograd/backward.py) runs
compute_gradient on it and accumulates into the leaves' `.grad`; without
`retain_graph` the pass consumes the entries it ran, so a second backward
through them raises. Dropped tensors free their entries by reference
counting, as on any tape.
"""
from .state import active_tapes, pop_tape, tape_lock, thread_state
from .tape import Tape


class AutogradTape(Tape):
    marks_outputs = True
    leaves_when_empty = True

    def __init__(self):
        # Its tensors are watched when they start to require grad, not when an op reads them.
        super().__init__(persistent=True, watch_accessed_variables=False)
        self.active = False

    def should_record(self, inputs):
        for t in inputs:  # everything on it requires grad: one flag to test
            if t._requires_grad:
                # Paused on this thread while a GradientTape computes a gradient: like
                # PyTorch without create_graph, gradients do not require grad themselves.
                return not thread_state.autograd_tape_paused
        return False

    def holds(self, tensor):
        return tensor._requires_grad  # what it holds requires grad, and what requires grad, it holds

    def activate(self):
        with tape_lock:
            if not self.active:
                self.active = True
                active_tapes.insert(0, self)

    def leave(self):
        # Nothing left that requires grad: leave the tape set, so that plain
        # numpy-like work pays only record_gradient's early exit.
        if self.active:
            self.active = False
            pop_tape(self)


AUTOGRAD_TAPE = AutogradTape()


def watch(tensor):
    """A tensor now requires grad: the autograd tape watches it from here on."""
    with tape_lock:  # not between another thread's last tensor_died and leave()
        # Watched first, then active: watching allocates, so the collector may run inside it and free the
        # last tensor watched before, whose death makes the tape leave the set (on this thread, the lock is
        # re-entrant). Activated after, the tape is in the set with the new tensor on it, whatever ran.
        AUTOGRAD_TAPE.watch(tensor)
        AUTOGRAD_TAPE.activate()


def unwatch(tensor):
    """A leaf no longer requires grad: the autograd tape forgets it."""
    AUTOGRAD_TAPE.unwatch(tensor)
