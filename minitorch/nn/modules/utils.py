"""torch.nn.modules.utils: the argument helpers PyTorch code imports, `_single`, `_pair`, `_triple`,
`_quadruple` (an int repeated n times, an iterable as a tuple).

>>> from minitorch.nn.modules.utils import _pair
>>> _pair(3), _pair((1, 2))
((3, 3), (1, 2))
"""
import collections.abc
import itertools


def _ntuple(n, name="parse"):
    """A parser that turns an int into an n-tuple of it and an iterable into a tuple (PyTorch's `_ntuple`)."""

    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))

    parse.__name__ = parse.__qualname__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")
