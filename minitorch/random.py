"""The global random generator behind rand/randn/randint, dropout and initialisers."""
import numpy as np

_generator = np.random.default_rng()


def manual_seed(seed):
    """Seeds minitorch's global generator, so random tensors repeat (like torch.manual_seed); returns the generator.

    >>> _ = mt.manual_seed(0); a = mt.rand(3)
    >>> _ = mt.manual_seed(0); b = mt.rand(3)
    >>> bool((a == b).all())
    True
    """
    global _generator
    _generator = np.random.default_rng(int(seed))
    return _generator


def generator():
    """The global numpy Generator that rand/randn/randint, dropout and the initialisers draw from.

    >>> _ = mt.manual_seed(0)
    >>> type(mt.random.generator()).__name__
    'Generator'
    """
    return _generator


def seed():
    """Reseeds the global generator from fresh entropy and returns nothing (like torch.seed, minus the value).

    >>> mt.seed()
    >>> mt.rand(2).shape
    (2,)
    """
    manual_seed(np.random.SeedSequence().entropy % (2**63))
