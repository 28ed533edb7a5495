"""The error classes every floor may raise (this file imports nothing from minitorch)."""


class ShapeError(RuntimeError, ValueError):
    """Shapes that an op cannot combine. A RuntimeError like PyTorch's, and a ValueError like numpy's.

    >>> try:
    ...     mt.ones(2, 3) @ mt.ones(2, 3)
    ... except mt.ShapeError as error:
    ...     print(error)
    MatMul: shapes (2, 3) and (2, 3) cannot be multiplied (3 columns vs 2 rows)
    """


class AnomalyError(RuntimeError):
    """Raised under anomaly detection when an op or a backward function makes NaN or Inf.

    >>> with mt.autograd.detect_anomaly():
    ...     mt.log(mt.tensor([-1.0]))
    Traceback (most recent call last):
        ...
    minitorch.errors.AnomalyError: Function 'Log' returned nan values in its output 0...
    """
