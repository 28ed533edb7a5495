"""torch.nn.modules.utils: the argument helpers PyTorch code imports, `_single`, `_pair`, `_triple`,
`_quadruple` (an int repeated n times, an iterable as a tuple).

>>> from minitorch.nn.modules.utils import _pair
>>> _pair(3), _pair((1, 2))
((3, 3), (1, 2))
"""
from ...ops.dims import ntuple as _ntuple, pair as _pair, single as _single  # noqa: F401  (defined there, below nn)

_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")
