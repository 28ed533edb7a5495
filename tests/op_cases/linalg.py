"""Cases for the products, matrix structure, norms and decompositions (surface: reductions/linalg)."""
import numpy as np

import minitorch as mt

from . import OpCase


def normal(*shapes):
    return lambda rng: [rng.standard_normal(s) for s in shapes]


def well_conditioned(*shapes):
    """Matrices near the identity (plus a random part): invertible, with distinct singular values."""
    def make(rng):
        return [rng.standard_normal(s) * 0.5 + np.eye(s[-2], s[-1]) * 2 for s in shapes]
    return make


def symmetric_positive(x):
    return x @ x.mT + 3 * mt.eye(x.shape[-1], dtype=x.dtype)


def singular(rng):
    a = rng.standard_normal((3, 3))
    a[2] = a[0] + 2 * a[1]
    return [a]


CASES = [
    OpCase("Einsum", lambda a, b: mt.einsum("ij,jk->ik", a, b), normal((2, 3), (3, 4))),
    OpCase("Einsum", lambda a: mt.einsum("ii->i", a) ** 2, normal((3, 3)), name="diagonal"),
    OpCase("Einsum", lambda a, b: mt.einsum("iij,k->jk", a, b) ** 2, normal((3, 3, 2), (4,)), name="trace-outer"),
    OpCase("Einsum", lambda a, b, c: mt.einsum("b...i,ij,j->b...", a, b, c), normal((2, 1, 3), (3, 4), (4,)),
           name="ellipsis-three"),
    OpCase("Einsum", lambda a, b: mt.einsum("bij,bjk->bik", a, b), normal((1, 2, 3), (4, 3, 2)), name="broadcast"),
    OpCase("Diagonal", lambda a: mt.diagonal(a, -1, 2, 0) ** 2, normal((3, 2, 4))),
    OpCase("DiagEmbed", lambda a: mt.diag_embed(a, 1, 0, 2) ** 2, normal((2, 3))),
    OpCase("MatrixBandPart", lambda a: mt.tril(a, -1) ** 2 + mt.triu(a, 1), normal((2, 3, 4))),
    OpCase("Diagonal", lambda a: mt.trace(a) * a, normal((3, 4)), name="trace"),
    OpCase("SelectV2", lambda a: a.clone().fill_diagonal_(0.5) * a, normal((3, 3)), name="fill_diagonal"),
    OpCase("MatMul", lambda a, b, c: mt.addmm(a, b, c, beta=0.5, alpha=2) + mt.baddbmm(a, b.unsqueeze(0), c.unsqueeze(0)),
           normal((2, 2), (2, 3), (3, 2)), name="addmm-baddbmm"),
    OpCase("MatMul", lambda a, b: mt.tensordot(a, b, ([0, 2], [1, 0])) + mt.kron(a[0], b[0, :2]).sum(),
           normal((3, 2, 4), (4, 3, 2)), name="tensordot-kron"),
    OpCase("Pack", lambda a, b: mt.cross(a, b, dim=1), normal((2, 3), (2, 3)), name="cross"),
    OpCase("Cumprod", lambda a: mt.vander(a, 4), normal((3,)), name="vander"),
    OpCase("MatrixDeterminant", mt.linalg.det, normal((2, 3, 3))),
    # At a singular matrix the gradient (the cofactors, from an SVD) is exact, but not differentiable
    # again: a zero singular value is |.| of the matrix entries there (PyTorch has the same limit).
    OpCase("MatrixDeterminant", mt.linalg.det, singular, name="singular", second_order=False),
    OpCase("LogMatrixDeterminant", lambda a: mt.linalg.slogdet(a).logabsdet, well_conditioned((3, 3))),
    OpCase("MatrixInverse", mt.linalg.inv, well_conditioned((2, 3, 3))),
    OpCase("MatrixSolve", mt.linalg.solve, lambda rng: well_conditioned((3, 3))(rng) + [rng.standard_normal((3, 2))]),
    OpCase("Cholesky", lambda a: mt.linalg.cholesky(symmetric_positive(a)), normal((3, 3))),
    OpCase("Qr", lambda a: tuple(mt.linalg.qr(a)), well_conditioned((4, 3))),
    OpCase("Qr", lambda a: tuple(mt.linalg.qr(a)), well_conditioned((2, 4)), name="wide"),
    OpCase("Svd", lambda a: tuple(mt.linalg.svd(a, full_matrices=False)), normal((4, 3))),
    OpCase("Svd", lambda a: tuple(mt.linalg.svd(a, full_matrices=False)), normal((2, 4)), name="wide"),
    OpCase("Svd", lambda a: mt.linalg.svdvals(a), normal((3, 3)), name="values"),
    OpCase("SelfAdjointEigV2", lambda a: tuple(mt.linalg.eigh(a + a.mT)), normal((3, 3))),
    OpCase("MatrixExponential", mt.linalg.matrix_exp, lambda rng: [rng.standard_normal((2, 3, 3)) * 0.5]),
    OpCase("PseudoInverse", mt.linalg.pinv, normal((4, 3))),
    OpCase("PseudoInverse", lambda a, b: mt.linalg.lstsq(a, b).solution, normal((2, 3), (2, 2)), name="lstsq-wide"),
    OpCase("VectorNorm", lambda a: mt.linalg.vector_norm(a, dim=1), normal((3, 4))),
    OpCase("VectorNorm", lambda a: mt.linalg.vector_norm(a, 3) + mt.linalg.vector_norm(a, 0.5, dim=0).sum(),
           normal((3, 4)), name="p"),
    OpCase("VectorNorm", lambda a: mt.linalg.vector_norm(a, float("inf"), dim=0) + mt.linalg.vector_norm(a, 1),
           normal((3, 4)), name="inf-1", second_order=False),
    OpCase("VectorNorm", lambda a, b: mt.cdist(a, b) + mt.dist(a[0], b[1]), normal((3, 2), (4, 2)), name="cdist"),
    OpCase("VectorNorm", lambda a: mt.renorm(a, 2, 0, 1.0), normal((3, 4)), name="renorm"),
    OpCase("Svd", lambda a: mt.linalg.matrix_norm(a, "nuc") + mt.linalg.matrix_norm(a, 2), normal((3, 4)),
           name="matrix-norms"),
    OpCase("MatMul", lambda a: mt.cov(a, aweights=mt.tensor([1.0, 2.0, 3.0, 1.0], dtype=mt.float64)) + mt.corrcoef(a),
           normal((3, 4)), name="cov"),
]
