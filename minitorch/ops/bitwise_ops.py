"""Integers and bits: bitwise and/or/xor/not (& | ^ ~, also on bools), shifts (<< >>), gcd and lcm.
None is differentiable; floating inputs are refused, as in PyTorch.
"""
import numpy as np

from .. import dtypes
from ..engine.execute import execute
from .coercion import binary
from .rows import op


def _integers_only(ufunc, op_name):
    """The kernel `ufunc`, refusing floating inputs with PyTorch's NotImplementedError (a RuntimeError)."""

    def checked(*arrays):
        floating = next((a.dtype for a in arrays if a.dtype.kind == "f"), None)
        if floating is not None:
            raise NotImplementedError(f'"{op_name}" not implemented for {dtypes.from_numpy_dtype(floating)} '
                                      "(integer and bool tensors only)")
        return ufunc(*arrays)

    checked.__name__ = checked.__qualname__ = f"_{op_name}"
    return checked


bitwise_and = binary(op("BitwiseAnd", _integers_only(np.bitwise_and, "BitwiseAnd")), "bitwise_and", """a & b, elementwise, for integer and bool tensors. Runs the "BitwiseAnd" op.

    >>> mt.bitwise_and(mt.tensor([12, 10]), 6), mt.tensor([True, False]) & mt.tensor([True, True])
    (tensor([4, 2]), tensor([ True, False]))
    """)
bitwise_or = binary(op("BitwiseOr", _integers_only(np.bitwise_or, "BitwiseOr")), "bitwise_or", """a | b, elementwise, for integer and bool tensors. Runs the "BitwiseOr" op.

    >>> mt.bitwise_or(mt.tensor([12, 10]), 6)
    tensor([14, 14])
    """)
bitwise_xor = binary(op("BitwiseXor", _integers_only(np.bitwise_xor, "BitwiseXor")), "bitwise_xor", """a ^ b, elementwise, for integer and bool tensors. Runs the "BitwiseXor" op.

    >>> mt.bitwise_xor(mt.tensor([12, 10]), 6)
    tensor([10, 12])
    """)
op("Invert", _integers_only(np.invert, "Invert"))


def bitwise_not(input):
    """~x: NOT of a bool tensor, bitwise NOT of an integer one. Runs the "Invert" op.

    >>> mt.bitwise_not(mt.tensor([True, False])), ~mt.tensor([0, 5])
    (tensor([False,  True]), tensor([-1, -6]))
    """
    if input._data.dtype.kind == "f":
        raise TypeError(f"bitwise_not: not implemented for {input.dtype} (integer and bool tensors only)")
    return execute("Invert", (input,))


bitwise_left_shift = binary(op("LeftShift", np.left_shift), "bitwise_left_shift", """input << other, elementwise (integers only; shifting by the width or more gives 0). Runs the "LeftShift" op.

    >>> mt.bitwise_left_shift(mt.tensor([1, -3]), 2), mt.tensor([1, 2]) << 1
    (tensor([  4, -12]), tensor([2, 4]))
    """, kinds="iub")
bitwise_right_shift = binary(op("RightShift", np.right_shift), "bitwise_right_shift", """input >> other, elementwise, arithmetic (the sign is kept; integers only). Runs the "RightShift" op.

    >>> mt.bitwise_right_shift(mt.tensor([16, -16]), 2), mt.tensor([5]) >> 1
    (tensor([ 4, -4]), tensor([2]))
    """, kinds="iub")
gcd = binary(op("Gcd", np.gcd), "gcd", """The greatest common divisor of input and other, elementwise (integers only; gcd(0, 0) = 0). Runs the "Gcd" op.

    >>> mt.gcd(mt.tensor([12, -18, 0]), mt.tensor([8, 12, 0]))
    tensor([4, 6, 0])
    """, kinds="iub")
lcm = binary(op("Lcm", np.lcm), "lcm", """The least common multiple of input and other, elementwise (integers only). Runs the "Lcm" op.

    >>> mt.lcm(mt.tensor([4, -6, 0]), mt.tensor([6, 4, 5]))
    tensor([12, 12,  0])
    """, kinds="iub")
