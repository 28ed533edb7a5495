"""Cases for the sequence ops: Unpack, and CTCLoss (first order, reverse mode only: like PyTorch's it has no second
derivative and no forward mode; tests/test_surface_nn_losses.py checks that asking for them raises)."""
import numpy as np

import minitorch as mt
from minitorch.ops.ctc_ops import ctc_loss_per_sample
from minitorch.ops.sequence_ops import unpack

from . import OpCase

TARGETS = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
INPUT_LENGTHS, TARGET_LENGTHS = np.array([6, 5, 3]), np.array([3, 2, 0])


def ctc_of_logits(logits):
    """Through log_softmax, as CTC is used: there PyTorch's gradient is the exact derivative."""
    return ctc_loss_per_sample(logits.log_softmax(-1), mt.tensor(TARGETS), mt.tensor(INPUT_LENGTHS), mt.tensor(TARGET_LENGTHS))


CASES = [
    OpCase("CTCLoss", ctc_of_logits, lambda rng: [rng.standard_normal((6, 3, 4))], second_order=False,
           forward_mode=False),
]

CASES += [
    OpCase("Unpack", lambda x: tuple(piece * (k + 1.0) for k, piece in enumerate(unpack(x, axis=1))),
           lambda rng: [rng.standard_normal((2, 3, 2))]),
    OpCase("Unpack", lambda x: unpack(x)[1] ** 2, lambda rng: [rng.standard_normal((3, 2))], name="one-slice-used"),
]
