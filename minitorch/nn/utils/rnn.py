"""Variable-length sequences for the recurrent layers (torch.nn.utils.rnn): padding and packing.

A PackedSequence keeps only the real time steps of a batch of sequences,
time-major: for each step t, the sequences still running at t, longest first.
`batch_sizes[t]` says how many there are; `sorted_indices` maps the sorted
order back to the caller's batch order. Packing gathers (one GatherNd) and
unpacking scatters (one TensorScatterUpdate), so gradients flow through both.
"""
from collections import namedtuple

import numpy as np

from ... import dtypes
from ...creation import from_numpy, full, tensor
from ...ops import array_ops
from ...tensor import Tensor

_PackedSequenceFields = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceFields):
    """The data of a packed batch of sequences (see pack_padded_sequence); the RNN layers accept it.

    >>> packed = mt.nn.utils.rnn.pack_sequence([mt.tensor([1, 2, 3]), mt.tensor([4, 5])])
    >>> packed.data, packed.batch_sizes
    (tensor([1, 4, 2, 5, 3]), tensor([2, 2, 1]))
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if batch_sizes is None:  # PackedSequence((data, batch_sizes))
            data, batch_sizes = data
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequences with `data` converted (dtype); the indices stay int64.

        >>> mt.nn.utils.rnn.pack_sequence([mt.tensor([1, 2])]).to(mt.float64).data.dtype
        minitorch.float64
        """
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def double(self):
        return self.to(dtypes.float64)

    def float(self):
        return self.to(dtypes.float32)

    def cpu(self):
        return self

    @property
    def is_cuda(self):
        return False


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None stays None).

    >>> mt.nn.utils.rnn.invert_permutation(mt.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    return from_numpy(np.argsort(np.asarray(permutation), kind="stable").astype(np.int64))


def _lengths_array(lengths):
    values = np.asarray(lengths.detach().numpy() if isinstance(lengths, Tensor) else lengths).astype(np.int64).reshape(-1)
    if values.size and values.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0")
    return values


def _steps(batch_sizes):
    """(time index, sorted batch index) of every element of packed data, in packed order."""
    sizes = np.asarray(batch_sizes)
    times = np.repeat(np.arange(sizes.size), sizes)
    rows = np.concatenate([np.arange(n) for n in sizes]) if sizes.size else np.zeros(0, dtype=np.int64)
    return times, rows


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T, B, *) (or (B, T, *)) of sequences of the given lengths.

    >>> padded = mt.tensor([[1, 4], [2, 5], [3, 0]])        # (T=3, B=2)
    >>> mt.nn.utils.rnn.pack_padded_sequence(padded, [3, 2]).data
    tensor([1, 4, 2, 5, 3])
    """
    lengths = _lengths_array(lengths)
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    if input.ndim < 2 or lengths.size != input.shape[batch_dim]:
        raise ValueError(f"pack_padded_sequence: expected {input.shape[batch_dim] if input.ndim >= 2 else '?'} lengths "
                         f"for an input of shape {tuple(input.shape)}, got {lengths.size}")
    if lengths.size and lengths.max() > input.shape[time_dim]:
        raise RuntimeError(f"pack_padded_sequence: a length of {lengths.max()} is longer than the input's "
                           f"{input.shape[time_dim]} time steps")
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
                "you do not need ONNX exportability."
            )
        order = None
    else:
        order = np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
    batch_sizes = (np.arange(lengths.max(initial=0))[:, None] < lengths[None, :]).sum(axis=1)
    times, rows = _steps(batch_sizes)
    batch = rows if order is None else order[rows]
    index = (from_numpy(batch), from_numpy(times)) if batch_first else (from_numpy(times), from_numpy(batch))
    sorted_indices = None if order is None else from_numpy(order.astype(np.int64))
    return PackedSequence(input[index], from_numpy(batch_sizes.astype(np.int64)), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch (T, B, *) (or (B, T, *)) and the lengths (B,) of a PackedSequence, in the caller's batch order.

    >>> packed = mt.nn.utils.rnn.pack_sequence([mt.tensor([1, 2, 3]), mt.tensor([4, 5])])
    >>> padded, lengths = mt.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
    >>> padded, lengths
    (tensor([[1, 2, 3],
            [4, 5, 0]]), tensor([3, 2]))
    """
    batch_sizes = np.asarray(sequence.batch_sizes)
    steps = batch_sizes.size
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but got "
                             f"total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = int(batch_sizes[0]) if batch_sizes.size else 0
    times, rows = _steps(batch_sizes)
    sorted_lengths = (np.arange(batch)[:, None] < batch_sizes[None, :]).sum(axis=1)
    order = np.arange(batch) if sequence.sorted_indices is None else np.asarray(sequence.sorted_indices)
    data = sequence.data
    shape = (batch, steps) if batch_first else (steps, batch)
    padded = full(shape + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    index = (order[rows], times) if batch_first else (times, order[rows])
    padded[tuple(from_numpy(i) for i in index)] = data
    lengths = np.empty(batch, dtype=np.int64)
    lengths[order] = sorted_lengths
    return padded, from_numpy(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding with padding_value.

    >>> mt.nn.utils.rnn.pad_sequence([mt.tensor([1, 2, 3]), mt.tensor([4])], batch_first=True, padding_side="left")
    tensor([[1, 2, 3],
            [0, 0, 4]])
    """
    if isinstance(sequences, Tensor):
        sequences = [sequences[i] for i in range(sequences.shape[0])]
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            filler = full((missing,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = array_ops.cat([s, filler] if padding_side == "right" else [filler, s])
        padded.append(s)
    return array_ops.stack(padded, dim=0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length.

    >>> padded = mt.tensor([[1, 2, 3], [4, 5, 0]])
    >>> mt.nn.utils.rnn.unpad_sequence(padded, mt.tensor([3, 2]), batch_first=True)
    [tensor([1, 2, 3]), tensor([4, 5])]
    """
    lengths = _lengths_array(lengths)
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L_i, *): pad_sequence, then pack_padded_sequence.

    >>> mt.nn.utils.rnn.pack_sequence([mt.tensor([1]), mt.tensor([2, 3])], enforce_sorted=False).sorted_indices
    tensor([1, 0])
    """
    lengths = tensor([s.shape[0] for s in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in the caller's order.

    >>> packed = mt.nn.utils.rnn.pack_sequence([mt.tensor([1]), mt.tensor([2, 3])], enforce_sorted=False)
    >>> mt.nn.utils.rnn.unpack_sequence(packed)
    [tensor([1]), tensor([2, 3])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
