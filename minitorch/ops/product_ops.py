"""Products: matmul (the "MatMul" op, and the @ operator), mm, bmm, mv, dot, inner, outer, kron, tensordot, einsum, the add-and-multiply family
(addmm, addbmm, baddbmm, addmv, addr), chains and powers of matrices, cross products, Vandermonde matrices.

"MatMul" is numpy's batched matrix product, which may read either operand
transposed (a strided view, free for BLAS: nn.Linear's x W^T runs no Transpose);
its gradient is two more MatMuls (TensorFlow's _MatMulGrad). Nearly all the
others are compositions of "MatMul", "Mul", "Sum" and the shape ops, so their
gradients are those ops'. einsum is one op, "Einsum": its gradient with
respect to each operand is another einsum of the incoming gradient with the
other operands (a repeated index, a diagonal, is written back through an
identity matrix; an index summed away is broadcast back with a vector of ones).
"""
import math
import string

import numpy as np

from ..engine.execute import execute
from ..errors import ShapeError
from ..tensor import Tensor
from .coercion import as_operand
from .comparison_ops import where
from .dims import one_dim
from .rows import fit, op, sum_terms
from .scan_ops import cumulative
from .shape_ops import flip
from .writes import write_out


# ----- matmul: the one op every matrix product runs -----

def _matmul(a, b, transpose_a=False, transpose_b=False):
    """Batched matrix product; the transposes are strided views, free for BLAS."""
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def _matmul_grad(op, grad):
    """C = op(A) op(B), op = optional transpose (TensorFlow's _MatMulGrad):
    for C = A B, dA = dC B^T and dB = A^T dC; the transposed cases follow.
    Batch dimensions that were broadcast are summed back by the tape."""
    a, b = op.inputs
    ta, tb = op.attrs.get("transpose_a", False), op.attrs.get("transpose_b", False)
    need_a, need_b = op.needs_input_grad
    if not ta and not tb:
        grad_a = _matmul_op(grad, b, False, True) if need_a else None
        grad_b = _matmul_op(a, grad, True, False) if need_b else None
    elif not ta and tb:
        grad_a = _matmul_op(grad, b, False, False) if need_a else None
        grad_b = _matmul_op(grad, a, True, False) if need_b else None
    elif ta and not tb:
        grad_a = _matmul_op(b, grad, False, True) if need_a else None
        grad_b = _matmul_op(a, grad, False, False) if need_b else None
    else:
        grad_a = _matmul_op(b, grad, True, True) if need_a else None
        grad_b = _matmul_op(grad, a, True, True) if need_b else None
    return grad_a, grad_b


def _matmul_jvp(inputs, outputs, attrs, tangents):
    """d(AB) = dA B + A dB."""
    (a, b), (ta, tb) = inputs, tangents
    terms = [
        execute("MatMul", (ta, b), attrs) if ta is not None else None,
        execute("MatMul", (a, tb), attrs) if tb is not None else None,
    ]
    return sum_terms(terms, outputs[0])


op("MatMul", _matmul, _matmul_grad, needs="other inputs", jvp=_matmul_jvp)


_MATMUL_ATTRS = {
    (False, False): {},
    (True, False): {"transpose_a": True},
    (False, True): {"transpose_b": True},
    (True, True): {"transpose_a": True, "transpose_b": True},
}


def _matmul_op(a, b, transpose_a=False, transpose_b=False):
    return execute("MatMul", (a, b), _MATMUL_ATTRS[transpose_a, transpose_b])




def matmul(input, other, transpose_b=False):
    """Matrix product with numpy/PyTorch semantics (1-D operands, batch broadcasting). Runs the "MatMul" op.

    `transpose_b=True` multiplies by b's transpose without a Transpose op (nn.Linear's x W^T).

    >>> (mt.ones(2, 3) @ mt.ones(3, 4)).shape
    minitorch.Size([2, 4])
    >>> mt.matmul(mt.tensor([[1.0, 2.0]]), mt.tensor([[3.0], [4.0]]))
    tensor([[11.]])

    As in PyTorch, the operands are not promoted: their dtypes must be the same.
    """
    input, other = as_operand(input), as_operand(other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"MatMul: expected m1 and m2 to have the same dtype, but got: {input.dtype} != {other.dtype}")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"MatMul: both arguments need at least 1 dimension, got shapes {input.shape} and {other.shape}")
    if input.ndim == 1 and other.ndim == 1:
        if input.shape != other.shape:
            raise ShapeError(f"MatMul: inconsistent tensor size, shapes {input.shape} and {other.shape}")
        return execute("Sum", (input * other,), {"axis": None, "keepdims": False})
    if transpose_b and other.ndim >= 2:
        if input.ndim >= 2 and input.shape[-1] == other.shape[-1]:
            return _matmul_op(input, other, False, True)
        other = other.mT
    squeeze_a, squeeze_b = input.ndim == 1, other.ndim == 1
    if squeeze_a:
        input = input.reshape(1, -1)
    if squeeze_b:
        other = other.reshape(-1, 1)
    if input.shape[-1] != other.shape[-2]:
        raise ShapeError(
            f"MatMul: shapes {tuple(input.shape)} and {tuple(other.shape)} cannot be multiplied "
            f"({input.shape[-1]} columns vs {other.shape[-2]} rows)"
        )
    out = execute("MatMul", (input, other))
    if squeeze_a:
        out = out.squeeze(-2)
    if squeeze_b:
        out = out.squeeze(-1)
    return out


# ----- the named products -----

def _require(condition, message):
    if not condition:
        raise ShapeError(message)


def _check_same_dtype(name, a, b):
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{name}: expected both arguments to have the same dtype, but got {a.dtype} and {b.dtype}")


def mm(input, mat2):
    """The product of two matrices. Runs the "MatMul" op.

    >>> mt.mm(mt.tensor([[1.0, 2.0]]), mt.tensor([[3.0], [4.0]]))
    tensor([[11.]])
    """
    _require(input.ndim == 2, f"mm: self must be a matrix, got shape {tuple(input.shape)}")
    _require(mat2.ndim == 2, f"mm: mat2 must be a matrix, got shape {tuple(mat2.shape)}")
    _check_same_dtype("mm", input, mat2)
    return matmul(input, mat2)


def bmm(input, mat2):
    """Batched matrix products of two 3-D tensors with the same batch size (no broadcasting). Runs "MatMul".

    >>> tuple(mt.bmm(mt.ones(5, 2, 3), mt.ones(5, 3, 4)).shape)
    (5, 2, 4)
    """
    _require(input.ndim == 3 and mat2.ndim == 3, f"bmm: batch1 and batch2 must be 3-D tensors, got shapes {tuple(input.shape)} and {tuple(mat2.shape)}")
    _require(input.shape[0] == mat2.shape[0] and input.shape[2] == mat2.shape[1],
             f"bmm: expected batch2 of size [{input.shape[0]}, {input.shape[2]}, *], got {tuple(mat2.shape)}")
    _check_same_dtype("bmm", input, mat2)
    return matmul(input, mat2)


def mv(input, vec):
    """The product of a matrix and a vector. Runs "MatMul".

    >>> mt.mv(mt.tensor([[1.0, 2.0], [3.0, 4.0]]), mt.tensor([1.0, 1.0]))
    tensor([3., 7.])
    """
    _require(input.ndim == 2 and vec.ndim == 1 and input.shape[1] == vec.shape[0],
             f"mv: size mismatch, got mat {tuple(input.shape)} and vec {tuple(vec.shape)}")
    _check_same_dtype("mv", input, vec)
    return matmul(input, vec)


def dot(input, tensor):
    """The dot product of two 1-D tensors of the same size and dtype. Built from "Mul" and "Sum".

    >>> mt.dot(mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0]))
    tensor(11.)
    """
    _require(input.ndim == 1 and tensor.ndim == 1, f"dot: 1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    _require(input.shape == tensor.shape, f"dot: inconsistent tensor size, expected tensors of the same size, got {input.shape[0]} and {tensor.shape[0]}")
    _check_same_dtype("dot", input, tensor)
    return (input * tensor).sum()


def vdot(input, other):
    """The dot product, conjugating the first vector (for real tensors, `dot`).

    >>> mt.vdot(mt.tensor([1.0, 2.0]), mt.tensor([3.0, 4.0]))
    tensor(11.)
    """
    return dot(input, other)


def inner(input, other):
    """Sums of products over the last dimension of both (a scalar operand multiplies). Runs "MatMul".

    >>> tuple(mt.inner(mt.ones(2, 3), mt.ones(4, 3)).shape)
    (2, 4)
    """
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    _require(input.shape[-1] == other.shape[-1], f"inner: the last dimensions must match, got shapes {tuple(input.shape)} and {tuple(other.shape)}")
    return tensordot(input, other, ([input.ndim - 1], [other.ndim - 1]))


def outer(input, vec2):
    """The outer product of two vectors (`mt.ger` is the same). Built from "Mul".

    >>> mt.outer(mt.tensor([1.0, 2.0]), mt.tensor([1.0, 10.0, 100.0])).tolist()
    [[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]]
    """
    _require(input.ndim == 1 and vec2.ndim == 1, f"outer: 1D tensors expected, got {input.ndim}D and {vec2.ndim}D")
    return input.reshape(-1, 1) * vec2.reshape(1, -1)


def kron(input, other):
    """The Kronecker product: every element of `a` times the whole of `b`, blocks laid out as `a`.
    Built from "Reshape" and "Mul".

    >>> mt.kron(mt.tensor([1, 2]), mt.tensor([1, 10, 100]))
    tensor([  1,  10, 100,   2,  20, 200])
    """
    ndim = max(input.ndim, other.ndim)
    a_shape = (1,) * (ndim - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (ndim - other.ndim) + tuple(other.shape)
    spread_a = input.reshape(tuple(n for pair in zip(a_shape, (1,) * ndim) for n in pair))
    spread_b = other.reshape(tuple(n for pair in zip((1,) * ndim, b_shape) for n in pair))
    return (spread_a * spread_b).reshape(tuple(m * n for m, n in zip(a_shape, b_shape)))


def tensordot(a, b, dims=2, out=None):
    """Sums of products over the last `dims` dimensions of `a` and the first `dims` of `b`, or over
    the listed pairs `dims=([a dims], [b dims])`. Built from "Transpose", "Reshape" and "MatMul".

    >>> tuple(mt.tensordot(mt.ones(3, 4, 5), mt.ones(4, 5, 6)).shape)
    (3, 6)
    >>> tuple(mt.tensordot(mt.ones(3, 4), mt.ones(4, 2), dims=([1], [0])).shape)
    (3, 2)
    """
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        _require(dims >= 0, f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    dims_a = [d % a.ndim for d in dims_a]
    dims_b = [d % b.ndim for d in dims_b]
    _require(len(dims_a) == len(dims_b), f"tensordot: both dimension lists should have the same length, got {dims_a} and {dims_b}")
    for i, j in zip(dims_a, dims_b):
        _require(a.shape[i] == b.shape[j], f"tensordot: contracted dimensions need to match, but first has size "
                                           f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in dim {j}")
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    size = int(math.prod([a.shape[d] for d in dims_a]))
    left = a.permute(*free_a, *dims_a).reshape(int(math.prod([a.shape[d] for d in free_a])), size)
    right = b.permute(*dims_b, *free_b).reshape(size, int(math.prod([b.shape[d] for d in free_b])))
    result = matmul(left, right).reshape(tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))
    return result if out is None else write_out("tensordot", result, out)


# ----- einsum -----

def _einsum(*operands, equation):
    return np.asarray(np.einsum(equation, *operands, optimize=len(operands) > 1))


def _einsum_grad(op, grad):
    """d einsum(x_1, ..., x_n) / dx_k = einsum(grad, the other operands -> subscripts of x_k); a
    repeated index of x_k is written back through an identity matrix, an index that only x_k has
    is broadcast back through a vector of ones."""
    inputs, (operands, output) = op.inputs, _parse(op.attrs["equation"])
    grads = []
    for k, wanted in enumerate(op.needs_input_grad):
        if not wanted:
            grads.append(None)
            continue
        terms = [output] + [s for j, s in enumerate(operands) if j != k]
        tensors = [grad] + [t for j, t in enumerate(inputs) if j != k]
        target, seen = "", set()
        elsewhere = set("".join(terms))
        free = iter(c for c in string.ascii_letters if c not in op.attrs["equation"])
        for position, letter in enumerate(operands[k]):
            size = op.input_shapes[k][position]
            if letter in seen:  # a diagonal: a fresh index tied to the first by an identity matrix
                fresh = next(free)
                terms.append(letter + fresh)
                tensors.append(as_operand(np.eye(size, dtype=grad._data.dtype)))
                letter = fresh
            elif letter not in elsewhere:  # summed away: broadcast back
                terms.append(letter)
                tensors.append(as_operand(np.ones(size, dtype=grad._data.dtype)))
            seen.add(letter)
            target += letter
        grads.append(execute("Einsum", tuple(tensors), {"equation": ",".join(terms) + "->" + target}))
    return tuple(grads)


def _einsum_jvp(inputs, outputs, attrs, tangents):
    """einsum is linear in each operand: d einsum = sum_k einsum(x_1, ..., dx_k, ..., x_n)."""
    total = None
    for k, tangent in enumerate(tangents):
        if tangent is not None:
            term = execute("Einsum", inputs[:k] + (tangent,) + inputs[k + 1:], attrs)
            total = term if total is None else total + term
    return fit(total, outputs[0])


op("Einsum", _einsum, _einsum_grad, needs="inputs", jvp=_einsum_jvp)


def _parse(equation):
    inputs, output = equation.split("->")
    return inputs.split(","), output


def _explicit(equation, operands):
    """The equation with '->' and without '...': each ellipsis spelled out with fresh letters."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    _require(len(terms) == len(operands), f"einsum(): {len(terms)} operands in the equation, but {len(operands)} were given")
    free = [c for c in string.ascii_letters if c not in equation]
    spans = [t.ndim - len(term.replace("...", "")) for term, t in zip(terms, operands)]
    width = max([s for term, s in zip(terms, spans) if "..." in term], default=0)
    ellipsis = "".join(free[:width])
    for term, t, span in zip(terms, operands, spans):
        _require(span == 0 or "..." in term and span > 0,
                 f"einsum(): the subscripts '{term}' do not match an operand with {t.ndim} dimensions")
    terms = [term.replace("...", ellipsis[width - span:]) for term, span in zip(terms, spans)]
    if not arrow:
        letters = "".join(terms)
        output = ("..." if width else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ellipsis))
    output = output.replace("...", ellipsis)
    for c in output:
        _require(c in "".join(terms), f"einsum(): output subscript {c} does not appear in the equation for any input operand")
        _require(output.count(c) == 1, f"einsum(): output subscript {c} appears more than once in the output")
    return terms, output


def einsum(equation, *operands):
    """Einstein summation: products of the operands' elements, summed over the indices that the
    output (after '->', or the indices used once, in order) leaves out; '...' stands for the
    remaining dimensions, and dimensions of size 1 broadcast. Runs the "Einsum" op (numpy's einsum).

    >>> a, b = mt.ones(2, 3), mt.ones(3, 4)
    >>> tuple(mt.einsum("ij,jk->ik", a, b).shape)
    (2, 4)
    >>> mt.einsum("ii", mt.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor(5.)
    >>> tuple(mt.einsum("...ij,...jk", mt.ones(5, 2, 3), b).shape)
    (5, 2, 4)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = tuple(as_operand(t) for t in operands)
    terms, output = _explicit(equation, operands)
    sizes = {}
    for term, t in zip(terms, operands):
        for letter, n in zip(term, t.shape):
            if n != 1:
                _require(sizes.get(letter, n) == n, f"einsum(): operands do not broadcast with remapped shapes "
                                                    f"(subscript {letter} has sizes {sizes.get(letter)} and {n})")
                sizes[letter] = n
    ready = []
    for term, t in zip(terms, operands):
        shape = tuple(sizes.get(letter, 1) if n == 1 else n for letter, n in zip(term, t.shape))
        ready.append(t if shape == t.shape else t.expand(*shape))
    dtype = np.result_type(*[t._data.dtype for t in ready])
    ready = tuple(t if t._data.dtype == dtype else t.to(dtype) for t in ready)
    return execute("Einsum", ready, {"equation": ",".join(terms) + "->" + output})


# ----- multiply and add -----

def _scaled_sum(name, x, product, beta, alpha):
    """beta x + alpha product; beta = 0 ignores x's values (NaN in x does not propagate, as PyTorch)."""
    x = as_operand(x, like=product)
    _require(np.broadcast_shapes(x.shape, product.shape) == product.shape,
             f"{name}: the input of shape {tuple(x.shape)} does not broadcast to the product's shape {tuple(product.shape)}")
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return (x if beta == 1 else x * beta) + product


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta x + alpha (mat1 @ mat2) (x broadcasts to the product's shape). Built from "MatMul", "Mul", "Add".

    >>> mt.addmm(mt.ones(2, 2), mt.ones(2, 3), mt.ones(3, 2), alpha=2)
    tensor([[7., 7.],
            [7., 7.]])
    """
    return _scaled_sum("addmm", input, mm(mat1, mat2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta x + alpha sum_b(batch1[b] @ batch2[b]). Built from "MatMul", "Sum", "Mul", "Add".

    >>> mt.addbmm(mt.zeros(2, 2), mt.ones(3, 2, 4), mt.ones(3, 4, 2))
    tensor([[12., 12.],
            [12., 12.]])
    """
    return _scaled_sum("addbmm", input, bmm(batch1, batch2).sum(dim=0), beta, alpha)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta x + alpha bmm(batch1, batch2). Built from "MatMul", "Mul", "Add".

    >>> tuple(mt.baddbmm(mt.zeros(3, 2, 2), mt.ones(3, 2, 4), mt.ones(3, 4, 2)).shape)
    (3, 2, 2)
    """
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta x + alpha (mat @ vec). Built from "MatMul", "Mul", "Add".

    >>> mt.addmv(mt.tensor([1.0, 1.0]), mt.eye(2), mt.tensor([2.0, 3.0]))
    tensor([3., 4.])
    """
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha)



def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta x + alpha outer(vec1, vec2). Built from "Mul" and "Add".

    >>> mt.addr(mt.zeros(2, 2), mt.tensor([1.0, 2.0]), mt.tensor([1.0, 3.0]))
    tensor([[1., 3.],
            [2., 6.]])
    """
    return _scaled_sum("addr", input, outer(vec1, vec2), beta, alpha)


# ----- chains and powers -----

def multi_dot(tensors):
    """The product of a list of matrices (the first may be a row vector, the last a column vector,
    given as 1-D), multiplied in the cheapest order. Runs "MatMul".

    >>> tuple(mt.linalg.multi_dot([mt.ones(2, 3), mt.ones(3, 4), mt.ones(4)]).shape)
    (2,)
    """
    tensors = list(tensors)
    _require(len(tensors) >= 2, f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vector, last_vector = tensors[0].ndim == 1, tensors[-1].ndim == 1
    if first_vector:
        tensors[0] = tensors[0].reshape(1, -1)
    if last_vector:
        tensors[-1] = tensors[-1].reshape(-1, 1)
    for i, t in enumerate(tensors):
        _require(t.ndim == 2, f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i in range(len(tensors) - 1):
        _require(tensors[i].shape[1] == tensors[i + 1].shape[0],
                 f"multi_dot(): tensors {i} and {i + 1} with shapes {tuple(tensors[i].shape)} and "
                 f"{tuple(tensors[i + 1].shape)} cannot be multiplied")
    result = _chain_product(tensors, _cheapest_order([t.shape[0] for t in tensors] + [tensors[-1].shape[1]]), 0, len(tensors) - 1)
    if first_vector:
        result = result.squeeze(0)
    if last_vector:
        result = result.squeeze(-1)
    return result


def _cheapest_order(sizes):
    """The matrix-chain order (the textbook dynamic programme): split[i][j] is where to split i..j."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(tensors, split, i, j):
    if i == j:
        return tensors[i]
    k = split[i][j]
    return matmul(_chain_product(tensors, split, i, k), _chain_product(tensors, split, k + 1, j))


def chain_matmul(*matrices):
    """The product of the matrices given as arguments (deprecated in PyTorch for `linalg.multi_dot`).

    >>> tuple(mt.chain_matmul(mt.ones(2, 3), mt.ones(3, 4)).shape)
    (2, 4)
    """
    if len(matrices) == 1:
        return matrices[0]
    return multi_dot(matrices)


def matrix_power(input, n):
    """The square matrix (or batch) `A` multiplied by itself `n` times: the identity for 0, powers of the
    inverse for negative `n`. Runs "MatMul" (by repeated squaring) and, for n < 0, "MatrixInverse".

    >>> mt.matrix_power(mt.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    _require(input.ndim >= 2 and input.shape[-1] == input.shape[-2],
             f"matrix_power: expected a tensor of square matrices, but got shape {tuple(input.shape)}")
    if n == 0:  # the identity, still connected to `a` (a zero gradient, as PyTorch's)
        identity = np.broadcast_to(np.eye(input.shape[-1], dtype=input._data.dtype), input.shape)
        return where(as_operand(np.ones(input.shape, bool)), as_operand(identity), input)
    if n < 0:
        input, n = input.inverse(), -n
    result, power = None, input
    while n:
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


def cross(input, other, dim=None):
    """The cross product of 3-vectors along `dim` (by default the first dimension of size 3, as
    PyTorch's `torch.cross`; `mt.linalg.cross` uses the last). Built from "StridedSlice", "Mul", "Sub".

    >>> mt.cross(mt.tensor([1.0, 0.0, 0.0]), mt.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    shape = np.broadcast_shapes(input.shape, other.shape)
    if input.shape != shape:
        input = input.expand(*shape)
    if other.shape != shape:
        other = other.expand(*shape)
    if dim is None:
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        _require(dim is not None, f"cross: no dimension of size 3 in input of shape {shape}")
    axis = one_dim(dim, len(shape), "cross")
    _require(shape[axis] == 3, f"linalg.cross: inputs dimension {dim} must have length 3. Got {shape[axis]}")
    lead = (slice(None),) * axis
    ax, ay, az = (input[lead + (i,)] for i in range(3))
    bx, by, bz = (other[lead + (i,)] for i in range(3))
    parts = (ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx)
    return execute("Pack", parts, {"axis": axis})


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the vector `x`: columns x^(N-1), ..., x, 1 (or the other way round
    with `increasing`). Built from "Cumprod" (so the gradient at x = 0 is finite).

    >>> mt.vander(mt.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    _require(x.ndim == 1, f"x must be a one-dimensional tensor, got shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else N
    _require(n >= 0, "N must be non-negative.")
    if x._data.dtype.kind in "biu":
        x = x.long()
    columns = [as_operand(np.ones((x.shape[0], 1), x._data.dtype))]
    if n > 1:
        columns.append(x.reshape(-1, 1).expand(x.shape[0], n - 1))
    powers = cumulative("Cumprod", execute("ConcatV2", tuple(columns), {"axis": 1}), 1)[:, :n]
    return powers if increasing else flip(powers, (1,))
