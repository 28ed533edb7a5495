"""torch.nn.utils: gradient clipping, parameters as one vector, and sequence packing (nn.utils.rnn).

>>> layer = mt.nn.Linear(3, 2)
>>> mt.nn.utils.parameters_to_vector(layer.parameters()).shape
(8,)
"""
from . import rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "rnn", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters",
]
