"""Embedding and EmbeddingBag, as torch.nn: lookup tables of rows, initialised N(0, 1), padding row zero."""
from .. import creation
from ..engine.state import no_grad
from . import functional as F, init
from .functional.embedding import padding_index
from .module import ALWAYS, Module, options_repr
from .parameter import Parameter


class _Table(Module):
    """What Embedding and EmbeddingBag share: the (num_embeddings, embedding_dim) weight and its initialisation."""

    def _make_weight(self, _weight, freeze, dtype):
        if _weight is None:
            self.weight = Parameter(creation.empty(self.num_embeddings, self.embedding_dim, dtype=dtype),
                                    requires_grad=not freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (self.num_embeddings, self.embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0.0


class Embedding(_Table):
    """Looks up rows of `weight` (num_embeddings, embedding_dim) by integer index (see F.embedding).

    >>> emb = mt.nn.Embedding(10, 3, padding_idx=0)
    >>> tuple(emb(mt.tensor([[0, 2]])).shape)
    (1, 2, 3)
    >>> mt.nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True)
    Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True)
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        if sparse:
            raise NotImplementedError("Embedding: sparse=True (sparse gradients) is not supported: minitorch is dense-only")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_index(padding_idx, num_embeddings, "Padding_idx must be within num_embeddings")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        self._make_weight(_weight, _freeze, dtype)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                           self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding holding `embeddings` (2-D) as its weight, frozen unless freeze=False.

        >>> mt.nn.Embedding.from_pretrained(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))(mt.tensor([1]))
        tensor([[3., 4.]])
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, dim = embeddings.shape
        return cls(rows, dim, padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse, _weight=embeddings, _freeze=freeze)

    def extra_repr(self):
        return options_repr(f"{self.num_embeddings}, {self.embedding_dim}", padding_idx=(self.padding_idx, None),
                            max_norm=(self.max_norm, None), norm_type=(self.norm_type, 2),
                            scale_grad_by_freq=(self.scale_grad_by_freq, False), sparse=(self.sparse, False))


class EmbeddingBag(_Table):
    """The sum, mean or max of the embedding rows of each bag of indices (see F.embedding_bag).

    >>> bag = mt.nn.EmbeddingBag(10, 3, mode="sum")
    >>> tuple(bag(mt.tensor([1, 2, 4, 5, 4]), mt.tensor([0, 2])).shape)
    (2, 3)
    >>> bag
    EmbeddingBag(10, 3, mode='sum')
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        if sparse:
            raise NotImplementedError("EmbeddingBag: sparse=True (sparse gradients) is not supported: minitorch is dense-only")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = padding_index(padding_idx, num_embeddings, "padding_idx must be within num_embeddings")
        self._make_weight(_weight, False, dtype)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag holding `embeddings` (2-D) as its weight, frozen unless freeze=False.

        >>> mt.nn.EmbeddingBag.from_pretrained(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))(mt.tensor([[1, 0]]))
        tensor([[2., 3.]])
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, dim = embeddings.shape
        bag = cls(rows, dim, max_norm=max_norm, norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode,
                  sparse=sparse, _weight=embeddings, include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight = Parameter(embeddings, requires_grad=not freeze)
        return bag

    def extra_repr(self):
        return options_repr(f"{self.num_embeddings}, {self.embedding_dim}", repr, max_norm=(self.max_norm, None),
                            norm_type=(self.norm_type, 2), scale_grad_by_freq=(self.scale_grad_by_freq, False),
                            mode=(self.mode, ALWAYS), padding_idx=(self.padding_idx, None))
