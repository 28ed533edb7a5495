"""Matrix decompositions and solvers: determinants, inverses, solves, Cholesky, QR, SVD, eigh,
the matrix exponential and the pseudo-inverse. Kernels are numpy.linalg / scipy.linalg (batched
over leading dimensions); gradients follow PyTorch's tools/autograd/derivatives.yaml and
torch/csrc/autograd/FunctionsManual.cpp, written with minitorch ops so that they are
differentiable again. The public functions are in minitorch/linalg.py (and the torch-level
names, det, inverse, svd, ..., at the end of this file).
"""
import numpy as np
import scipy.linalg

from ..engine.execute import execute
from ..errors import ShapeError
from .coercion import as_operand
from .matrix_ops import diag_embed, tril, triu
from .product_ops import matmul
from .reduction_ops import products_of_others
from .rows import TRANSPOSE, op


class LinAlgError(RuntimeError):
    """A matrix the decomposition or solver cannot handle (singular, not positive-definite), as
    PyTorch's torch.linalg.LinAlgError.

    >>> try:
    ...     mt.linalg.inv(mt.zeros(2, 2))
    ... except mt.linalg.LinAlgError as error:
    ...     print(error)
    linalg.inv: the inversion could not be completed because the input matrix is singular.
    """


def _eye(n, like):
    return as_operand(np.eye(n, dtype=like._data.dtype))


def _linalg_kernel(message, fn):
    """A numpy.linalg kernel whose LinAlgError becomes minitorch's, with `message`."""
    def run(*arrays, **attrs):
        try:
            return fn(*arrays, **attrs)
        except np.linalg.LinAlgError:
            raise LinAlgError(message) from None
    return run


# ----- determinants -----


def _det_grad(op, grad):
    """d det(A) = det(A) tr(A^-1 dA) (Jacobi): gA = g det(A) A^-T. Where a matrix is singular, the
    same cofactor matrix from the SVD A = U S V^T: det(U) det(V) U diag(prod_{j != i} s_j) V^T
    (PyTorch's linalg_det_backward). At a singular matrix that gradient is exact but not
    differentiable again (a zero singular value has a kink), in PyTorch too."""
    a, det = op.inputs[0], op.outputs[0]
    scale = (grad * det).unsqueeze(-1).unsqueeze(-1)
    if (det._data != 0).all():
        return scale * execute("MatrixInverse", (a,)).mT
    u, s, vh = execute("Svd", (a,), {"full_matrices": False})
    sign = (execute("MatrixDeterminant", (u,)) * execute("MatrixDeterminant", (vh,))).unsqueeze(-1).unsqueeze(-1)
    cofactors = matmul(u * products_of_others(s).unsqueeze(-2), vh) * sign
    return grad.unsqueeze(-1).unsqueeze(-1) * cofactors


op("MatrixDeterminant", lambda a: np.asarray(np.linalg.det(a)), _det_grad, needs="both", jvp=TRANSPOSE)


def _slogdet(a):
    sign, logabsdet = np.linalg.slogdet(a)
    return np.asarray(sign), np.asarray(logabsdet)


def _slogdet_grad(op, grad_sign, grad_logabsdet):
    """d log|det(A)| = tr(A^-1 dA): gA = g A^-T (the sign is piecewise constant: no gradient)."""
    a = op.inputs[0]
    if grad_logabsdet is None:
        return a * 0
    return grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * execute("MatrixInverse", (a,)).mT


op("LogMatrixDeterminant", _slogdet, _slogdet_grad, needs="inputs", accepts_none=(0, 1), jvp=TRANSPOSE)


# ----- inverse and solve -----


def _inverse_grad(op, grad):
    """Y = A^-1: dY = -Y dA Y, so gA = -Y^T g Y^T."""
    y = op.outputs[0]
    return -matmul(matmul(y.mT, grad), y.mT)


def _inverse_jvp(inputs, outputs, attrs, tangents):
    """dY = -Y dA Y."""
    y = outputs[0]
    return -matmul(matmul(y, tangents[0]), y)


op("MatrixInverse", _linalg_kernel(
    "linalg.inv: the inversion could not be completed because the input matrix is singular.", np.linalg.inv), _inverse_grad, needs="outputs", jvp=_inverse_jvp)


def _solve_grad(op, grad):
    """X = A^-1 B: gB = A^-T g (a solve with A^T), gA = -gB X^T."""
    a, x = op.inputs[0], op.outputs[0]
    grad_b = execute("MatrixSolve", (a.mT, grad))
    need_a, need_b = op.needs_input_grad
    return (-matmul(grad_b, x.mT) if need_a else None), (grad_b if need_b else None)


op("MatrixSolve", _linalg_kernel(
    "linalg.solve: The solver failed because the input matrix is singular.", np.linalg.solve), _solve_grad, needs="both", jvp=TRANSPOSE)


# ----- Cholesky -----


def _halve_diagonal(x):
    n = x.shape[-1]
    return x * as_operand((1 - 0.5 * np.eye(n)).astype(x._data.dtype))


def _cholesky_grad(op, grad):
    """A = L L^T: gA = sym(L^-T Phi(L^T gL) L^-1), Phi = the lower triangle with the diagonal halved,
    sym(X) = (X + X^T) / 2 (Murray 2016, arXiv:1602.07527; PyTorch's cholesky_backward)."""
    lower = op.outputs[0]
    inverse = execute("MatrixInverse", (lower,))
    phi = _halve_diagonal(tril(matmul(lower.mT, grad)))
    grad_a = matmul(matmul(inverse.mT, phi), inverse)
    return (grad_a + grad_a.mT) * 0.5


op("Cholesky", _linalg_kernel(
    "linalg.cholesky: The factorization could not be completed because the input is not positive-definite.",
    np.linalg.cholesky), _cholesky_grad, needs="outputs", jvp=TRANSPOSE)


# ----- QR -----

def _qr(a, mode):
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


def _copyltu_adjoint(x):
    """syminvadj(triu(x)): x's upper triangle reflected onto the lower one (diagonal kept once)."""
    upper = triu(x)
    return upper + triu(x, 1).mT


def _qr_grad(op, grad_q, grad_r):
    """A = QR (m >= n, reduced): gA = (gQ + Q copyltu(M)) R^-T with M = gR R^T - Q^T gQ and copyltu
    reflecting the upper triangle (PyTorch's linalg_qr_backward). m < n: A = [X | Y] with X square,
    R = [U | V]: Y's gradient is Q gV and X's is the square case with gQ + Y gV^T."""
    a = op.inputs[0]
    q, r = op.outputs
    m, n = a.shape[-2], a.shape[-1]
    if op.attrs["mode"] == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    grad_q = q * 0 if grad_q is None else grad_q
    grad_r = r * 0 if grad_r is None else grad_r
    if m >= n:
        return _qr_square_grad(q, r, grad_q, grad_r)
    grad_u, grad_v = grad_r[..., :, :m], grad_r[..., :, m:]
    y = a[..., :, m:]
    grad_x = _qr_square_grad(q, r[..., :, :m], grad_q + matmul(y, grad_v.mT), grad_u)
    return execute("ConcatV2", (grad_x, matmul(q, grad_v)), {"axis": a.ndim - 1})


op("Qr", _qr, _qr_grad, needs="both", accepts_none=(0, 1), jvp=TRANSPOSE)


def _qr_square_grad(q, r, grad_q, grad_r):
    inner = matmul(grad_r, r.mT) - matmul(q.mT, grad_q)
    return _solve_right_transpose(r, grad_q + matmul(q, _copyltu_adjoint(inner)))


def _solve_right_transpose(r, b):
    """b R^-T, as a solve: (R^-1 b^T)^T."""
    return execute("MatrixSolve", (r, b.mT)).mT


# ----- SVD -----

def _svd(a, full_matrices):
    try:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix is ill-conditioned "
                          "or has too many repeated singular values.") from None
    return u, s, vh


def _skew(x):
    return x - x.mT


def _svd_grad(op, grad_u, grad_s, grad_vh):
    """A = U diag(S) V^T: gA = U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)] V^T, with
    E_ij = s_j^2 - s_i^2 (1 on the diagonal), plus the parts of gU (gV) outside U's (V's) span
    when A is tall (wide): PyTorch's svd_backward. Needs distinct nonzero singular values where
    U or V is used; with full_matrices, the extra singular vectors' gradients are ignored, as in PyTorch."""
    a = op.inputs[0]
    u, s, vh = op.outputs
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    if op.attrs["full_matrices"]:
        u, vh = u[..., :, :k], vh[..., :k, :]
        grad_u = None if grad_u is None else grad_u[..., :, :k]
        grad_vh = None if grad_vh is None else grad_vh[..., :k, :]
    if grad_u is None and grad_vh is None:
        return matmul(u * (s * 0 if grad_s is None else grad_s).unsqueeze(-2), vh)
    v = vh.mT
    grad_v = None if grad_vh is None else grad_vh.mT
    squares = s * s
    gaps = squares.unsqueeze(-2) - squares.unsqueeze(-1) + _eye(k, s)
    inner = None
    if grad_u is not None:
        inner = _skew(matmul(u.mT, grad_u)) * s.unsqueeze(-2)
    if grad_v is not None:
        term = s.unsqueeze(-1) * _skew(matmul(v.mT, grad_v))
        inner = term if inner is None else inner + term
    inner = inner / gaps
    if grad_s is not None:
        inner = inner + diag_embed(grad_s)
    if m > k and grad_u is not None:
        scaled = grad_u / s.unsqueeze(-2)
        return matmul(matmul(u, inner) + scaled - matmul(u, matmul(u.mT, scaled)), vh)
    if n > k and grad_v is not None:
        scaled = grad_v / s.unsqueeze(-2)
        return matmul(u, matmul(inner, vh) + scaled.mT - matmul(matmul(scaled.mT, v), vh))
    return matmul(matmul(u, inner), vh)


op("Svd", _svd, _svd_grad, needs="both", accepts_none=(0, 1, 2), jvp=TRANSPOSE)


# ----- symmetric eigendecomposition -----

def _eigh(a, lower):
    try:
        values, vectors = np.linalg.eigh(a, UPLO="L" if lower else "U")
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.eigh: The algorithm failed to converge because the input matrix is "
                          "ill-conditioned or has too many repeated eigenvalues.") from None
    return values, vectors


def _eigh_grad(op, grad_values, grad_vectors):
    """A = V diag(L) V^T: gA = V [diag(gL) + skew(V^T gV) / (2 E)] V^T with E_ij = L_j - L_i (the
    projection onto symmetric matrices; PyTorch's linalg_eig_backward, hermitian case). Needs
    distinct eigenvalues where V is used."""
    values, vectors = op.outputs
    inner = None
    if grad_vectors is not None:
        gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + _eye(values.shape[-1], values)
        inner = _skew(matmul(vectors.mT, grad_vectors)) * 0.5 / gaps
    if grad_values is not None:
        inner = diag_embed(grad_values) if inner is None else inner + diag_embed(grad_values)
    return matmul(matmul(vectors, inner), vectors.mT)


op("SelfAdjointEigV2", _eigh, _eigh_grad, needs="outputs", accepts_none=(0, 1), jvp=TRANSPOSE)


# ----- the matrix exponential -----


def _matrix_exp_grad(op, grad):
    """The adjoint of the Frechet derivative, read off a block matrix:
    expm([[A^T, g], [0, A^T]]) = [[., gA], [0, .]] (PyTorch's linalg_matrix_exp_differential)."""
    a = op.inputs[0]
    n, last = a.shape[-1], a.ndim - 1
    top = execute("ConcatV2", (a.mT, grad), {"axis": last})
    bottom = execute("ConcatV2", (a * 0, a.mT), {"axis": last})
    block = execute("MatrixExponential", (execute("ConcatV2", (top, bottom), {"axis": last - 1}),))
    return block[..., :n, n:]


op("MatrixExponential", lambda a: np.asarray(scipy.linalg.expm(a)), _matrix_exp_grad, needs="inputs", jvp=TRANSPOSE)


# ----- the pseudo-inverse -----

def _pinv(a, atol, rtol, hermitian):
    if hermitian:
        values, vectors = np.linalg.eigh(a)
        largest = np.abs(values).max(axis=-1, keepdims=True, initial=0.0)
        keep = np.abs(values) > np.maximum(atol, rtol * largest)
        inverse = np.where(keep, 1 / np.where(keep, values, 1), 0)
        return np.matmul(vectors * inverse[..., None, :], np.swapaxes(vectors, -1, -2))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    largest = s.max(axis=-1, keepdims=True, initial=0.0)
    keep = s > np.maximum(atol, rtol * largest)
    inverse = np.where(keep, 1 / np.where(keep, s, 1), 0)
    return np.matmul(np.swapaxes(vh, -1, -2) * inverse[..., None, :], np.swapaxes(u, -1, -2))


def _pinv_grad(op, grad):
    """X = A^+: dX = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X (Golub and Pereyra 1973),
    so gA = -X^T g X^T + (I - A X) g^T X X^T + X^T X g^T (I - X A). Valid where the rank is constant."""
    a, x = op.inputs[0], op.outputs[0]
    m, n = a.shape[-2], a.shape[-1]
    first = -matmul(matmul(x.mT, grad), x.mT)
    second = matmul(matmul(_eye(m, a) - matmul(a, x), grad.mT), matmul(x, x.mT))
    third = matmul(matmul(matmul(x.mT, x), grad.mT), _eye(n, a) - matmul(x, a))
    return first + second + third


op("PseudoInverse", _pinv, _pinv_grad, needs="both", jvp=TRANSPOSE)


def _matrix_rank(a, atol, rtol, hermitian):
    values = np.abs(np.linalg.eigvalsh(a)) if hermitian else np.linalg.svd(a, compute_uv=False)
    largest = values.max(axis=-1, keepdims=True, initial=0.0)
    return np.asarray((values > np.maximum(atol, rtol * largest)).sum(axis=-1), dtype=np.int64)


op("MatrixRank", _matrix_rank)


def check_square(a, name):
    """Refuses what is not a (batch of) square floating matrices, naming the function `name`.

    >>> from minitorch.ops.linalg_ops import check_square
    >>> check_square(mt.ones(2, 3), "linalg.det")
    Traceback (most recent call last):
        ...
    minitorch.errors.ShapeError: linalg.det: A must be batches of square matrices, but they are (2, 3) matrices
    """
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"{name}: A must be batches of square matrices, but they are {tuple(a.shape[-2:])} matrices")
    if a._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point tensor as input. Got {a.dtype}")


def check_matrix(a, name):
    """Refuses what is not a (batch of) floating matrices, naming the function `name`.

    >>> from minitorch.ops.linalg_ops import check_matrix
    >>> check_matrix(mt.tensor([1, 2]), "linalg.svd")
    Traceback (most recent call last):
        ...
    minitorch.errors.ShapeError: linalg.svd: The input tensor A must have at least 2 dimensions, got shape (2,)
    """
    if a.ndim < 2:
        raise ShapeError(f"{name}: The input tensor A must have at least 2 dimensions, got shape {tuple(a.shape)}")
    if a._data.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point tensor as input. Got {a.dtype}")
