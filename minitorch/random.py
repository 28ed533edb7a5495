"""The global random generator behind rand/randn/randint, dropout and initialisers."""
import numpy as np

_generator = np.random.default_rng()


def manual_seed(seed):
    """Seeds minitorch's global generator (like torch.manual_seed)."""
    global _generator
    _generator = np.random.default_rng(int(seed))
    return _generator


def generator():
    return _generator


def seed():
    """Reseeds from fresh entropy and returns nothing (like torch.seed, minus the value)."""
    manual_seed(np.random.SeedSequence().entropy % (2**63))
