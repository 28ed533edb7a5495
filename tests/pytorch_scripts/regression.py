"""pytorch/examples regression/main.py: fit a degree-4 polynomial with one nn.Linear and a manual SGD step.

Source: https://github.com/pytorch/examples (regression/main.py), BSD-3-Clause licence,
Copyright (c) 2017 PyTorch contributors. Shrunk: the loop is a function that can start from given
weights and batches (for a run against PyTorch) and stops after `max_batches`; the code is otherwise
the example's: make_features with torch.cat of powers, f with x.mm(W_target) + b_target.item(),
poly_desc formatting tensors with '{:+.2f}', F.smooth_l1_loss, fc.zero_grad(), param.data.add_.
"""
from itertools import count

import torch
import torch.nn.functional as F

POLY_DEGREE = 4


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE+1)], 1)


def f(x, W_target, b_target):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(W_target, b_target, batch_size=32, random=None):
    """Builds a batch i.e. (x, f(x)) pair."""
    if random is None:
        random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x, W_target, b_target)
    return x, y


def main(W_target=None, b_target=None, initial=None, batches=None, max_batches=200):
    if W_target is None:
        W_target = torch.randn(POLY_DEGREE, 1) * 5
        b_target = torch.randn(1) * 5

    # Define model
    fc = torch.nn.Linear(W_target.size(0), 1)
    if initial is not None:
        fc.load_state_dict({k: torch.tensor(v) for k, v in initial.items()})

    losses = []
    for batch_idx in count(1):
        # Get data
        random = None if batches is None else torch.tensor(batches[batch_idx - 1])
        batch_x, batch_y = get_batch(W_target, b_target, random=random)

        # Reset gradients
        fc.zero_grad()

        # Forward pass
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()
        losses.append(loss)

        # Backward pass
        output.backward()

        # Apply gradients
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)

        # Stop criterion
        if loss < 1e-3 or batch_idx >= max_batches:
            break

    print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
    print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
    print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))
    return fc, losses
