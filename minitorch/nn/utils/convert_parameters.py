"""Parameters as one flat vector and back (torch.nn.utils.parameters_to_vector / vector_to_parameters)."""
from ...ops import array_ops
from ...tensor import Tensor


def _check_tensor(value):
    if not isinstance(value, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(value).__name__}")


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one vector (differentiable, as in PyTorch).

    >>> layer = mt.nn.Linear(3, 2)
    >>> tuple(mt.nn.utils.parameters_to_vector(layer.parameters()).shape)
    (8,)
    """
    pieces = []
    for param in parameters:
        _check_tensor(param)
        pieces.append(param.reshape(-1))
    return array_ops.cat(pieces)


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of the vector `vec` into the parameters' values (unrecorded, like `.data =`).

    >>> layer = mt.nn.Linear(2, 1)
    >>> mt.nn.utils.vector_to_parameters(mt.tensor([1.0, 2.0, 3.0]), layer.parameters())
    >>> layer.weight, layer.bias
    (Parameter containing:
    tensor([[1., 2.]], requires_grad=True), Parameter containing:
    tensor([3.], requires_grad=True))
    """
    _check_tensor(vec)
    if vec.ndim != 1:
        raise TypeError(f"expected a 1-D vector of parameters, got shape {tuple(vec.shape)}")
    pointer = 0
    for param in parameters:
        _check_tensor(param)
        count = param.numel()
        if pointer + count > vec.shape[0]:
            raise ValueError(f"vector_to_parameters: the vector has {vec.shape[0]} elements, fewer than the parameters")
        param.data = vec[pointer:pointer + count].reshape(param.shape).detach().to(param.dtype)  # a view of vec, as in PyTorch
        pointer += count
