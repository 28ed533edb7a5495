"""Case for FusedBatchNormGrad, the fused first-order backward of FusedBatchNorm
(minitorch/ops/batch_norm_ops.py): its inputs are free here, mean and inv_std
included, so the check covers every partial derivative of its formula."""
import numpy as np

from minitorch.engine.execute import execute

from . import OpCase


def backward_inputs(rng):
    """dy, x (N, C, H, W), scale, a mean and a positive inv_std per channel."""
    return [rng.standard_normal((2, 3, 2, 2)), rng.standard_normal((2, 3, 2, 2)), rng.standard_normal(3),
            rng.standard_normal(3), rng.uniform(0.5, 2.0, 3)]


def weighted_outputs(outputs):
    """All three outputs enter the checked value, each weighted differently."""
    d_x, d_scale, d_offset = outputs
    return d_x * d_x, d_scale * 2.0, d_offset * 3.0


CASES = [
    OpCase("FusedBatchNormGrad",
           lambda dy, x, scale, mean, inv_std: weighted_outputs(execute("FusedBatchNormGrad", (dy, x, scale, mean, inv_std))),
           backward_inputs),
]
