"""torch.nn.utils: gradient clipping, parameters as one vector, weight and spectral normalisation, and
sequence packing (nn.utils.rnn).

>>> layer = mt.nn.Linear(3, 2)
>>> mt.nn.utils.parameters_to_vector(layer.parameters()).shape
minitorch.Size([8])
"""
from . import rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = [
    "rnn", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters", "remove_spectral_norm", "remove_weight_norm", "spectral_norm",
    "weight_norm",
]
