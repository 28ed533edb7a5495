"""minitorch.linalg: PyTorch's torch.linalg names, and the older torch-level ones (det, inverse, svd, ...).

The ops (kernels and gradients) are in minitorch/ops/linalg_ops.py, the norms in
ops/norm_ops.py, the products in ops/product_ops.py. Everything works on batches
of matrices in the last two dimensions, in float32 or float64; gradients, first
and second order, as PyTorch's (singular vectors need distinct singular values,
as everywhere).

>>> A = mt.tensor([[4.0, 1.0], [1.0, 3.0]])
>>> mt.linalg.det(A)
tensor(11.)
>>> mt.linalg.solve(A, mt.tensor([1.0, 2.0]))
tensor([0.0909, 0.6364])
"""
import numpy as np

from .creation import eye
from .engine.execute import execute
from .errors import ShapeError
from .ops import return_types
from .ops.coercion import as_operand
from .ops.comparison_ops import where
from .ops.linalg_ops import LinAlgError, check_matrix, check_square
from .ops.matrix_ops import diagonal as _diagonal
from .ops.norm_ops import linalg_norm as norm, matrix_norm, vector_norm
from .ops.product_ops import cross as _cross, matmul, matrix_power, multi_dot, vander as _vander
from .ops.writes import accepts_out

__all__ = [
    "LinAlgError", "cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvalsh", "inv", "lstsq", "matmul",
    "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
    "solve_triangular",
    "svd", "svdvals", "vander", "vecdot", "vector_norm",
]


def det(A):
    """The determinant of each square matrix. Runs the "MatrixDeterminant" op (gradient det(A) A^-T,
    or the cofactors from an SVD where A is singular).

    >>> mt.linalg.det(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    check_square(A, "linalg.det")
    return execute("MatrixDeterminant", (A,))


def slogdet(A):
    """The sign and the log of the absolute value of each determinant: a (sign, logabsdet) pair.
    Runs the "LogMatrixDeterminant" op.

    >>> mt.linalg.slogdet(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(0.6931))
    """
    check_square(A, "linalg.slogdet")
    return return_types.linalg_slogdet(*execute("LogMatrixDeterminant", (A,)))


def logdet(input):
    """log(det(A)): NaN for a negative determinant, -inf for zero, as PyTorch. Built from "LogMatrixDeterminant".

    >>> mt.logdet(mt.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    check_square(input, "logdet")
    sign, logabsdet = execute("LogMatrixDeterminant", (input,))
    return where(sign < 0, as_operand(np.array(np.nan, input._data.dtype)), logabsdet)


def inv(A):
    """The inverse of each square matrix (LinAlgError if one is singular). Runs the "MatrixInverse" op.

    >>> mt.linalg.inv(mt.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    check_square(A, "linalg.inv")
    return execute("MatrixInverse", (A,))


def solve(A, B, *, left=True):
    """X with A X = B (or X A = B with `left=False`); B may be a vector or a batch of vectors
    (B.shape == A.shape[:-1]), as PyTorch. Runs the "MatrixSolve" op.

    >>> mt.linalg.solve(mt.tensor([[2.0, 0.0], [0.0, 4.0]]), mt.tensor([[2.0], [2.0]]))
    tensor([[1.0000],
            [0.5000]])
    """
    check_square(A, "linalg.solve")
    if not left:
        return solve(A.mT, B.mT).mT
    vector = B.ndim == 1 or B.ndim == A.ndim - 1 and B.shape == A.shape[:-1]
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.shape[-2] != A.shape[-1]:
        raise ShapeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                         f"({tuple(A.shape[-2:])} and {tuple(rhs.shape[-2:])})")
    if rhs._data.dtype != A._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type {A.dtype} "
                           f"and B of type {B.dtype} instead")
    x = execute("MatrixSolve", (A, rhs))
    return x.squeeze(-1) if vector else x


def solve_triangular(input, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (X A = B with `left=False`) for a triangular A = `input`: only its upper (or lower)
    triangle is read, and with `unitriangular` not its diagonal either (ones are taken). Runs "MatrixSolve"
    on that triangle, so gradients reach only the triangle read.

    >>> A = mt.tensor([[2.0, 1.0], [9.0, 4.0]])   # the 9 is below the diagonal: not read
    >>> mt.linalg.solve_triangular(A, mt.tensor([[3.0], [4.0]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    check_square(input, "linalg.solve_triangular")
    if B.ndim < 2:
        raise RuntimeError(f"linalg.solve_triangular: The input tensor B must have at least 2 dimensions "
                           f"(got shape {tuple(B.shape)})")
    if unitriangular:
        ones = eye(input.shape[-1], dtype=input.dtype)
        triangle = (input.triu(1) if upper else input.tril(-1)) + ones
    else:
        triangle = input.triu() if upper else input.tril()
    return solve(triangle, B, left=left)


def cholesky(input, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix: lower L with A = L L^T (or upper
    U = L^T). Runs the "Cholesky" op (LinAlgError if a matrix is not positive-definite).

    >>> mt.linalg.cholesky(mt.tensor([[4.0, 2.0], [2.0, 2.0]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    check_square(input, "linalg.cholesky")
    lower = execute("Cholesky", (input,))
    return lower.mT if upper else lower


def qr(A, mode="reduced"):
    """The QR decomposition A = Q R (Q with orthonormal columns, R upper triangular): a (Q, R) pair.
    `mode`: 'reduced', 'complete', or 'r' (Q empty). Runs the "Qr" op.

    >>> A = mt.tensor([[3.0, 1.0], [4.0, 2.0]])
    >>> Q, R = mt.linalg.qr(A)
    >>> bool(((Q @ R - A).abs() < 1e-5).all()), R[1, 0].item(), round(abs(R[0, 0].item()), 4)
    (True, 0.0, 5.0)
    """
    check_matrix(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    q, r = execute("Qr", (A,), {"mode": "reduced" if mode == "r" else mode})
    if mode == "r":
        q = as_operand(np.zeros(0, A._data.dtype))
    return return_types.linalg_qr(q, r)


def svd(A, full_matrices=True, *, driver=None):
    """The singular value decomposition A = U diag(S) Vh, singular values in descending order:
    a (U, S, Vh) triple. Runs the "Svd" op (gradients for U and Vh need distinct singular values).

    >>> mt.linalg.svd(mt.tensor([[3.0, 0.0], [0.0, -2.0]])).S
    tensor([3., 2.])
    """
    check_matrix(A, "linalg.svd")
    return return_types.linalg_svd(*execute("Svd", (A,), {"full_matrices": bool(full_matrices)}))


def svdvals(A, *, driver=None):
    """The singular values of each matrix, in descending order. Runs the "Svd" op.

    >>> mt.linalg.svdvals(mt.tensor([[3.0, 0.0], [0.0, -2.0]]))
    tensor([3., 2.])
    """
    check_matrix(A, "linalg.svdvals")
    return execute("Svd", (A,), {"full_matrices": False})[1]


def eigh(input, UPLO="L"):
    """The eigenvalues (ascending) and orthonormal eigenvectors of each symmetric matrix, reading only
    its lower (UPLO='L') or upper triangle: an (eigenvalues, eigenvectors) pair. Runs "SelfAdjointEigV2".

    >>> mt.linalg.eigh(mt.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues
    tensor([1., 3.])
    """
    check_square(input, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return return_types.linalg_eigh(*execute("SelfAdjointEigV2", (input,), {"lower": UPLO == "L"}))


def eigvalsh(input, UPLO="L"):
    """The eigenvalues (ascending) of each symmetric matrix. Runs "SelfAdjointEigV2".

    >>> mt.linalg.eigvalsh(mt.tensor([[2.0, 1.0], [1.0, 2.0]]))
    tensor([1., 3.])
    """
    return eigh(input, UPLO).eigenvalues


def _tolerances(A, atol, rtol, rcond, largest_default):
    if rcond is not None:
        rtol = rcond
    atol = 0.0 if atol is None else float(atol)
    if rtol is None:
        rtol = largest_default if atol == 0 else 0.0
    return atol, float(rtol)


def pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse, singular values at or below max(atol, rtol * largest) treated as
    zero (rtol defaults to eps * max(m, n), as PyTorch). Runs the "PseudoInverse" op.

    >>> mt.linalg.pinv(mt.tensor([[1.0, 0.0], [0.0, 0.0]]))
    tensor([[1., 0.],
            [0., 0.]])
    """
    check_matrix(input, "linalg.pinv")
    eps = np.finfo(input._data.dtype).eps * max(input.shape[-2:])
    atol, rtol = _tolerances(input, atol, rtol, rcond, eps)
    return execute("PseudoInverse", (input,), {"atol": atol, "rtol": rtol, "hermitian": bool(hermitian)})


def matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above max(atol, rtol * largest) (int64; rtol defaults to
    eps * max(m, n) when atol is not given). Runs the "MatrixRank" op (not differentiable).

    >>> mt.linalg.matrix_rank(mt.ones(3, 3))
    tensor(1)
    """
    check_matrix(input, "linalg.matrix_rank")
    eps = np.finfo(input._data.dtype).eps * max(input.shape[-2:])
    atol, rtol = _tolerances(input, tol if atol is None else atol, rtol, None, eps)
    return execute("MatrixRank", (input,), {"atol": atol, "rtol": rtol, "hermitian": bool(hermitian)})


def lstsq(input, b, rcond=None, *, driver=None):
    """The least-squares solution X of A X = B (the minimum-norm one where A is rank-deficient) with
    PyTorch's other fields: residuals (for drivers 'gels', 'gelsd', 'gelss' when m > n and A has full
    rank), rank (not for 'gels') and singular values ('gelsd', 'gelss'). X is pinv(A) B, so its
    gradient is the pseudo-inverse's and the product's.

    >>> mt.linalg.lstsq(mt.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), mt.tensor([[1.0], [2.0], [3.0]])).solution
    tensor([[1.],
            [2.]])
    """
    check_matrix(input, "linalg.lstsq")
    driver = "gelsy" if driver is None else driver
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), got {driver}")
    vector = b.ndim == input.ndim - 1
    rhs = b.unsqueeze(-1) if vector else b
    if rhs.shape[-2] != input.shape[-2]:
        raise ShapeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), got {input.shape[-2]} and {rhs.shape[-2]}")
    m, n = input.shape[-2], input.shape[-1]
    eps = np.finfo(input._data.dtype).eps * max(m, n)
    cutoff = eps if rcond is None or rcond < 0 else rcond
    solution = matmul(pinv(input, rtol=cutoff), rhs)
    rank = execute("MatrixRank", (input,), {"atol": 0.0, "rtol": cutoff, "hermitian": False})
    empty = as_operand(np.zeros(0, input._data.dtype))
    residuals = empty
    if driver != "gelsy" and m > n and (rank._data == n).all():
        residuals = ((matmul(input, solution) - rhs) ** 2).sum(dim=-2)
        residuals = residuals.squeeze(-1) if vector else residuals
    return return_types.linalg_lstsq(
        solution.squeeze(-1) if vector else solution, residuals,
        as_operand(np.zeros(0, np.int64)) if driver == "gels" else rank,
        svdvals(input).detach() if driver in ("gelsd", "gelss") else empty,
    )


def matrix_exp(input):
    """The matrix exponential sum_k A^k / k! of each square matrix. Runs the "MatrixExponential" op
    (scipy.linalg.expm; the gradient is the adjoint Frechet derivative).

    >>> mt.linalg.matrix_exp(mt.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    check_square(input, "linalg.matrix_exp")
    return execute("MatrixExponential", (input,))


def cond(input, p=None):
    """The condition number of each matrix in the `p` norm (default 2: largest over smallest
    singular value). Built from the norms and "MatrixInverse".

    >>> mt.linalg.cond(mt.tensor([[2.0, 0.0], [0.0, 0.5]]))
    tensor(4.)
    """
    check_matrix(input, "linalg.cond")
    if p in (None, 2, -2):
        values = svdvals(input)
        ratio = values[..., 0] / values[..., -1]
        return ratio if p != -2 else 1 / ratio
    return matrix_norm(input, p) * matrix_norm(inv(input), p)


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along `dim` (default the last). Built from "Mul", "Sub", "Pack".

    >>> mt.linalg.cross(mt.tensor([0.0, 1.0, 0.0]), mt.tensor([0.0, 0.0, 1.0]))
    tensor([1., 0., 0.])
    """
    return _cross(input, other, dim)


def vecdot(x, y, *, dim=-1):
    """The dot products of the vectors along `dim` (broadcasting). Built from "Mul" and "Sum".

    >>> mt.linalg.vecdot(mt.ones(2, 3), mt.tensor([1.0, 2.0, 3.0]))
    tensor([6., 6.])
    """
    return (x * y).sum(dim=dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of the last two dimensions (torch.linalg.diagonal's defaults). Runs "Diagonal".

    >>> mt.linalg.diagonal(mt.tensor([[1, 2], [3, 4]]))
    tensor([1, 4])
    """
    return _diagonal(A, offset, dim1, dim2)


def vander(x, *, N=None):
    """The Vandermonde matrix with increasing powers 1, x, x^2, ..., x^(N-1) along the last dimension.

    >>> mt.linalg.vander(mt.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    return _vander(x, N, increasing=True)


# ----- the torch-level names (older forms, kept by PyTorch; their argument is `input`, linalg's `A`) -----

def torch_det(input):
    """The determinant of each square matrix (`mt.linalg.det`).

    >>> mt.det(mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(-2.)
    """
    return det(input)


def torch_slogdet(input):
    """(sign, logabsdet) of each determinant (`mt.linalg.slogdet`), as torch.slogdet's named tuple.

    >>> mt.slogdet(mt.eye(2))
    slogdet(sign=tensor(1.), logabsdet=tensor(0.))
    """
    return return_types.slogdet(*slogdet(input))


def inverse(input):
    """The inverse of each square matrix (`mt.linalg.inv`).

    >>> mt.inverse(mt.tensor([[2.0, 0.0], [0.0, 4.0]])).diagonal()
    tensor([0.5000, 0.2500])
    """
    return inv(input)


def pinverse(input, rcond=1e-15):
    """The pseudo-inverse with singular values at or below rcond * largest treated as zero.

    >>> mt.pinverse(mt.tensor([[2.0, 0.0]]))
    tensor([[0.5000],
            [0.0000]])
    """
    return pinv(input, rtol=rcond)


def torch_cholesky(input, upper=False):
    """The Cholesky factor (torch.cholesky, deprecated there for linalg.cholesky): lower by default.

    >>> mt.cholesky(mt.tensor([[4.0, 2.0], [2.0, 2.0]]), upper=True)
    tensor([[2., 1.],
            [0., 1.]])
    """
    return cholesky(input, upper=upper)


def cholesky_solve(input, input2, upper=False):
    """X with A X = B, given A's Cholesky factor L (A = L L^T; U^T U with `upper`). Runs "MatrixSolve" twice.

    >>> L = mt.linalg.cholesky(mt.tensor([[4.0, 2.0], [2.0, 2.0]]))
    >>> mt.cholesky_solve(mt.tensor([[2.0], [0.0]]), L).tolist()
    [[1.0], [-1.0]]
    """
    lower = input2.mT if upper else input2
    return execute("MatrixSolve", (lower.mT, execute("MatrixSolve", (lower, input))))


def torch_qr(input, some=True):
    """The QR decomposition (torch.qr, deprecated there): reduced with `some`, else complete.

    >>> tuple(mt.qr(mt.ones(3, 2)).Q.shape)
    (3, 2)
    """
    q, r = qr(input, "reduced" if some else "complete")
    return return_types.qr(q, r)


def torch_svd(input, some=True, compute_uv=True):
    """The SVD as torch.svd returns it: (U, S, V) with V, not V^T; reduced with `some`; with
    `compute_uv=False`, U and V are square zero matrices, as PyTorch's.

    >>> mt.svd(mt.tensor([[3.0, 0.0], [0.0, -2.0]])).S
    tensor([3., 2.])
    """
    u, s, vh = svd(input, full_matrices=not some)
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        u = as_operand(np.zeros(input.shape[:-2] + (m, m), input._data.dtype))
        vh = as_operand(np.zeros(input.shape[:-2] + (n, n), input._data.dtype))
    return return_types.svd(u, s, vh.mT)


def _removed(name, replacement):
    def removed(*args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed (as in PyTorch). "
                           f"Use {replacement} instead.")

    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"""Removed from PyTorch in 1.9 and raises there too: use {replacement}.

    >>> try:
    ...     mt.eye(2).{name}()
    ... except RuntimeError as error:
    ...     print(str(error).split(" (")[0])
    This function was deprecated since version 1.9 and is now removed
    """
    return removed


symeig = _removed("symeig", "minitorch.linalg.eigh")
legacy_eig = _removed("eig", "minitorch.linalg.eigh (complex eigenvalues are not supported)")


def eig(input):
    """torch.linalg.eig gives complex eigenvalues and eigenvectors, which minitorch (real dtypes only) cannot
    hold: it raises, naming linalg.eigh, the decomposition of symmetric matrices.

    >>> try:
    ...     mt.linalg.eig(mt.eye(2))
    ... except RuntimeError as error:
    ...     print(str(error).split(";")[0])
    linalg.eig: the eigenvalues of a general real matrix are complex, and minitorch has no complex dtype
    """
    raise RuntimeError("linalg.eig: the eigenvalues of a general real matrix are complex, and minitorch has no "
                       "complex dtype; use minitorch.linalg.eigh for a symmetric matrix")
legacy_lstsq = _removed("lstsq", "minitorch.linalg.lstsq (arguments reversed)")
legacy_solve = _removed("solve", "minitorch.linalg.solve (arguments reversed)")


# PyTorch's `out=` (`mt.linalg.inv(A, out=X)`), from one wrapper, for the functions whose PyTorch forms take it.
for _name in """cholesky cond cross det eig eigh eigvalsh inv lstsq matmul matrix_exp matrix_norm matrix_power matrix_rank
                multi_dot norm pinv qr slogdet solve solve_triangular svd svdvals vecdot vector_norm""".split():
    globals()[_name] = accepts_out(globals()[_name])
del _name
