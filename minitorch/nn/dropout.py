"""Dropout and its variants (Dropout1d/2d, AlphaDropout, FeatureAlphaDropout), as torch.nn:
random while training, the identity in eval mode."""
from . import functional as F
from .module import Module


class Dropout(Module):
    """Zeroes elements with probability p while training, scaling the rest by 1/(1-p); the identity in eval().

    >>> drop = mt.nn.Dropout(p=0.5).eval()
    >>> drop(mt.ones(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs while training (see F.dropout1d).

    >>> mt.nn.Dropout1d(p=0.5)
    Dropout1d(p=0.5, inplace=False)
    """

    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zeroes whole channels of (N, C, H, W) inputs while training (see F.dropout2d).

    >>> y = mt.nn.Dropout2d(p=0.5)(mt.ones(2, 3, 4, 4))
    >>> bool((y == y[:, :, :1, :1]).all())
    True
    """

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Alpha dropout for SELU networks: keeps zero mean and unit variance (see F.alpha_dropout).

    >>> mt.nn.AlphaDropout(0.2).eval()(mt.ones(2)).tolist()
    [1.0, 1.0]
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels (see F.feature_alpha_dropout).

    >>> y = mt.nn.FeatureAlphaDropout(0.5)(mt.ones(2, 3, 4))
    >>> bool((y == y[:, :, :1]).all())
    True
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)
