"""The shapes and indexing surface against PyTorch: values, dtypes, shapes and errors of the same
code run with `L` = torch and `L` = minitorch; views, in-place twins and in-place shape changes."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.engine.versions import view_depth

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta:UserWarning"),
              pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter:UserWarning"),
              pytest.mark.filterwarnings("ignore:masked_scatter_ received a mask with dtype torch.uint8:UserWarning")]

LIBS = {"torch": torch, "minitorch": mt}


def _same(ours, theirs, where):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, mt.Tensor), f"{where}: got {type(ours).__name__}, PyTorch gives a Tensor"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], f"{where}: {ours.dtype} vs {theirs.dtype}"
        np.testing.assert_allclose(np.asarray(ours.detach()), theirs.detach().numpy(), rtol=1e-6, atol=1e-6, err_msg=where)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), f"{where}: {ours!r} vs {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, f"{where}: {ours!r} vs {theirs!r}"


def m(L, rows=2, cols=3, dtype=None):
    """A small matrix with distinct values in either library."""
    return L.arange(rows * cols, dtype=dtype or L.float32).reshape(rows, cols) - 2.5


PARITY = {
    # reordering and reshaping
    "flip": lambda L: L.flip(L.arange(24).reshape(2, 3, 4), [0, 2]),
    "flip method varargs": lambda L: m(L).flip(0, 1),
    "fliplr": lambda L: L.fliplr(m(L)),
    "flipud": lambda L: L.flipud(m(L)),
    "roll": lambda L: L.roll(m(L), 1),
    "roll dims": lambda L: L.roll(m(L), (1, -1), (0, 1)),
    "roll 0-d": lambda L: L.roll(L.tensor(2.0), 3),
    "rot90": lambda L: L.rot90(m(L)),
    "rot90 k=2": lambda L: L.rot90(m(L), 2),
    "rot90 k=-1 dims": lambda L: L.rot90(L.arange(24).reshape(2, 3, 4), -1, [2, 0]),
    "repeat": lambda L: L.arange(3).repeat(2, 2),
    "repeat ones": lambda L: m(L).repeat(1, 1),
    "repeat zero": lambda L: m(L).repeat(0, 2),
    "tile": lambda L: L.tile(m(L), (2,)),
    "tile more dims": lambda L: L.tile(L.arange(3), (2, 1, 2)),
    "repeat_interleave int": lambda L: L.repeat_interleave(L.tensor([[1, 2], [3, 4]]), 2),
    "repeat_interleave dim": lambda L: L.repeat_interleave(m(L), 3, dim=1),
    "repeat_interleave tensor": lambda L: L.repeat_interleave(m(L), L.tensor([1, 0, 2]), dim=1),
    "repeat_interleave counts": lambda L: L.repeat_interleave(L.tensor([1, 2, 3])),
    "repeat_interleave 0-d counts": lambda L: L.repeat_interleave(L.tensor([1, 2, 3]), L.tensor(2)),
    "repeat_interleave output_size": lambda L: L.tensor([1, 2]).repeat_interleave(L.tensor([2, 1]), output_size=3),
    "movedim": lambda L: L.movedim(L.arange(24).reshape(2, 3, 4), 0, -1),
    "moveaxis several": lambda L: L.moveaxis(L.arange(24).reshape(2, 3, 4), (0, 1), (2, 0)),
    "swapaxes": lambda L: L.swapaxes(L.arange(24).reshape(2, 3, 4), 0, 2),
    "swapdims method": lambda L: m(L).swapdims(0, 1),
    "t function": lambda L: L.t(m(L)),
    "t of 1-d": lambda L: L.t(L.arange(3)),
    "adjoint": lambda L: L.adjoint(L.arange(24.0).reshape(2, 3, 4)),
    "mT H mH": lambda L: (m(L).mT, m(L).H, L.arange(24.0).reshape(2, 3, 4).mH),
    "narrow": lambda L: L.narrow(L.arange(10), 0, 2, 3),
    "narrow negative start": lambda L: m(L).narrow(1, -2, 2),
    "narrow tensor start": lambda L: L.narrow(L.arange(10), 0, L.tensor(4), 3),
    "select": lambda L: L.select(m(L), 1, -1),
    "unfold": lambda L: L.arange(7.0).unfold(0, 2, 2),
    "unfold overlapping": lambda L: L.arange(12.0).reshape(3, 4).unfold(1, 3, 1),
    "unfold empty windows": lambda L: L.arange(7.0).unfold(0, 0, 1),
    "unflatten": lambda L: L.unflatten(L.arange(24).reshape(2, 12), 1, (3, -1)),
    "ravel": lambda L: L.ravel(m(L).t()),
    "reshape_as": lambda L: L.arange(6).reshape_as(m(L)),
    "atleast_1d": lambda L: L.atleast_1d(L.tensor(1.0)),
    "atleast_2d several": lambda L: L.atleast_2d(L.tensor(1.0), L.arange(3)),
    "atleast_3d list": lambda L: L.atleast_3d([L.tensor(1.0), L.arange(3), m(L)]),
    "broadcast_to method": lambda L: L.arange(3).broadcast_to((2, 3)),
    "expand -1": lambda L: L.zeros(1, 3).expand(4, -1),
    "stride": lambda L: (L.zeros(2, 3, 4).stride(), L.zeros(2, 3).t().stride(), L.zeros(1, 3).expand(4, 3).stride(),
                         L.zeros(2, 3).unsqueeze(1).stride(), L.zeros(2, 3, 4).stride(-2), L.tensor(1.0).stride()),
    "is_contiguous": lambda L: (L.zeros(2, 3).is_contiguous(), L.zeros(2, 3).t().is_contiguous(),
                                L.zeros(1, 3).t().is_contiguous(), L.zeros(2, 3).t().contiguous().is_contiguous()),
    # splitting and joining
    "split": lambda L: L.split(L.arange(10), 3),
    "split sizes": lambda L: L.split(m(L, 2, 5), [1, 4], dim=1),
    "split empty": lambda L: L.split(L.zeros(0), 2),
    "split_with_sizes": lambda L: L.split_with_sizes(L.arange(10), [3, 7]),
    "chunk": lambda L: L.chunk(L.arange(10), 4),
    "chunk fewer": lambda L: L.arange(6).chunk(4),
    "chunk empty": lambda L: L.chunk(L.zeros(0), 3),
    "unsafe_chunk unsafe_split": lambda L: (L.unsafe_chunk(L.arange(5), 2), L.unsafe_split(L.arange(5), 2)),
    "unbind": lambda L: L.unbind(m(L), 1),
    "tensor_split sections": lambda L: L.tensor_split(L.arange(10), 3),
    "tensor_split indices": lambda L: L.tensor_split(L.arange(10), [1, 5, 20]),
    "tensor_split descending": lambda L: L.tensor_split(L.arange(10), [5, 1]),
    "tensor_split negative": lambda L: L.tensor_split(L.arange(10), [-3]),
    "tensor_split tensor": lambda L: (L.tensor_split(L.arange(10), L.tensor(3)), L.tensor_split(L.arange(10), L.tensor([3, 6]))),
    "hsplit": lambda L: (L.hsplit(L.zeros(4, 4), 2), L.hsplit(L.arange(10), 5), L.hsplit(L.zeros(2, 5), [2])),
    "vsplit dsplit": lambda L: (L.vsplit(L.zeros(4, 2), 2), L.dsplit(L.zeros(2, 2, 4), [1])),
    "hstack": lambda L: (L.hstack([L.zeros(3), L.ones(2)]), L.hstack([L.zeros(2, 1), L.ones(2, 2)])),
    "hstack promotes": lambda L: L.hstack([L.zeros(3), L.ones(2, dtype=L.int64)]),
    "vstack row_stack": lambda L: (L.vstack([L.zeros(3), L.ones(3)]), L.row_stack([L.zeros(3), L.ones(3)])),
    "dstack": lambda L: (L.dstack([L.arange(3), L.arange(3)]), L.dstack([m(L), m(L)])),
    "column_stack": lambda L: (L.column_stack([L.arange(3), L.ones(3, 2, dtype=L.int64)]),
                               L.column_stack([L.tensor(1.0), L.tensor(2.0)])),
    "block_diag": lambda L: L.block_diag(L.ones(2, 2), L.tensor(5.0), L.tensor([1.0, 2.0])),
    "block_diag mixed dtypes": lambda L: L.block_diag(L.ones(1, 1, dtype=L.int64), L.tensor([[2.5]])),
    "block_diag empty block": lambda L: L.block_diag(L.zeros(0, 2), L.ones(1, 1)),
    "block_diag nothing": lambda L: L.block_diag(),
    "broadcast_tensors": lambda L: L.broadcast_tensors(L.arange(3), L.zeros(2, 1)),
    "broadcast_shapes": lambda L: tuple(L.broadcast_shapes((3,), (2, 1), 1)),
    "meshgrid ij": lambda L: L.meshgrid(L.arange(2), L.arange(3), indexing="ij"),
    "meshgrid xy": lambda L: L.meshgrid(L.arange(2), L.arange(3), L.arange(4), indexing="xy"),
    "meshgrid list 0-d": lambda L: L.meshgrid([L.tensor(1.0), L.arange(3.0)], indexing="ij"),
    "cartesian_prod": lambda L: L.cartesian_prod(L.tensor([1, 2]), L.tensor([3, 4, 5])),
    "cartesian_prod one": lambda L: L.cartesian_prod(L.tensor([1, 2])),
    "combinations": lambda L: (L.combinations(L.tensor([1, 2, 3])), L.combinations(L.tensor([1, 2, 3]), 3),
                               L.combinations(L.tensor([1, 2, 3]), 2, with_replacement=True),
                               L.combinations(L.tensor([1, 2, 3]), 4), L.combinations(L.tensor([1.0, 2.0]), 1)),
    "combinations r=0": lambda L: L.combinations(L.tensor([1, 2, 3]), 0),
    # reading by index
    "gather": lambda L: L.gather(m(L), 1, L.tensor([[1, 0, 0, 2], [0, 0, 2, 2]])),
    "gather smaller index": lambda L: L.gather(m(L), 0, L.tensor([[1, 0]])),
    "gather int32 index": lambda L: m(L).gather(1, L.tensor([[1], [0]], dtype=L.int32)),
    "gather 0-d": lambda L: (L.gather(L.tensor(5.0), 0, L.tensor(0)), L.gather(L.tensor(5.0), 0, L.tensor([0, 0]))),
    "gather empty": lambda L: L.gather(m(L), 1, L.zeros(2, 0, dtype=L.int64)),
    "take_along_dim": lambda L: L.take_along_dim(m(L), L.tensor([[-1], [0]]), 1),
    "take_along_dim flat": lambda L: L.take_along_dim(m(L), L.tensor([5, 0])),
    "take_along_dim broadcast": lambda L: (L.take_along_dim(m(L), L.tensor([[2]]), 1),
                                           L.take_along_dim(L.zeros(1, 3), L.tensor([[2], [1]]), 1)),
    "take": lambda L: L.take(m(L), L.tensor([[-1, 0], [3, 3]])),
    "index_select": lambda L: L.index_select(m(L), 1, L.tensor([2, 0, 2])),
    "index_select 0-d index": lambda L: m(L).index_select(0, L.tensor(1)),
    "index_select of 0-d": lambda L: L.index_select(L.tensor(5.0), 0, L.tensor([0])),
    "masked_select": lambda L: L.masked_select(m(L), L.tensor([True, False, True])),
    "masked_select broadcast": lambda L: L.masked_select(L.arange(3), L.tensor([[True, False, True], [False, False, True]])),
    "masked_select 0-d": lambda L: L.masked_select(L.tensor(2.0), L.tensor(True)),
    "nonzero": lambda L: (L.nonzero(m(L)), L.nonzero(m(L), as_tuple=True), m(L).nonzero()),
    "nonzero 0-d": lambda L: (L.nonzero(L.tensor(3.0)), L.nonzero(L.tensor(0.0)), L.nonzero(L.tensor(3.0), as_tuple=True)),
    "nonzero_static": lambda L: (L.nonzero_static(L.tensor([0, 3, 0, 4]), size=3),
                                 L.nonzero_static(L.tensor([[0, 3], [4, 5]]), size=2, fill_value=7)),
    "argwhere": lambda L: (L.argwhere(m(L) > 0), L.argwhere(L.tensor(3.0))),
    "unravel_index": lambda L: L.unravel_index(L.tensor([[4, 1], [-1, 0]]), (2, 3)),
    "searchsorted": lambda L: (L.searchsorted(L.tensor([1.0, 3, 5]), L.tensor([[0.0, 3, 6]])),
                               L.searchsorted(L.tensor([1.0, 3, 5]), L.tensor([[0.0, 3, 6]]), right=True),
                               L.searchsorted(L.tensor([1.0, 3, 5]), L.tensor([3.0]), side="right")),
    "searchsorted scalar": lambda L: L.searchsorted(L.tensor([1.0, 3, 5]), 3),
    "searchsorted batched": lambda L: L.searchsorted(L.tensor([[1.0, 3, 5], [2, 4, 6]]), L.tensor([[3.0, 7], [3, 0]])),
    "searchsorted sorter int32": lambda L: L.searchsorted(L.tensor([5.0, 1, 3]), L.tensor([3.0, 4]),
                                                          sorter=L.tensor([1, 2, 0]), out_int32=True),
    "bucketize": lambda L: (L.bucketize(L.tensor([1.0, 3, 5, 6]), L.tensor([1.0, 3, 5])),
                            L.bucketize(L.tensor([1.0, 3, 5, 6]), L.tensor([1.0, 3, 5]), right=True),
                            L.bucketize(3, L.tensor([1, 3, 5]))),
    # writing by index
    "scatter": lambda L: L.zeros(2, 3).scatter(1, L.tensor([[2], [0]]), L.tensor([[7.0, 8], [9, 10]])),
    "scatter value": lambda L: L.zeros(2, 3).scatter(1, L.tensor([[2], [0]]), 5.0),
    "scatter function": lambda L: L.scatter(L.zeros(2, 3), 0, L.tensor([[1, 0, 1]]), m(L)),
    "scatter reduce": lambda L: (L.ones(2, 3).scatter(1, L.tensor([[2, 2], [0, 0]]), m(L, 2, 2), reduce="add"),
                                 L.full((2, 3), 2.0).scatter(1, L.tensor([[2, 2], [0, 0]]), m(L, 2, 2), reduce="multiply"),
                                 L.full((2, 3), 2.0).scatter(1, L.tensor([[2, 2], [0, 0]]), 3.0, reduce="multiply")),
    "scatter 0-d": lambda L: L.tensor(2.0).scatter(0, L.tensor(0), 5.0),
    "scatter_add": lambda L: L.ones(2, 3).scatter_add(1, L.tensor([[2, 2], [0, 0]]), m(L, 2, 2)),
    "scatter_add int32 index": lambda L: L.zeros(3).scatter_add(0, L.tensor([1, 1], dtype=L.int32), L.ones(2)),
    "index_add": lambda L: (L.ones(3, 2).index_add(0, L.tensor([0, 0, 2]), m(L, 3, 2), alpha=2),
                            L.index_add(L.ones(3, 2), 1, L.tensor([1]), L.ones(3, 1))),
    "index_copy": lambda L: L.ones(3, 2).index_copy(0, L.tensor([2, 0]), m(L, 2, 2)),
    "index_fill": lambda L: (L.ones(3, 2).index_fill(1, L.tensor([1]), -1.0), L.ones(3, 2).index_fill(1, L.tensor([-1]), -1.0),
                             L.ones(3, 2).index_fill(0, L.tensor([0, 2]), L.tensor(-2.0))),
    "index_put": lambda L: (L.zeros(3, 2).index_put((L.tensor([0, 2]),), L.tensor(1.0)),
                            L.zeros(3, 2).index_put((L.tensor([0, 0]), L.tensor([1, 1])), L.tensor([1.0, 2.0]),
                                                    accumulate=True),
                            L.zeros(3, 2).index_put([L.tensor([True, False, True])], L.tensor([4.0, 5.0]))),
    "masked_scatter": lambda L: (L.zeros(2, 3).masked_scatter(L.tensor([True, False, True]), L.arange(10.0)),
                                 L.zeros(3).masked_scatter(L.tensor([[True, False, True], [True, True, True]]), L.arange(10.0))),
    "put": lambda L: (L.zeros(2, 3).put(L.tensor([5, -1, 0]), L.tensor([1.0, 2, 3])),
                      L.zeros(2, 3).put(L.tensor([5, 5, 0]), L.tensor([1.0, 2, 3]), accumulate=True)),
}
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _self in (True, False):
        PARITY[f"scatter_reduce {_reduce} include_self={_self}"] = (
            lambda L, r=_reduce, s=_self: m(L).scatter_reduce(1, L.tensor([[2, 2], [0, 0]]), m(L, 2, 2) * 3, r, include_self=s))
        PARITY[f"scatter_reduce int {_reduce} include_self={_self}"] = (
            lambda L, r=_reduce, s=_self: L.arange(6).reshape(2, 3).scatter_reduce(0, L.tensor([[1, 1, 0]]),
                                                                                   L.tensor([[7, -8, 9]]), r, include_self=s))
        if _reduce != "sum":
            PARITY[f"index_reduce {_reduce} include_self={_self}"] = (
                lambda L, r=_reduce, s=_self: m(L, 3, 2).index_reduce(0, L.tensor([0, 0, 2]), m(L, 3, 2) * 2 + 1, r,
                                                                     include_self=s))


@pytest.mark.parametrize("name", sorted(PARITY))
def test_values_dtypes_and_shapes_match_pytorch(name):
    _same(PARITY[name](mt), PARITY[name](torch), name)


# The same mistakes: PyTorch's error class, and its words (minitorch may add the op's name before them).
ERRORS = {
    "index out of range": (lambda L: L.zeros(2, 3)[5], IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    "index out of range, dim 1": (lambda L: L.zeros(2, 3)[:, -4], IndexError, "index -4 is out of bounds for dimension 1 with size 3"),
    "tensor index out of range": (lambda L: L.zeros(2, 3)[L.tensor([0, 5])], IndexError,
                                  "index 5 is out of bounds for dimension 0 with size 2"),
    "list index out of range": (lambda L: L.zeros(2, 3)[1, [0, 3]], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    "too many indices": (lambda L: L.zeros(2, 3)[1, 2, 3], IndexError, "too many indices for tensor of dimension 2"),
    "negative step": (lambda L: L.zeros(3)[::-1], ValueError, "step must be greater than zero"),
    "mask too short": (lambda L: L.zeros(3, 2)[L.tensor([True, False])], IndexError,
                       "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 2] at index 0"),
    "float index": (lambda L: L.zeros(3)[L.tensor([0.0])], IndexError, "tensors used as indices must be long, int, byte or bool"),
    "setitem out of range": (lambda L: L.zeros(3).__setitem__(3, 1.0), IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    "dim out of range": (lambda L: L.zeros(2, 3).transpose(0, 2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    "squeeze dim out of range": (lambda L: L.zeros(2, 3).squeeze(2), IndexError, "Dimension out of range"),
    "permute duplicate": (lambda L: L.zeros(2, 3).permute(0, 0), RuntimeError, "duplicate dims are not allowed"),
    "permute length": (lambda L: L.zeros(2, 3).permute(0), RuntimeError, "does not match the length of the desired ordering"),
    "expand leading -1": (lambda L: L.zeros(3).expand(-1, 3), RuntimeError, "isn't allowed in a leading, non-existing dimension 0"),
    "expand mismatch": (lambda L: L.zeros(3).expand(2, 4), RuntimeError, "must match the existing size (3) at non-singleton dimension 1"),
    "expand fewer sizes": (lambda L: L.zeros(2, 3).expand(3), RuntimeError, "must be greater or equal to the number of dimensions"),
    "mT of 1-d": (lambda L: L.zeros(3).mT, RuntimeError, "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    "H of 3-d": (lambda L: L.zeros(2, 2, 2).H, RuntimeError, "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor."),
    "adjoint of 1-d": (lambda L: L.zeros(3).adjoint(), RuntimeError, "only supported on matrices or batches of matrices"),
    "t of 3-d": (lambda L: L.zeros(2, 2, 2).t(), RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    "split sizes": (lambda L: L.split(L.arange(10), [3, 6]), RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 10"),
    "split 0": (lambda L: L.split(L.arange(10), 0), RuntimeError, "split_size can only be 0 if dimension size is 0"),
    "chunk 0": (lambda L: L.chunk(L.arange(10), 0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    "unbind 0-d": (lambda L: L.unbind(L.tensor(1.0)), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    "tensor_split 0": (lambda L: L.tensor_split(L.arange(10), 0), RuntimeError, "number of sections must be larger than 0, got 0"),
    "hsplit uneven": (lambda L: L.hsplit(L.arange(10), 3), RuntimeError, "is not divisible by the split_size 3"),
    "vsplit 1-d": (lambda L: L.vsplit(L.arange(10), 2), RuntimeError, "torch.vsplit requires a tensor with at least 2 dimension"),
    "flip repeated dim": (lambda L: L.flip(L.zeros(2, 3), (1, 1)), RuntimeError, "dim 1 appears multiple times in the list of dims"),
    "fliplr 1-d": (lambda L: L.fliplr(L.zeros(3)), RuntimeError, "Input must be >= 2-d"),
    "roll misaligned": (lambda L: L.roll(L.zeros(2, 3), (1, -1), 0), RuntimeError, "shifts and dimensions must align"),
    "rot90 1-d": (lambda L: L.rot90(L.zeros(3)), RuntimeError, "expected total dims >= 2, but got total dims = 1"),
    "rot90 same dims": (lambda L: L.rot90(L.zeros(2, 2), 1, [0, 0]), RuntimeError, "expected rotation dims to be different"),
    "repeat fewer dims": (lambda L: L.zeros(2, 3).repeat(2), RuntimeError, "Number of dimensions of repeat dims can not be smaller"),
    "repeat_interleave negative": (lambda L: L.repeat_interleave(L.arange(3), -1), RuntimeError, "Repeats must be non-negative"),
    "repeat_interleave sizes": (lambda L: L.repeat_interleave(L.zeros(2, 2), L.tensor([1, 2, 0]), dim=0), RuntimeError,
                                "repeats must have the same size as input along dim"),
    "movedim repeated": (lambda L: L.movedim(L.zeros(2, 3, 4), (0, 0), (2, 1)), RuntimeError, "movedim: repeated dim in `source`"),
    "movedim lengths": (lambda L: L.movedim(L.zeros(2, 3, 4), (0, 1), (2,)), RuntimeError, "should contain the same number of dims"),
    "narrow too long": (lambda L: L.narrow(L.arange(10), 0, 8, 3), RuntimeError, "start (8) + length (3) exceeds dimension size (10)."),
    "narrow negative length": (lambda L: L.narrow(L.arange(10), 0, 2, -1), RuntimeError, "length must be non-negative"),
    "select out of range": (lambda L: L.select(L.zeros(2, 3), 1, 3), IndexError,
                            "select(): index 3 out of range for tensor of size [2, 3] at dimension 1"),
    "select 0-d": (lambda L: L.select(L.tensor(1.0), 0, 0), IndexError, "select() cannot be applied to a 0-dim tensor."),
    "unfold too big": (lambda L: L.arange(7.0).unfold(0, 8, 1), RuntimeError, "maximum size for tensor at dimension 0 is 7 but size is 8"),
    "unfold step 0": (lambda L: L.arange(7.0).unfold(0, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    "unflatten sizes": (lambda L: L.unflatten(L.zeros(2, 12), 1, (5, -1)), RuntimeError, "don't multiply up to the size of dim 1 (12)"),
    "unflatten empty": (lambda L: L.unflatten(L.zeros(2, 12), 1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    "hstack empty": (lambda L: L.hstack([]), RuntimeError, "hstack expects a non-empty TensorList"),
    "block_diag 3-d": (lambda L: L.block_diag(L.ones(2, 2, 2)), RuntimeError, "Input tensors must have 2 or fewer dimensions"),
    "broadcast_tensors": (lambda L: L.broadcast_tensors(L.zeros(3), L.zeros(2)), RuntimeError,
                          "must match the size of tensor b"),
    "broadcast_shapes": (lambda L: L.broadcast_shapes((3,), (2,)), RuntimeError, "Attempting to broadcast a dimension of length 2 at -1!"),
    "meshgrid indexing": (lambda L: L.meshgrid(L.zeros(2), indexing="ab"), RuntimeError, 'indexing must be one of "xy" or "ij"'),
    "meshgrid 2-d": (lambda L: L.meshgrid(L.zeros(2, 2), L.zeros(3), indexing="ij"), RuntimeError, "Expected 0D or 1D tensor"),
    "meshgrid dtypes": (lambda L: L.cartesian_prod(L.tensor([1, 2]), L.tensor([1.0, 2.0])), RuntimeError,
                        "meshgrid expects all tensors to have the same dtype"),
    "combinations 2-d": (lambda L: L.combinations(L.zeros(2, 2)), RuntimeError, "Expect a 1D vector, but got shape [2, 2]"),
    "gather negative": (lambda L: L.gather(L.zeros(2, 3), 1, L.tensor([[-1], [0]])), RuntimeError,
                        "index -1 is out of bounds for dimension 1 with size 3"),
    "gather out of range": (lambda L: L.gather(L.zeros(2, 3), 1, L.tensor([[3], [0]])), RuntimeError,
                            "index 3 is out of bounds for dimension 1 with size 3"),
    "gather index too big": (lambda L: L.gather(L.zeros(2, 3), 1, L.tensor([[1], [0], [0]])), RuntimeError,
                             "to be no larger than self [2, 3] apart from dimension 1"),
    "gather index dims": (lambda L: L.gather(L.zeros(2, 3), 1, L.tensor([1, 0])), RuntimeError,
                          "Index tensor must have the same number of dimensions as input tensor"),
    "gather float index": (lambda L: L.gather(L.zeros(2, 3), 1, L.tensor([[1.0]])), RuntimeError, "Expected dtype int32/int64 for index"),
    "take out of range": (lambda L: L.take(L.zeros(2, 3), L.tensor([6])), IndexError,
                          "out of range: tried to access index 6 on a tensor of 6 elements."),
    "take int32": (lambda L: L.take(L.zeros(3), L.tensor([1], dtype=L.int32)), RuntimeError, "take()"),
    "index_select 2-d index": (lambda L: L.index_select(L.zeros(2, 3), 1, L.tensor([[1]])), IndexError,
                               "index_select(): Index is supposed to be a vector"),
    "index_select negative": (lambda L: L.index_select(L.zeros(2, 3), 1, L.tensor([-1])), RuntimeError, "-1"),
    "masked_select non-bool": (lambda L: L.masked_select(L.zeros(3), L.tensor([1, 0, 1])), RuntimeError,
                               "masked_select: expected BoolTensor for mask"),
    "take_along_dim dims": (lambda L: L.take_along_dim(L.zeros(3, 2), L.tensor([1]), 0), RuntimeError,
                            "input and indices should have the same number of dimensions"),
    "searchsorted shapes": (lambda L: L.searchsorted(L.tensor([[1.0, 3, 5], [2, 4, 6]]), L.tensor([3.0, 3])), RuntimeError,
                            "boundaries tensor should be 1 dimension or the first N-1 dimensions"),
    "searchsorted side": (lambda L: L.searchsorted(L.tensor([1.0, 3]), L.tensor([3.0]), side="left", right=True),
                          RuntimeError, "side and right can't be set to opposites"),
    "bucketize 2-d": (lambda L: L.bucketize(L.tensor([3.0]), L.tensor([[1.0, 3, 5]])), RuntimeError,
                      "boundaries tensor must be 1 dimension, but got dim(2)"),
    "scatter dtypes": (lambda L: L.zeros(2, 3).scatter(1, L.tensor([[2], [0]]), L.tensor([[7, 8], [9, 10]])), RuntimeError,
                       "Expected self.dtype to be equal to src.dtype"),
    "scatter small src": (lambda L: L.zeros(2, 3).scatter(1, L.tensor([[2, 1], [0, 1]]), L.tensor([[7.0], [9.0]])),
                          RuntimeError, "to be no larger size than src [2, 1]"),
    "scatter negative": (lambda L: L.zeros(2, 3).scatter(1, L.tensor([[-1], [0]]), 5.0), RuntimeError,
                         "index -1 is out of bounds for dimension 1 with size 3"),
    "scatter reduce name": (lambda L: L.zeros(3).scatter(0, L.tensor([1]), 3.0, reduce="max"), RuntimeError,
                            "reduce argument must be either add or multiply"),
    "scatter_reduce name": (lambda L: L.zeros(3).scatter_reduce(0, L.tensor([1]), L.ones(1), "foo"), RuntimeError,
                            "reduce argument must be either sum, prod, mean, amax or amin, got foo"),
    "index_add size": (lambda L: L.ones(3, 2).index_add(0, L.tensor([0]), L.ones(2, 2)), RuntimeError, "index_add"),
    "index_add dtypes": (lambda L: L.ones(3, 2).index_add(0, L.tensor([0]), L.ones(1, 2, dtype=L.int64)), RuntimeError,
                         "must have the same scalar type"),
    "index_add negative": (lambda L: L.ones(3, 2).index_add(0, L.tensor([-1]), L.ones(1, 2)), RuntimeError,
                           "index -1 is out of bounds for dimension 0 with size 3"),
    "index_copy negative": (lambda L: L.zeros(3).index_copy(0, L.tensor([-1]), L.ones(1)), IndexError,
                            "index -1 is out of bounds for dimension 0 with size 3"),
    "index_fill out of range": (lambda L: L.zeros(3).index_fill(0, L.tensor([3]), 1.0), IndexError,
                                "index 3 is out of bounds for dimension 0 with size 3"),
    "index_fill 1-d value": (lambda L: L.ones(3, 2).index_fill(1, L.tensor([1]), L.tensor([-2.0])), RuntimeError,
                             "index_fill_ only supports a 0-dimensional value tensor"),
    "index_reduce sum": (lambda L: L.zeros(3).index_reduce(0, L.tensor([1]), L.ones(1), "sum"), RuntimeError,
                         "Expected reduce to be one of prod, mean, amax or amin but got sum."),
    "index_put dtypes": (lambda L: L.zeros(3).index_put((L.tensor([1]),), L.tensor([1])), RuntimeError,
                         "Index put requires the source and destination dtypes match"),
    "index_put shapes": (lambda L: L.zeros(3, 2).index_put((L.tensor([1, 2]),), L.ones(3)), RuntimeError,
                         "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 2]"),
    "index_put out of range": (lambda L: L.zeros(3).index_put((L.tensor([3]),), L.tensor(1.0)), IndexError,
                               "index 3 is out of bounds for dimension 0 with size 3"),
    "masked_scatter short": (lambda L: L.zeros(2, 3).masked_scatter(L.tensor([True, False, True]), L.arange(3.0)),
                             RuntimeError, "Number of elements of source < number of ones in mask"),
    "masked_scatter byte mask": (lambda L: L.zeros(3).masked_scatter(L.tensor([1, 0, 1], dtype=L.uint8), L.ones(3)),
                                 RuntimeError, "masked_scatter_ only supports boolean masks"),
    "put out of range": (lambda L: L.zeros(2, 3).put(L.tensor([6]), L.tensor([1.0])), IndexError,
                         "out of range: tried to access index 6 on a tensor of 6 elements."),
    "put sizes": (lambda L: L.zeros(2, 3).put(L.tensor([1, 2]), L.tensor([1.0])), IndexError,
                  "Expected source and index to have the same number of elements"),
    "squeeze_ out of range": (lambda L: L.zeros(2).unsqueeze_(3), IndexError, "Dimension out of range"),
    "t_ of 3-d": (lambda L: L.zeros(2, 2, 2).t_(), RuntimeError, "t_() expects a tensor with <= 2 dimensions, but self is 3D"),
    "t_ of a leaf": (lambda L: L.ones(2, 3, requires_grad=True).t_(), RuntimeError,
                     "a leaf Variable that requires grad is being used in an in-place operation."),
    "squeeze_ of a view of a leaf": (lambda L: L.ones(2, 1, requires_grad=True)[0:1].squeeze_(), RuntimeError,
                                     "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    "index_add_ of a leaf": (lambda L: L.ones(3, requires_grad=True).index_add_(0, L.tensor([0]), L.ones(1)), RuntimeError,
                             "a leaf Variable that requires grad is being used in an in-place operation."),
}


def _normalized(message):
    return " ".join(message.replace("torch.", "").split())


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name):
    make, error, words = ERRORS[name]
    with pytest.raises(error) as theirs:
        make(torch)
    assert _normalized(words) in _normalized(str(theirs.value)), f"PyTorch now says: {theirs.value}"
    with pytest.raises(error) as ours:
        make(mt)
    assert _normalized(words) in _normalized(str(ours.value))


# ----- views: where PyTorch returns a view, the result shares storage and version -----

def _shares(lib, a, b):
    if lib is torch:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    return np.shares_memory(np.asarray(a), np.asarray(b))


def _version(lib, t):
    return t._version if lib is torch else mt.engine.versions.version(t)


VIEWS_AND_COPIES = {
    "narrow": lambda L, x: x.narrow(1, 1, 2), "select": lambda L, x: x.select(0, 1),
    "split piece": lambda L, x: x.split(2, 1)[1], "chunk piece": lambda L, x: x.chunk(2)[0],
    "unbind piece": lambda L, x: x.unbind(1)[2], "tensor_split piece": lambda L, x: L.tensor_split(x, [1], 1)[1],
    "hsplit piece": lambda L, x: L.hsplit(x, [2])[0], "movedim": lambda L, x: L.movedim(x, 0, 1),
    "swapaxes": lambda L, x: x.swapaxes(0, 1), "t": lambda L, x: L.t(x), "adjoint": lambda L, x: x.adjoint(),
    "mT": lambda L, x: x.mT, "H": lambda L, x: x.H, "unflatten": lambda L, x: x.unflatten(1, (2, 2)),
    "ravel": lambda L, x: x.ravel(), "reshape_as": lambda L, x: x.reshape_as(L.zeros(4, 2)),
    "unfold apart": lambda L, x: x.unfold(1, 2, 2), "unfold overlapping": lambda L, x: x.unfold(1, 3, 1),
    "expand": lambda L, x: x[:, None].expand(2, 3, 4), "broadcast_tensors": lambda L, x: L.broadcast_tensors(x, L.zeros(3, 1, 1))[0],
    "meshgrid": lambda L, x: L.meshgrid(x[0], x[1, :2], indexing="ij")[0], "atleast_3d": lambda L, x: L.atleast_3d(x),
    "flip": lambda L, x: x.flip(0), "roll": lambda L, x: x.roll(1), "rot90": lambda L, x: x.rot90(),
    "repeat ones": lambda L, x: x.repeat(1, 1), "tile": lambda L, x: x.tile((1, 2)),
    "repeat_interleave": lambda L, x: x.repeat_interleave(1, dim=0), "gather": lambda L, x: x.gather(1, L.tensor([[0], [1]])),
    "take": lambda L, x: x.take(L.tensor([0])), "index_select": lambda L, x: x.index_select(1, L.tensor([0, 1])),
    "masked_select": lambda L, x: x.masked_select(x > 0), "hstack": lambda L, x: L.hstack([x]),
    "block_diag": lambda L, x: L.block_diag(x), "cartesian_prod": lambda L, x: L.cartesian_prod(x[0]),
    "scatter": lambda L, x: x.scatter(1, L.tensor([[0], [1]]), 5.0), "index_fill": lambda L, x: x.index_fill(0, L.tensor([0]), 1.0),
}


@pytest.mark.parametrize("name", sorted(VIEWS_AND_COPIES))
def test_views_share_storage_and_version_where_pytorch_does(name):
    results = {}
    for lib_name, L in LIBS.items():
        x = L.arange(8.0).reshape(2, 4)
        y = VIEWS_AND_COPIES[name](L, x)
        shares = _shares(L, y, x)
        if shares:
            x.add_(1)  # the view sees the write, and counts it
            assert _version(L, y) == _version(L, x) > 0
            np.testing.assert_array_equal(np.asarray(y), np.asarray(VIEWS_AND_COPIES[name](L, x)))
        results[lib_name] = shares
    assert results["minitorch"] == results["torch"], f"{name}: shares storage {results}"


def test_pieces_of_a_split_write_into_the_tensor_and_its_history():
    """PyTorch refuses in-place writes into the outputs of split and unbind when autograd is involved
    ("a function that returns multiple views"); minitorch records them like writes into any view,
    so the result is PyTorch's for the same writes through narrow and select."""
    grads = {}
    for lib_name, L in LIBS.items():
        w = L.tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], dtype=L.float64, requires_grad=True)
        y = w * 1
        second = y.split(2, dim=1)[1] if L is mt else y.narrow(1, 2, 2)
        second.mul_(3)
        row = y.unbind(0)[1] if L is mt else y.select(0, 1)
        row.add_(y.narrow(0, 0, 1).squeeze(0) * 2)
        (y * L.arange(8.0, dtype=L.float64).reshape(2, 4)).sum().backward()
        grads[lib_name] = (np.asarray(y.detach()), w.grad.numpy())
    for ours, theirs in zip(grads["minitorch"], grads["torch"]):
        np.testing.assert_allclose(ours, theirs)


def test_writing_into_unfolded_windows():
    for L in LIBS.values():  # windows apart: the writes reach the tensor, as in PyTorch
        x = L.arange(7.0)
        x.unfold(0, 2, 3).mul_(10)
        assert x.tolist() == [0.0, 10.0, 2.0, 30.0, 40.0, 5.0, 6.0]
    for L in LIBS.values():  # overlapping windows write through too (tests/test_views.py walks every view)
        x = L.arange(5.0)
        windows = x.unfold(0, 2, 1)
        windows[1:].fill_(7.0)
        assert x.tolist() == [0.0, 7.0, 7.0, 7.0, 7.0]
        x[0] = 9.0  # and they see writes to the tensor
        assert windows[0].tolist() == [9.0, 7.0]


def test_repeat_never_aliases_its_input():
    x = mt.arange(3.0)
    y = x.repeat(1)
    y[0] = 5.0
    assert x.tolist() == [0.0, 1.0, 2.0]


# ----- in-place twins: same object and storage, PyTorch's values and gradients -----

TWINS = {
    "scatter_": lambda L, x: x.scatter_(1, L.tensor([[2, 0], [1, 2]]), L.full((2, 2), 7.0, dtype=L.float64)),
    "scatter_ value": lambda L, x: x.scatter_(1, L.tensor([[2], [1]]), 7.0),
    "scatter_ reduce": lambda L, x: x.scatter_(1, L.tensor([[2, 2], [0, 0]]), 2.0, reduce="multiply"),
    "scatter_add_": lambda L, x: x.scatter_add_(1, L.tensor([[2, 2], [0, 0]]), L.ones(2, 2, dtype=L.float64)),
    "scatter_reduce_": lambda L, x: x.scatter_reduce_(1, L.tensor([[2, 2], [0, 0]]), L.full((2, 2), 4.0, dtype=L.float64),
                                                      "amax", include_self=False),
    "index_add_": lambda L, x: x.index_add_(0, L.tensor([1, 1]), L.ones(2, 3, dtype=L.float64), alpha=3),
    "index_copy_": lambda L, x: x.index_copy_(1, L.tensor([2]), L.zeros(2, 1, dtype=L.float64)),
    "index_fill_": lambda L, x: x.index_fill_(1, L.tensor([0, 2]), -1.0),
    "index_put_": lambda L, x: x.index_put_((L.tensor([0, 1]), L.tensor([2, 2])), L.tensor(9.0, dtype=L.float64)),
    "index_put_ accumulate": lambda L, x: x.index_put_((L.tensor([0, 0]),), L.ones(3, dtype=L.float64), accumulate=True),
    "torch.index_put_": lambda L, x: L.index_put_(x, (L.tensor([1]),), L.tensor(5.0, dtype=L.float64)),
    "index_reduce_": lambda L, x: x.index_reduce_(1, L.tensor([0, 0]), L.full((2, 2), 3.0, dtype=L.float64), "prod"),
    "masked_scatter_": lambda L, x: x.masked_scatter_(L.tensor([True, False, True]), L.arange(10.0, dtype=L.float64)),
    "put_": lambda L, x: x.put_(L.tensor([0, 5]), L.tensor([8.0, 9.0], dtype=L.float64), accumulate=True),
}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_in_place_twins_write_pytorch_s_values_into_the_same_storage(name):
    x = mt.arange(6.0, dtype=mt.float64).reshape(2, 3)
    storage, view = x.numpy(), x[1]
    before = mt.engine.versions.version(x)
    assert TWINS[name](mt, x) is x
    assert x.numpy() is storage and mt.engine.versions.version(x) == before + 1
    expected = TWINS[name](torch, torch.arange(6.0, dtype=torch.float64).reshape(2, 3))
    np.testing.assert_allclose(x.numpy(), expected.numpy())
    np.testing.assert_allclose(view.numpy(), expected[1].numpy())  # a view sees the write


@pytest.mark.parametrize("name", sorted(set(TWINS) - {"scatter_ reduce"}))  # PyTorch has no gradient for that one
def test_in_place_twins_record_pytorch_s_gradients(name):
    grads = {}
    for lib_name, L in LIBS.items():
        w = L.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -2.5]], dtype=L.float64, requires_grad=True)
        y = w * 2
        TWINS[name](L, y)
        (y * y).sum().backward()
        grads[lib_name] = w.grad.numpy()
    np.testing.assert_allclose(grads["minitorch"], grads["torch"])


def test_a_tensor_written_by_an_in_place_twin_starts_to_require_grad():
    for L in LIBS.values():
        source = L.ones(2, 3, dtype=L.float64, requires_grad=True)
        x = L.zeros(4, 3, dtype=L.float64)
        x.index_add_(0, L.tensor([1, 3]), source * 5)
        assert x.requires_grad
        x.sum().backward()
        assert source.grad.tolist() == [[5.0] * 3] * 2


# ----- gradients of the functions, against PyTorch's -----

GRADIENTS = {
    "scatter_reduce amax include_self=False (PyTorch shares with a tied self)": lambda L, w: (
        w[:2].scatter_reduce(0, L.tensor([0, 1, 0]), w[2:] * L.tensor([1.0, 0.4, 1.0], dtype=L.float64), "amax",
                             include_self=False)),
    "scatter_reduce amin ties": lambda L, w: L.tensor([1.0, 1.0], dtype=L.float64).scatter_reduce(
        0, L.tensor([0, 0, 1]), w[:3] * 0 + 1, "amin"),
    "scatter_reduce prod zeros": lambda L, w: (w[:2] * L.tensor([0.0, 1.0], dtype=L.float64)).scatter_reduce(
        0, L.tensor([0, 1, 0, 1]), w[1:] * L.tensor([1.0, 0.0, 0.0, 1.0], dtype=L.float64), "prod"),
    "scatter_reduce mean ints of positions": lambda L, w: w[:3].scatter_reduce(0, L.tensor([2, 2, 0]), w[2:] ** 2, "mean"),
    "index_reduce amax": lambda L, w: w[:2].reshape(2, 1).index_reduce(0, L.tensor([1, 1, 0]), w[2:].reshape(3, 1), "amax"),
    "index_put broadcast value": lambda L, w: L.zeros(3, 2, dtype=L.float64).index_put((L.tensor([0, 2]),), w[:2]),
    "masked_scatter broadcast": lambda L, w: w[:3].masked_scatter(L.tensor([[True, False, True], [True, True, False]]), w * 3),
    "masked_select broadcast": lambda L, w: L.masked_select(w[:3], L.tensor([[True, False, True], [False, True, True]])),
    "take_along_dim broadcast": lambda L, w: L.take_along_dim(w[:3].reshape(1, 3), L.tensor([[2, 0], [1, 1]]), 1),
    "repeat_interleave": lambda L, w: w[:3].repeat_interleave(L.tensor([3, 0, 2])) * L.arange(5.0, dtype=L.float64),
    "unfold overlapping": lambda L, w: w.unfold(0, 3, 2) ** 2,
    "rot90 repeat tile": lambda L, w: L.tile(w[:4].reshape(2, 2).rot90(3).repeat(2, 1), (1, 2)) ** 2,
    "block_diag": lambda L, w: L.block_diag(w[:2], w[2].reshape(()), w[3:].reshape(1, 2)) ** 2,
    "combinations": lambda L, w: L.combinations(w[:3], 2).prod(1),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_pytorch(name):
    grads = {}
    for lib_name, L in LIBS.items():
        w = L.tensor([0.5, -1.0, 2.0, 1.5, 3.0], dtype=L.float64, requires_grad=True)
        out = GRADIENTS[name](L, w)
        (out * L.arange(1.0, out.numel() + 1, dtype=L.float64).reshape(out.shape)).sum().backward()
        grads[lib_name] = (out.detach().numpy(), w.grad.numpy())
    for ours, theirs in zip(grads["minitorch"], grads["torch"]):
        np.testing.assert_allclose(ours, theirs, err_msg=name)


def test_second_order_of_prod_with_several_zeros_at_one_place_is_refused_as_in_pytorch():
    x = mt.tensor([4.0, 1.0], dtype=mt.float64, requires_grad=True)
    s = mt.tensor([0.0, 2.0, 0.0, 3.0], dtype=mt.float64, requires_grad=True)
    out = x.scatter_reduce(0, mt.tensor([0, 1, 0, 1]), s, "prod")
    (first,) = mt.autograd.grad(out.sum(), s, retain_graph=True)  # first order is fine
    assert first.tolist() == [0.0, 3.0, 0.0, 2.0]
    with pytest.raises(RuntimeError, match="Double backward is unsupported for src when >1 zeros"):
        mt.autograd.grad(out.sum(), s, create_graph=True)


def test_forward_mode_through_the_scatter_and_in_place_shape_ops():
    x = mt.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=mt.float64)
    tangent = mt.ones(2, 3, dtype=mt.float64)
    with mt.autograd.ForwardAccumulator(x, tangent) as acc:
        y = x.scatter_reduce(1, mt.tensor([[0, 0, 2], [1, 1, 1]]), x * x, "prod") * 1
        y.t_()
        jvp = acc.jvp(y)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        z = x.scatter_reduce(1, mt.tensor([[0, 0, 2], [1, 1, 1]]), x * x, "prod").t()
    jacobian = tape.jacobian(z, x).numpy().reshape(6, 6)
    np.testing.assert_allclose(jvp.numpy().reshape(-1), jacobian @ tangent.numpy().reshape(-1))


# ----- in-place shape changes -----

SHAPE_CHANGES = [("squeeze_", ()), ("squeeze_", (1,)), ("squeeze_", ((0, 1),)), ("unsqueeze_", (0,)), ("unsqueeze_", (-1,)),
                 ("transpose_", (0, 2)), ("swapaxes_", (2, 1)), ("swapdims_", (-1, 0))]


@pytest.mark.parametrize("name,args", SHAPE_CHANGES + [("t_", ())], ids=lambda v: str(v))
def test_in_place_shape_changes_keep_object_and_storage(name, args):
    shapes = {}
    for lib_name, L in LIBS.items():
        x = L.arange(6.0).reshape(2, 1, 3) if name != "t_" else L.arange(6.0).reshape(2, 3)
        storage, version = (x.untyped_storage().data_ptr(), x._version) if L is torch else (x.numpy().base, _version(L, x))
        assert getattr(x, name)(*args) is x
        if L is torch:
            assert x.untyped_storage().data_ptr() == storage and x._version == version + 1
        else:
            assert np.shares_memory(x.numpy(), storage) and _version(L, x) == version + 1
        shapes[lib_name] = (tuple(x.shape), x.tolist(), x.stride())
    assert shapes["minitorch"] == shapes["torch"]


def _shape_story(L, w):
    """Views made before and after in-place shape changes, written into, then a loss."""
    y = w * 2
    before = y[0]  # made before any change: keeps y's old arrangement
    y.t_()
    y.unsqueeze_(0)
    after = y[0, 1]  # made between two changes
    y.transpose_(0, 2)
    after.mul_(3)
    before.add_(y[0, :, 0].clone() ** 2)  # a clone: y is written again below
    y.squeeze_()
    return (y * L.arange(6.0, dtype=L.float64).reshape(y.shape)).sum() + (before * after.sum()).sum()


def test_views_made_before_and_after_in_place_shape_changes_give_pytorch_s_gradients():
    results = {}
    for lib_name, L in LIBS.items():
        w = L.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -2.5]], dtype=L.float64, requires_grad=True)
        loss = _shape_story(L, w)
        loss.backward()
        results[lib_name] = (loss.item(), w.grad.numpy())
    assert results["minitorch"][0] == pytest.approx(results["torch"][0])
    np.testing.assert_allclose(results["minitorch"][1], results["torch"][1])


def test_in_place_shape_changes_second_order_and_the_tensorflow_door():
    w = mt.tensor([[0.5, -1.0, 2.0], [1.5, 3.0, -2.5]], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradgradcheck(lambda a: _shape_story(mt, a), [w])
    a = mt.tensor([[1.0, 2.0, 3.0]])
    with mt.GradientTape() as tape:
        tape.watch(a)
        y = a * a
        y.t_()
        loss = (y * mt.tensor([[1.0], [10.0], [100.0]])).sum()
    assert tape.gradient(loss, a).tolist() == [[2.0, 40.0, 600.0]]


def test_repeated_shape_changes_of_a_view_do_not_grow_a_chain():
    base = mt.zeros(4, 1, 3)
    x = base[1:3]
    start = view_depth(x)
    for _ in range(100):
        x.transpose_(0, 2).unsqueeze_(0).squeeze_(0).swapdims_(1, 2)
    assert view_depth(x) <= start + 2
    assert len(list(base._version.views)) <= 6  # x, its arrangement nodes and the root; not one per change
    x.fill_(7.0)  # still writes where it should
    assert base[1:3].tolist() == [[[7.0] * 3]] * 2 and base[0].tolist() == [[0.0] * 3]


def test_a_leaf_changed_in_place_under_no_grad_stays_a_leaf_as_in_pytorch():
    grads = {}
    for lib_name, L in LIBS.items():
        w = L.ones(2, 3, requires_grad=True)
        with L.no_grad():
            w.t_()
            w.unsqueeze_(1)
        assert w.is_leaf and w.requires_grad and tuple(w.shape) == (3, 1, 2)
        (w * L.arange(6.0).reshape(3, 1, 2)).sum().backward()
        grads[lib_name] = w.grad.numpy()
    np.testing.assert_array_equal(grads["minitorch"], grads["torch"])


# ----- indexing that PyTorch reads -----

INDEXING = {
    "True": lambda L, x: x[True], "False": lambda L, x: x[False], "0-d bool tensor": lambda L, x: x[L.tensor(True)],
    "None, True, int": lambda L, x: x[None, True, 1], "mask then slice": lambda L, x: x[L.tensor([True, False]), 1:],
    "0-d int tensor": lambda L, x: x[L.tensor(1)], "int32 index": lambda L, x: x[L.tensor([1, 0], dtype=L.int32)],
    "empty list": lambda L, x: x[[]], "mask of all dims": lambda L, x: x[x > 2],
    "ellipsis and mask": lambda L, x: x[..., L.tensor([True, False, True])],
    "two arrays and slice": lambda L, x: x[L.tensor([[1], [0]]), L.tensor([2, 0])],
}


@pytest.mark.parametrize("name", sorted(INDEXING))
def test_indexing_reads_what_pytorch_reads_and_its_gradient(name):
    results = {}
    for lib_name, L in LIBS.items():
        x = L.arange(6.0, dtype=L.float64).reshape(2, 3).requires_grad_()
        out = INDEXING[name](L, x)
        (out * out).sum().backward()
        results[lib_name] = (out.detach(), x.grad)
    _same(results["minitorch"], results["torch"], name)


def test_a_byte_tensor_index_is_a_mask_as_in_pytorch():
    with pytest.warns(UserWarning):
        expected = torch.arange(3)[torch.tensor([1, 0, 1], dtype=torch.uint8)]
    assert mt.arange(3)[mt.tensor([1, 0, 1], dtype=mt.uint8)].tolist() == expected.tolist() == [0, 2]


def test_an_expanded_tensor_can_change_shape_in_place_but_not_values():
    for L in LIBS.values():
        x = L.zeros(3).expand(2, 3)
        x.t_()
        assert tuple(x.shape) == (3, 2) and x.stride() == (1, 0)
    with pytest.raises(RuntimeError, match="Please clone"):
        x.add_(1)


def test_a_view_changed_in_place_follows_later_writes_into_its_base():
    grads = {}
    for lib_name, L in LIBS.items():
        w = L.arange(1.0, 10.0, dtype=L.float64).reshape(3, 3).requires_grad_()
        b = w * 1
        v = b[0:2]
        v.t_()
        v.unsqueeze_(0)
        b.mul_(L.arange(9.0, dtype=L.float64).reshape(3, 3))  # a recorded write through the base: v must see it, and its history too
        loss = (v * L.arange(6.0, dtype=L.float64).reshape(1, 3, 2)).sum()
        loss.backward()
        grads[lib_name] = (loss.item(), w.grad.numpy())
    assert grads["minitorch"][0] == grads["torch"][0]
    np.testing.assert_array_equal(grads["minitorch"][1], grads["torch"][1])
