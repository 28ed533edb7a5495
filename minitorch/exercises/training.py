"""The last check: the MLP example trained for one epoch on the student's gradients, next to minitorch's.

Both runs start from the same weights and see the same batches (one seed), so
with right gradients the two accuracies agree (up to float rounding).
"""
import argparse

import minitorch as mt
from minitorch import nn
from minitorch.engine.student_pass import reverse_pass_replaced
from minitorch.examples.mlp import MLP
from minitorch.examples.training import evaluate, make_loaders, train_one_epoch

from .checks import gradients_in_table

# The op exercises whose ops the MLP runs, and the reverse pass (by exercise name).
MLP_EXERCISES = ("add", "matmul", "relu", "sum", "cross_entropy", "backward")


def one_epoch(gradients=None, reverse_pass=None, limit=6000, seed=0):
    """Test accuracy of the MLP after one epoch of Adam on `limit` training images, with `gradients`
    ({op name: function}) in the op table and `reverse_pass` (or minitorch's) as the reverse pass.

    >>> round(one_epoch(limit=256), 2) > 0.1
    True
    """
    args = argparse.Namespace(dataset="embedded", data_dir=None, download=False, limit=limit, test_limit=1000,
                              batch_size=128, seed=seed)
    train_loader, test_loader, _, _ = make_loaders(args)
    mt.manual_seed(seed)
    model = MLP()
    optimizer = mt.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    with gradients_in_table(gradients or {}), reverse_pass_replaced(reverse_pass):
        train_one_epoch(model, train_loader, loss_fn, optimizer)
    return evaluate(model, test_loader, loss_fn)[1]
