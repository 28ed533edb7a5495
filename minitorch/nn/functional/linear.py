"""Linear functions, as torch.nn.functional: linear, y = x W^T + b, one "MatMul" with the weight read
transposed; bilinear, y_k = x1^T W_k x2 + b_k, one matrix product and a sum."""
from ...errors import ShapeError
from ...ops import product_ops


def linear(input, weight, bias=None):
    """y = x W^T + b, with x of shape (*, in_features) and W of shape (out_features, in_features).

    >>> F = mt.nn.functional
    >>> F.linear(mt.ones(2, 3), mt.ones(4, 3), mt.zeros(4)).shape
    minitorch.Size([2, 4])
    """
    if input.ndim == 0 or weight.ndim != 2 or input.shape[-1] != weight.shape[1]:
        raise ShapeError(
            f"linear: input of shape {tuple(input.shape)} cannot be multiplied by weight of shape {tuple(weight.shape)}^T "
            f"(expected input of shape (*, {weight.shape[1] if weight.ndim == 2 else '?'}))"
        )
    output = product_ops.matmul(input, weight, transpose_b=True)
    return output if bias is None else output + bias


def bilinear(input1, input2, weight, bias=None):
    """y[..., k] = sum_ij input1[..., i] weight[k, i, j] input2[..., j] + bias[k], as torch's.

    Runs "MatMul" (x1 against the weight flattened to (in1, out in2)), then "Mul" and "Sum" with x2.

    >>> x1, x2 = mt.tensor([[1.0, 2.0]]), mt.tensor([[3.0, 4.0, 5.0]])
    >>> F.bilinear(x1, x2, mt.ones(1, 2, 3), mt.tensor([0.5]))
    tensor([[36.5000]])
    """
    if weight.ndim != 3:
        raise ShapeError(f"bilinear(): weight must be 3-D (out_features, in1_features, in2_features), got {tuple(weight.shape)}")
    if input1.ndim != input2.ndim:
        raise ShapeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise ShapeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {a} and {b}")
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise ShapeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected {in1}")
    if input2.shape[-1] != in2:
        raise ShapeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected {in2}")
    if bias is not None and tuple(bias.shape) != (out,):
        raise ShapeError(f"bilinear(): bias size does not match weight size: got {bias.shape[-1] if bias.ndim else bias.shape} "
                         f"but expected {out}")
    left = product_ops.matmul(input1, weight.permute(1, 0, 2).reshape(in1, out * in2))  # (*, out in2)
    output = (left.reshape(*input1.shape[:-1], out, in2) * input2.unsqueeze(-2)).sum(dim=-1)
    return output if bias is None else output + bias
