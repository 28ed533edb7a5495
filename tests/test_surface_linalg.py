"""Products, matrix structure, norms and decompositions against PyTorch: values, dtypes, shapes,
gradients, errors. Finite differences (first and second order, forward mode) are the op cases in
tests/op_cases/linalg.py."""
import numpy as np
import pytest

import minitorch as mt

from parity_reductions import compare, parity, same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(1)
M23, M34, M33 = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 4)), RNG.standard_normal((3, 3))
B234, B245 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
V3, V4 = RNG.standard_normal(3), RNG.standard_normal(4)
WELL = M33 * 0.3 + 2 * np.eye(3)
SPD = M33 @ M33.T + 3 * np.eye(3)
BATCH_WELL = RNG.standard_normal((2, 3, 3)) * 0.3 + 2 * np.eye(3)


# ----- products -----

@pytest.mark.parametrize("call", [
    ("mm", (M23, M34)), ("bmm", (B234, B245)), ("mv", (M34, V4)), ("dot", (V3, V3 * 2)), ("vdot", (V3, V3)),
    ("inner", (M23, RNG.standard_normal((4, 3)))), ("inner", (np.array(2.0), V3)), ("outer", (V3, V4)),
    ("ger", (V3, V4)), ("kron", (M23, RNG.standard_normal((2, 2)))), ("kron", (np.arange(1, 3), np.arange(1, 4))),
    ("kron", (M23, V4)), ("tensordot", (B234, RNG.standard_normal((3, 4, 5)))), ("mm", (M23.astype(int), M34.astype(int))),
])
def test_products(call):
    name, args = call
    parity(torch, name, *args)


def test_tensordot_forms():
    a, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((5, 4, 6))
    parity(torch, "tensordot", a, b, dims=([1, 2], [1, 0]))
    parity(torch, "tensordot", V3, V4, dims=0)
    parity(torch, "tensordot", M23, M34, dims=1)


@pytest.mark.parametrize("call", [
    ("mm", (M23, V3)), ("mm", (M23, M23)), ("mm", (M23.astype(np.float32), M34)), ("bmm", (B234, B245[:1])),
    ("mv", (M23, V4)), ("dot", (V3, V4)), ("dot", (V3, V3.astype(np.float32))), ("dot", (M23, M23)),
])
def test_product_errors(call):
    name, args = call
    same_error(torch, name, *args)


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
    ("i,i", [(3,), (3,)]), ("i,j->ij", [(3,), (4,)]), ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
    ("...ij,jk", [(5, 2, 3), (3, 2)]), ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]), ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("iij,k->jk", [(3, 3, 2), (4,)]), ("ijk->", [(2, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ba", [(2, 3)]), ("...", [(2, 3)]),
])
def test_einsum(equation, shapes):
    operands = [RNG.standard_normal(s) for s in shapes]
    parity(torch, "einsum", equation, *operands)


def test_einsum_list_and_errors():
    ours = mt.einsum("ij,jk", [mt.tensor(M23), mt.tensor(M34)])
    compare(ours, torch.einsum("ij,jk", [torch.tensor(M23), torch.tensor(M34)]), torch)
    same_error(torch, "einsum", "ij,jk->ik", M23, M23)
    same_error(torch, "einsum", "ij->ii", M23)
    same_error(torch, "einsum", "ij,jk->il", M23, M34)
    same_error(torch, "einsum", "ijk", M23)


@pytest.mark.parametrize("name, args", [
    ("addmm", (M33[:2, :2], M23, M34[:, :2])), ("addmm", (V4, M23, M34)), ("addbmm", (M33[:, :3], RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 3)))),
    ("baddbmm", (RNG.standard_normal((2, 3, 5)), B234, B245)), ("addmv", (V3, M34, V4)), ("addr", (M34, V3, V4)),
])
@pytest.mark.parametrize("scales", [{}, {"beta": 0.5, "alpha": 2.0}, {"beta": 0}])
def test_multiply_and_add(name, args, scales):
    parity(torch, name, *args, **scales)


def test_multiply_and_add_beta_zero_ignores_nan():
    parity(torch, "addmm", np.full((2, 4), np.nan), M23, M34, beta=0)


@pytest.mark.parametrize("name", ["addmm_", "addbmm_", "baddbmm_", "addmv_", "addr_"])
def test_multiply_and_add_in_place(name):
    args = {"addmm_": (M23[:, :2].copy(), M23, M34[:, :2]), "addbmm_": (M33.copy(), B234[:, :, :3].copy() * 0 + 1, B245[:, :3, :3].copy()),
            "baddbmm_": (RNG.standard_normal((2, 3, 5)), B234, B245), "addmv_": (V3.copy(), M34, V4),
            "addr_": (M34.copy(), V3, V4)}[name]
    if name == "addbmm_":
        args = (M33.copy(), RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 3)))
    ours = mt.tensor(args[0])
    theirs = torch.tensor(args[0])
    result = getattr(ours, name)(*[mt.tensor(a) for a in args[1:]], beta=0.5, alpha=2)
    getattr(theirs, name)(*[torch.tensor(a) for a in args[1:]], beta=0.5, alpha=2)
    assert result is ours
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
def test_chains_and_powers():
    mats = [M23, M34, RNG.standard_normal((4, 2)), RNG.standard_normal(2)]
    ours = mt.linalg.multi_dot([mt.tensor(m) for m in mats])
    compare(ours, torch.linalg.multi_dot([torch.tensor(m) for m in mats]), torch)
    ours = mt.chain_matmul(mt.tensor(M23), mt.tensor(M34), mt.tensor(mats[2]))
    compare(ours, torch.linalg.multi_dot([torch.tensor(m) for m in mats[:3]]), torch)
    for n in (0, 1, 2, 5, -1, -3):
        parity(torch, "matrix_power", WELL, n)
        parity(torch, "linalg.matrix_power", BATCH_WELL, n)
    same_error(torch, "matrix_power", M23, 2)


def test_multi_dot_gradient_and_errors():
    mats = [RNG.standard_normal(3), M34, RNG.standard_normal((4, 2))]
    ours = [mt.tensor(m, requires_grad=True) for m in mats]
    theirs = [torch.tensor(m, requires_grad=True) for m in mats]
    mt.linalg.multi_dot(ours).sum().backward()
    torch.linalg.multi_dot(theirs).sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="at least 2 tensors"):
        mt.linalg.multi_dot([mt.tensor(M23)])
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        mt.linalg.multi_dot([mt.tensor(M23), mt.tensor(M23)])


@pytest.mark.filterwarnings("ignore:Using torch.cross without specifying the dim")
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": -1}])
def test_cross(kwargs):
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    parity(torch, "cross", a, b, **kwargs)
    parity(torch, "linalg.cross", a, b)
    parity(torch, "linalg.cross", a, RNG.standard_normal((1, 3)))
    same_error(torch, "linalg.cross", M23, M23, dim=0)


@pytest.mark.parametrize("kwargs", [{}, {"N": 2}, {"N": 5, "increasing": True}, {"N": 0}])
def test_vander(kwargs):
    # PyTorch 2.13's vander cannot run backward (an in-place cumprod); the gradient is the op case's.
    parity(torch, "vander", np.array([0.0, 1.5, -2.0]), grad=False, **kwargs)
    parity(torch, "vander", np.array([1, 2, 3]), **kwargs)


def test_linalg_vander_and_vecdot():
    parity(torch, "linalg.vander", np.array([0.0, 1.5, -2.0]), grad=False)
    parity(torch, "linalg.vander", np.array([0.5, 2.0]), N=4, grad=False)
    parity(torch, "linalg.vecdot", M23, V3)
    parity(torch, "linalg.vecdot", B234, B234, dim=1)


# ----- matrix structure -----

@pytest.mark.parametrize("args", [(), (1,), (-1,), (1, 0, 2), (-1, 2, 0), (5,)])
def test_diagonal(args):
    parity(torch, "diagonal", B234, *args)


def test_diagonal_is_a_view_both_ways():
    x = mt.tensor(M33)
    d = x.diagonal()
    x.add_(1)
    np.testing.assert_allclose(d.numpy(), np.diagonal(M33) + 1)
    d.add_(1)  # writes the diagonal, as PyTorch's (tests/test_views.py compares every view with PyTorch)
    np.testing.assert_allclose(x.numpy(), M33 + 1 + np.eye(3))


@pytest.mark.parametrize("args", [(), (1,), (-2,), (0, 0, 2), (1, 2, 0), (-1, -1, 0)])
def test_diag_embed(args):
    parity(torch, "diag_embed", M23, *args)


@pytest.mark.parametrize("x, k", [(V3, 0), (V3, 2), (V3, -1), (M23, 0), (M23, 1), (M23, -1), (np.arange(4), 1)])
def test_diag_and_diagflat(x, k):
    parity(torch, "diag", x, k)
    parity(torch, "diagflat", x, k)


def test_diag_errors_and_trace():
    same_error(torch, "diag", B234)
    parity(torch, "trace", M34)
    parity(torch, "trace", np.arange(6).reshape(2, 3))
    same_error(torch, "trace", B234)


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
def test_triangles(name, k):
    parity(torch, name, M34, k)
    parity(torch, name, B234, diagonal=k)
    ours, theirs = mt.tensor(M34), torch.tensor(M34)
    assert getattr(ours, name + "_")(k) is ours
    getattr(theirs, name + "_")(k)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


def test_triangle_errors_and_indices():
    same_error(torch, "tril", V3)
    for args in [(3, 3), (3, 4, 1), (4, 3, -2), (0, 0), (3, 3, 10)]:
        parity(torch, "tril_indices", *args)
        parity(torch, "triu_indices", *args)


@pytest.mark.parametrize("shape, wrap", [((3, 3), False), ((7, 3), True), ((7, 3), False), ((3, 5), False), ((2, 2, 2), False)])
def test_fill_diagonal_(shape, wrap):
    ours, theirs = mt.zeros(*shape), torch.zeros(*shape)
    assert ours.fill_diagonal_(2.5, wrap=wrap) is ours
    theirs.fill_diagonal_(2.5, wrap=wrap)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_fill_diagonal_is_recorded():
    x = mt.tensor(M33, requires_grad=True)
    y = x * 1
    y.fill_diagonal_(0.0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 1 - np.eye(3))
    with pytest.raises(RuntimeError):
        mt.zeros(2, 3, 4).fill_diagonal_(1.0)


# ----- norms and distances -----

ORDS = [2, 1, 3, 0.5, 0, -1, float("inf"), -float("inf")]


@pytest.mark.parametrize("ord", ORDS)
def test_vector_norm(ord):
    x = M34
    parity(torch, "linalg.vector_norm", x, ord)
    parity(torch, "linalg.vector_norm", x, ord, dim=1, keepdim=True)
    parity(torch, "linalg.vector_norm", x, ord, dim=(0, 1))


def test_vector_norm_gradient_at_zero_and_errors():
    parity(torch, "linalg.vector_norm", np.array([[3.0, -4.0], [0.0, 0.0]]), dim=1)
    parity(torch, "linalg.vector_norm", np.array([[3.0, -4.0], [0.0, 0.0]]), 3, dim=1)
    ours = mt.linalg.vector_norm(mt.tensor(M34.astype(np.float32)), dtype=mt.float64)
    compare(ours, torch.linalg.vector_norm(torch.tensor(M34.astype(np.float32)), dtype=torch.float64), torch)
    same_error(torch, "linalg.vector_norm", np.array([1, 2]))


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")])
def test_matrix_norm(ord):
    parity(torch, "linalg.matrix_norm", M34, ord)
    parity(torch, "linalg.matrix_norm", B234, ord, dim=(2, 0), keepdim=True)


@pytest.mark.parametrize("kwargs", [{}, {"ord": 2}, {"ord": 1, "dim": 1}, {"dim": (0, 1)}, {"ord": "nuc"}, {"ord": -1}])
def test_linalg_norm(kwargs):
    parity(torch, "linalg.norm", M34, **kwargs)


def test_linalg_norm_forms():
    parity(torch, "linalg.norm", B234)
    parity(torch, "linalg.norm", V3, 3)
    same_error(torch, "linalg.norm", B234, 2)


@pytest.mark.parametrize("kwargs", [{}, {"p": 1}, {"p": "fro", "dim": (0, 1)}, {"p": 3, "dim": 1, "keepdim": True},
                                    {"p": "nuc"}, {"dim": 0}, {"p": float("inf")}])
def test_torch_norm(kwargs):
    parity(torch, "norm", M34, **kwargs)


@pytest.mark.filterwarnings("ignore:.*(frobenius|nuclear)_norm is deprecated")
def test_frobenius_nuclear_dist():
    parity(torch, "frobenius_norm", M34, dim=(0, 1), grad=False)  # PyTorch 2.13 cannot run its backward
    parity(torch, "nuclear_norm", M34)
    for p in (2, 1, float("inf"), 3):
        parity(torch, "dist", M34, V4, p)
    parity(torch, "dist", M34, V4, 0, grad=False)  # PyTorch 2.13's backward fails at p = 0 (its gradient is 0)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf")])
def test_cdist(p):
    parity(torch, "cdist", RNG.standard_normal((3, 2)), RNG.standard_normal((4, 2)), p=p)
    parity(torch, "cdist", RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 5, 4)), p=p)


def test_cdist_at_zero_distance_and_errors():
    x = RNG.standard_normal((3, 2))
    parity(torch, "cdist", x, x.copy())
    same_error(torch, "cdist", M23, M34)
    same_error(torch, "cdist", V3, V3)


@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.0), (1, 1, 0.5), (3, 0, 10.0)])
def test_renorm(p, dim, maxnorm):
    parity(torch, "renorm", M34, p, dim, maxnorm)
    ours, theirs = mt.tensor(M34), torch.tensor(M34)
    assert ours.renorm_(p, dim, maxnorm) is ours
    theirs.renorm_(p, dim, maxnorm)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


# ----- decompositions and solvers -----

@pytest.mark.parametrize("name", ["linalg.det", "det", "logdet", "linalg.inv", "inverse", "linalg.slogdet", "slogdet",
                                  "linalg.matrix_exp", "matrix_exp"])
@pytest.mark.parametrize("x", [WELL, BATCH_WELL, -WELL])
def test_square_matrix_functions(name, x):
    parity(torch, name, x, rtol=1e-9, atol=1e-9)


def test_square_functions_in_float32_and_methods():
    for name in ("det", "inverse", "logdet", "matrix_exp"):
        parity(torch, name, WELL.astype(np.float32), method=True, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["linalg.det", "linalg.inv", "linalg.cholesky", "linalg.eigh", "linalg.matrix_exp",
                                  "linalg.slogdet"])
def test_square_functions_refuse_other_shapes(name):
    same_error(torch, name, M23)
    same_error(torch, name, V3)


@pytest.mark.parametrize("name", ["linalg.inv", "linalg.solve"])
def test_singular_matrices_raise_linalg_errors(name):
    args = (np.zeros((3, 3)),) + ((V3,) if name == "linalg.solve" else ())
    with pytest.raises(mt.linalg.LinAlgError, match="singular"):
        mt.linalg.inv(mt.tensor(args[0])) if name == "linalg.inv" else mt.linalg.solve(*[mt.tensor(a) for a in args])
    same_error(torch, name, *args)


def test_det_of_a_singular_matrix_has_the_cofactor_gradient():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]])
    x = mt.tensor(a, requires_grad=True)
    mt.linalg.det(x).backward()
    cofactors = np.array([[14.0, -10.0, 2.0], [-7.0, 5.0, -1.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(x.grad.numpy(), cofactors, atol=1e-9)


@pytest.mark.parametrize("b", [RNG.standard_normal((3, 2)), V3, RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3, 1))])
def test_solve(b):
    a = BATCH_WELL if b.ndim >= 2 and b.shape[0] == 2 else WELL
    parity(torch, "linalg.solve", a, b, rtol=1e-9, atol=1e-9)


def test_solve_right_and_errors():
    parity(torch, "linalg.solve", WELL, RNG.standard_normal((2, 3)), left=False, rtol=1e-9, atol=1e-9)
    same_error(torch, "linalg.solve", WELL, V4)
    same_error(torch, "linalg.solve", M23, V3)


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(upper):
    parity(torch, "linalg.cholesky", SPD, upper=upper, rtol=1e-9, atol=1e-9)
    parity(torch, "cholesky", SPD, upper=upper, rtol=1e-9, atol=1e-9)
    factor = np.linalg.cholesky(SPD)
    factor = factor.T if upper else factor
    parity(torch, "cholesky_solve", RNG.standard_normal((3, 2)), factor, upper=upper, rtol=1e-9, atol=1e-9)


def test_cholesky_refuses_indefinite():
    with pytest.raises(mt.linalg.LinAlgError, match="positive-definite"):
        mt.linalg.cholesky(mt.tensor(-np.eye(2)))
    same_error(torch, "linalg.cholesky", -np.eye(2))


def _invariant_loss(outputs, module, weights):
    """A loss that does not change when a singular/eigen vector (and what it multiplies) flips sign."""
    return sum((module.tensor(w) * o * o).sum() for o, w in zip(outputs, weights) if o.numel())


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 4), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    a = RNG.standard_normal(shape)
    ours, theirs = mt.linalg.qr(mt.tensor(a), mode=mode), torch.linalg.qr(torch.tensor(a), mode=mode)
    assert ours._fields == ("Q", "R") and tuple(ours.Q.shape) == tuple(theirs.Q.shape)
    np.testing.assert_allclose(np.abs(ours.R.numpy()), np.abs(theirs.R.numpy()), atol=1e-10)
    if mode != "r":
        np.testing.assert_allclose((ours.Q @ ours.R).numpy(), a, atol=1e-10)
    if mode == "reduced" or mode == "complete" and shape[-2] <= shape[-1]:
        _compare_invariant_gradients("linalg.qr", a, {"mode": mode}, 2)


def _compare_invariant_gradients(name, a, kwargs, count, symmetric=False):
    weights = [RNG.standard_normal(o.shape) for o in _resolve_outputs(name, a, kwargs)][:count]
    grads = []
    for module in (mt, torch):
        x = module.tensor(a, requires_grad=True)
        source = (x + x.mT) / 2 if symmetric else x
        fn = module
        for part in name.split("."):
            fn = getattr(fn, part)
        loss = _invariant_loss(tuple(fn(source, **kwargs))[:count], module, weights)
        loss.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-9)


def _resolve_outputs(name, a, kwargs):
    fn = torch
    for part in name.split("."):
        fn = getattr(fn, part)
    return tuple(fn(torch.tensor(a), **kwargs))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 4), (2, 3, 2)])
def test_svd(shape):
    a = RNG.standard_normal(shape)
    for full in (True, False):
        ours, theirs = mt.linalg.svd(mt.tensor(a), full_matrices=full), torch.linalg.svd(torch.tensor(a), full_matrices=full)
        assert ours._fields == ("U", "S", "Vh")
        for o, t in zip(ours, theirs):
            assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(ours.S.numpy(), theirs.S.numpy(), rtol=1e-10)
        _compare_invariant_gradients("linalg.svd", a, {"full_matrices": full}, 3)
    parity(torch, "linalg.svdvals", a, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kwargs", [{}, {"some": False}, {"compute_uv": False}])
def test_torch_svd(kwargs):
    a = RNG.standard_normal((4, 3))
    ours, theirs = mt.svd(mt.tensor(a), **kwargs), torch.svd(torch.tensor(a), **kwargs)
    assert ours._fields == ("U", "S", "V")
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
    np.testing.assert_allclose(ours.S.numpy(), theirs.S.numpy(), rtol=1e-10)
    if kwargs.get("compute_uv", True):
        np.testing.assert_allclose((ours.U[:, :3] * ours.S @ ours.V.T).numpy(), a, atol=1e-10)


@pytest.mark.filterwarnings("ignore:torch.qr is deprecated")
def test_torch_qr():
    a = RNG.standard_normal((4, 3))
    for some in (True, False):
        ours, theirs = mt.qr(mt.tensor(a), some=some), torch.qr(torch.tensor(a), some=some)
        assert ours._fields == ("Q", "R") and tuple(ours.Q.shape) == tuple(theirs.Q.shape)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(uplo):
    a = RNG.standard_normal((2, 3, 3))
    ours, theirs = mt.linalg.eigh(mt.tensor(a), UPLO=uplo), torch.linalg.eigh(torch.tensor(a), UPLO=uplo)
    assert ours._fields == ("eigenvalues", "eigenvectors")
    np.testing.assert_allclose(ours.eigenvalues.numpy(), theirs.eigenvalues.numpy(), rtol=1e-10)
    _compare_invariant_gradients("linalg.eigh", a[0], {"UPLO": uplo}, 2, symmetric=True)
    parity(torch, "linalg.eigvalsh", a, UPLO=uplo, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 4, 3)])
def test_pinv(shape):
    a = RNG.standard_normal(shape)
    parity(torch, "linalg.pinv", a, rtol=1e-8, atol=1e-9)
    parity(torch, "pinverse", a, rtol=1e-8, atol=1e-9)
    parity(torch, "pinverse", a, method=True, rtol=1e-8, atol=1e-9)


def test_pinv_tolerances_and_rank():
    a = np.diag([3.0, 1e-3, 0.0])
    for kwargs in ({}, {"atol": 1e-2}, {"rtol": 1e-2}, {"hermitian": True}):
        parity(torch, "linalg.pinv", a, grad=False, **kwargs)
        parity(torch, "linalg.matrix_rank", a, **kwargs)
    parity(torch, "linalg.matrix_rank", RNG.standard_normal((2, 3, 4)))
    parity(torch, "linalg.matrix_rank", np.ones((3, 3)), hermitian=True)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq(driver):
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    parity(torch, "linalg.lstsq", a, b, driver=driver, rtol=1e-8, atol=1e-9)
    parity(torch, "linalg.lstsq", RNG.standard_normal((2, 5, 3)), RNG.standard_normal((2, 5, 2)), driver=driver,
           rtol=1e-8, atol=1e-9)


def test_lstsq_rank_deficient_and_vector():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    parity(torch, "linalg.lstsq", a, RNG.standard_normal((3, 1)), driver="gelsd", grad=False, rtol=1e-8, atol=1e-9)
    parity(torch, "linalg.lstsq", RNG.standard_normal((4, 2)), RNG.standard_normal(4), rtol=1e-8, atol=1e-9)


def test_cond():
    parity(torch, "linalg.cond", WELL, rtol=1e-9)
    parity(torch, "linalg.cond", WELL, -2, rtol=1e-9)
    for p in ("fro", "nuc", 1, float("inf")):  # PyTorch 2.13's backward fails for these (an in-place inverse)
        parity(torch, "linalg.cond", WELL, p, rtol=1e-9, grad=False)
        parity(torch, "linalg.cond", BATCH_WELL, p, rtol=1e-9, grad=False)


def test_removed_methods_raise_as_in_pytorch():
    for name in ("symeig", "eig", "lstsq", "solve"):
        with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
            getattr(mt.tensor(WELL), name)(mt.tensor(WELL))
        with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
            getattr(torch.tensor(WELL), name)(torch.tensor(WELL))


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
def test_method_forms():
    for name, x, args in [("det", WELL, ()), ("slogdet", WELL, ()), ("pinverse", WELL, ()), ("matrix_power", WELL, (3,)),
                          ("diag", WELL, ()), ("triu", WELL, (1,)), ("trace", WELL, ()), ("norm", WELL, ()),
                          ("dist", WELL, (V3,)), ("cholesky", SPD, ()), ("mm", WELL, (M33,)), ("mv", WELL, (V3,)),
                          ("outer", V3, (V4,)), ("ger", V3, (V4,)), ("kron", WELL, (M23,)), ("inner", WELL, (M33,)),
                          ("bmm", B234, (B245,)), ("dot", V3, (V3,)), ("vdot", V3, (V3,)), ("cross", M23, (M23, 1)),
                          ("diag_embed", M23, ()), ("diagflat", V3, ()), ("diagonal", B234, (0, 1, 2)),
                          ("tril", M34, (-1,)), ("logdet", WELL, ()), ("matrix_exp", WELL, ()), ("inverse", WELL, ()),
                          ("addmm", WELL, (M33, M33)), ("addmv", V3, (M33, V3)), ("addr", M33, (V3, V3)),
                          ("baddbmm", RNG.standard_normal((2, 3, 5)), (B234, B245)), ("renorm", M34, (2, 0, 1.0)),
                          ("addbmm", M33[:, :2].copy(), (B234[:, :, :3].copy(), B245[:, :3, :2].copy()))]:
        parity(torch, name, x, *args, method=True, rtol=1e-9, atol=1e-9)


def test_pdist_and_norm_except_dim():
    parity(torch, "pdist", RNG.standard_normal((4, 3)))
    parity(torch, "pdist", RNG.standard_normal((4, 3)), 1)
    for dim in (0, 1, -1):
        parity(torch, "norm_except_dim", M34, 2, dim)
    parity(torch, "norm_except_dim", B234, 3, 1)
    same_error(torch, "pdist", B234)


def test_addmv_function_form():
    ours, theirs = mt.tensor(V3), torch.tensor(V3)
    assert mt.addmv_(ours, mt.tensor(M34), mt.tensor(V4), alpha=2) is ours
    torch.addmv_(theirs, torch.tensor(M34), torch.tensor(V4), alpha=2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["linalg.vector_norm", "linalg.norm"])
def test_norm_aliases(name):
    parity(torch, name, M34, axis=1, keepdims=True)


# ----- PyTorch code, only the import changed -----

def _pytorch_style_script(torch):
    """Least squares three ways, einsum attention, top-k accuracy, order statistics, nearest neighbours."""
    rng = np.random.default_rng(5)
    X = torch.tensor(rng.standard_normal((40, 3)), dtype=torch.float64)
    y = X @ torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64) + 0.1 * torch.tensor(rng.standard_normal(40))
    normal_equations = torch.linalg.solve(X.T @ X, X.T @ y)
    least_squares = torch.linalg.lstsq(X, y.unsqueeze(1)).solution.squeeze(1)
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    for _ in range(100):
        loss = torch.linalg.vector_norm(X @ w - y) ** 2 / len(y)
        loss.backward()
        with torch.no_grad():
            w -= 0.2 * w.grad
            w.grad.zero_()
    q = torch.tensor(rng.standard_normal((2, 5, 4)), dtype=torch.float64)
    scores = torch.einsum("bqd,bkd->bqk", q, q) / 4 ** 0.5
    attended = torch.einsum("bqk,bkd->bqd", scores.softmax(dim=-1), q)
    logits = torch.tensor(rng.standard_normal((50, 10)))
    labels = torch.tensor(rng.integers(0, 10, 50))
    top3 = logits.topk(3, dim=1).indices
    accuracy = (top3 == labels.unsqueeze(1)).any(dim=1).float().mean()
    deciles = torch.quantile(y, torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64))
    distances = torch.cdist(X, X)
    nearest = distances.topk(2, largest=False).indices[:, 1]
    values, counts = torch.unique(labels, return_counts=True)
    return [normal_equations, least_squares, w.detach(), attended, accuracy, deciles, y.median(), torch.cumsum(y, 0),
            nearest, values, counts, torch.linalg.det(X.T @ X), torch.trace(X.T @ X), X.std(dim=0), X.max(dim=0).indices]


def test_pytorch_style_script_gives_pytorchs_results():
    ours, theirs = _pytorch_style_script(mt), _pytorch_style_script(torch)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        compare(a, b, torch, rtol=1e-9, atol=1e-9, where=f"result {i}")
