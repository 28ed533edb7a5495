"""`mt.backends.cuda`: the CUDA back end's flags (`matmul.allow_tf32`), accepted and unused on the CPU.

>>> mt.backends.cuda.matmul.allow_tf32 = True
>>> mt.backends.cuda.is_built()
False
"""
import types

matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                               allow_bf16_reduced_precision_reduction=True)


def is_built():
    """False: minitorch is not built with CUDA.

    >>> mt.backends.cuda.is_built()
    False
    """
    return False
