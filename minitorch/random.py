"""Random number generators: `mt.Generator` and the default one behind every sampling function.

A `Generator` wraps a numpy PCG64 generator. `mt.manual_seed(s)` seeds the
default generator (and returns it), `generator=` hands a sampling function
its own. Seeded runs repeat exactly, run after run; the numbers are not
PyTorch's (PyTorch draws from a Mersenne Twister with its own transforms), so
a seed gives the same *kind* of numbers as in PyTorch, not the same numbers.
The default generator starts from fresh entropy, as PyTorch's does.
"""
import contextlib
import numbers

import numpy as np

from . import devices
from .tensor import Tensor

_MAGIC = b"mtPCG64\x01"  # what a state tensor starts with: its format, so a foreign state is refused
_STATE_BYTES = len(_MAGIC) + 16 + 16 + 1 + 4 + 8
_DEFAULT_SEED = 67280421310721  # PyTorch's default seed for a new Generator


class Generator:
    """A random number generator (as `torch.Generator`): seed it, save and restore its state, pass it as `generator=`.

    >>> g = mt.Generator().manual_seed(42)
    >>> a = mt.rand(3, generator=g)
    >>> _ = g.manual_seed(42)
    >>> bool((a == mt.rand(3, generator=g)).all()), g.initial_seed(), g.device
    (True, 42, device(type='cpu'))
    >>> state = g.get_state(); b = mt.randn(2, generator=g)
    >>> bool((g.set_state(state) is g) and (mt.randn(2, generator=g) == b).all())
    True
    """

    def __init__(self, device="cpu"):
        self.device = devices.cpu_device(device)
        # One numpy Generator for life, reseeded in place: whoever holds `g.numpy` follows g.
        self.numpy = np.random.Generator(np.random.PCG64(_DEFAULT_SEED))
        self._seed = _DEFAULT_SEED

    def manual_seed(self, seed):
        """Seeds this generator (an int in [-2**63, 2**64)); returns it.

        >>> mt.Generator().manual_seed(-1).initial_seed()  # negative seeds wrap, as in PyTorch
        18446744073709551615
        """
        if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, Tensor)):
            raise TypeError(f"manual_seed expected an int seed, got {type(seed).__name__}")
        seed = int(seed)
        if not -2**63 <= seed < 2**64:
            raise RuntimeError(f"manual_seed: seed {seed} is out of range [-2**63, 2**64)")
        self._seed = seed % 2**64
        self.numpy.bit_generator.state = np.random.PCG64(self._seed).state
        return self

    def seed(self):
        """Seeds this generator from fresh entropy and returns the seed.

        >>> g = mt.Generator()
        >>> s = g.seed()
        >>> g.initial_seed() == s
        True
        """
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        """The seed this generator was last seeded with.

        >>> mt.Generator().initial_seed()
        67280421310721
        """
        return self._seed

    def get_state(self):
        """The generator's state as a uint8 tensor, for `set_state` (not interchangeable with PyTorch's).

        >>> mt.Generator().get_state().shape, mt.Generator().get_state().dtype
        (minitorch.Size([53]), minitorch.uint8)
        """
        state = self.numpy.bit_generator.state
        raw = (_MAGIC + state["state"]["state"].to_bytes(16, "little") + state["state"]["inc"].to_bytes(16, "little")
               + bytes([state["has_uint32"]]) + state["uinteger"].to_bytes(4, "little")
               + self._seed.to_bytes(8, "little"))
        return Tensor._make(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, new_state):
        """Restores a state from `get_state`; returns this generator.

        >>> g = mt.Generator()
        >>> g.set_state(mt.zeros(5, dtype=mt.uint8))
        Traceback (most recent call last):
            ...
        RuntimeError: Generator.set_state: expected the 53-byte uint8 tensor that get_state() returns, got shape (5,) uint8
        """
        array = np.asarray(new_state) if isinstance(new_state, Tensor) else None
        if array is None or array.dtype != np.uint8 or array.shape != (_STATE_BYTES,) \
                or array[:len(_MAGIC)].tobytes() != _MAGIC:
            got = f"shape {array.shape} {array.dtype}" if array is not None else type(new_state).__name__
            raise RuntimeError(f"Generator.set_state: expected the {_STATE_BYTES}-byte uint8 tensor that "
                               f"get_state() returns, got {got}")
        raw = array.tobytes()[len(_MAGIC):]
        numpy_state = {"bit_generator": "PCG64",
                       "state": {"state": int.from_bytes(raw[0:16], "little"),
                                 "inc": int.from_bytes(raw[16:32], "little")},
                       "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")}
        self.numpy.bit_generator.state = numpy_state
        self._seed = int.from_bytes(raw[37:45], "little")
        return self

    def __repr__(self):
        return f"<minitorch.Generator(seed={self._seed})>"


default_generator = Generator()
default_generator.seed()


def thread_safe_generator():
    """The generator a transform should draw from in a DataLoader worker (torch.thread_safe_generator).
    minitorch's workers are processes, each with its own seeded default generator (PyTorch gives thread
    workers one each), so it is `default_generator`, as PyTorch's is in the main process and process workers.

    >>> mt.thread_safe_generator() is mt.default_generator
    True
    """
    return default_generator


def generator(generator=None):
    """The numpy Generator that draws for `generator` (an `mt.Generator`; None: the default one).

    >>> type(mt.random.generator()).__name__
    'Generator'
    >>> mt.rand(1, generator=np.random.default_rng())
    Traceback (most recent call last):
        ...
    TypeError: generator must be a minitorch.Generator, got numpy.random._generator.Generator
    """
    if generator is None:
        return default_generator.numpy
    if not isinstance(generator, Generator):
        kind = type(generator)
        raise TypeError(f"generator must be a minitorch.Generator, got {kind.__module__}.{kind.__qualname__}")
    return generator.numpy


def manual_seed(seed):
    """Seeds the default generator, so random tensors repeat (like torch.manual_seed); returns the generator.

    >>> _ = mt.manual_seed(0); a = mt.rand(3)
    >>> mt.manual_seed(0) is mt.default_generator, bool((a == mt.rand(3)).all())
    (True, True)
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seeds the default generator from fresh entropy and returns the seed (like torch.seed).

    >>> s = mt.seed()
    >>> mt.initial_seed() == s
    True
    """
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with.

    >>> _ = mt.manual_seed(7)
    >>> mt.initial_seed()
    7
    """
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, a uint8 tensor for `set_rng_state`.

    >>> state = mt.get_rng_state(); a = mt.rand(2)
    >>> mt.set_rng_state(state); bool((mt.rand(2) == a).all())
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator's state from `get_rng_state`.

    >>> mt.set_rng_state(mt.get_rng_state())
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """Restores the default generator's state on leaving the block (as torch.random.fork_rng).

    >>> before = mt.get_rng_state()
    >>> with mt.random.fork_rng():
    ...     _ = mt.rand(5)
    >>> bool((mt.get_rng_state() == before).all())
    True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
