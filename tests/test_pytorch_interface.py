"""The interface a PyTorch script meets on its first run, against PyTorch 2.13: module paths, call forms,
names, autograd flags, pickling, samplers, exception classes (issue 26).

Each test runs the same code with `torch` and with `minitorch` where PyTorch is installed, and checks
minitorch's own answer either way.
"""
import copy
import importlib
import io
import pickle
import tracemalloc

import numpy as np
import pytest

import minitorch as mt


def torch_or_skip():
    return pytest.importorskip("torch")


# ----- module paths -----------------------------------------------------------------------------

# Modules minitorch covers whole: every name of PyTorch's __all__.
WHOLE = ["utils.data.dataloader", "utils.data.dataset", "utils.data.sampler", "utils.data.distributed", "nn.utils.rnn",
         "nn.parameter", "optim.lr_scheduler", "autograd.functional"]
# PyTorch's nn.modules layout: every class minitorch.nn has (3-d layers and quantization are out of scope).
LAYOUT = ["nn.modules", "nn.modules.module", "nn.modules.linear", "nn.modules.conv", "nn.modules.loss",
          "nn.modules.activation", "nn.modules.batchnorm", "nn.modules.normalization", "nn.modules.pooling",
          "nn.modules.container", "nn.modules.dropout", "nn.modules.sparse", "nn.modules.rnn",
          "nn.modules.transformer", "nn.modules.padding", "nn.modules.flatten", "nn.modules.upsampling",
          "nn.modules.instancenorm", "nn.modules.lazy", "nn.modules.pixelshuffle", "nn.modules.fold"]


def _public_names(module):
    return getattr(module, "__all__", None) or [
        n for n, v in vars(module).items() if isinstance(v, type) and v.__module__ == module.__name__]


@pytest.mark.parametrize("path", WHOLE)
def test_pytorch_submodules_minitorch_covers_whole_hold_every_name(path):
    torch = torch_or_skip()
    names = _public_names(importlib.import_module(f"{torch.__name__}.{path}"))
    ours = importlib.import_module(f"minitorch.{path}")
    assert names and not [n for n in names if not hasattr(ours, n)], f"minitorch.{path}"


@pytest.mark.parametrize("path", LAYOUT)
def test_pytorch_nn_modules_paths_hold_the_classes_minitorch_has(path):
    """`from torch.nn.modules.X import Y` works with torch changed to minitorch, for every Y minitorch.nn has,
    and gives the very class minitorch.nn has."""
    torch = torch_or_skip()
    names = [n for n in _public_names(importlib.import_module(f"{torch.__name__}.{path}")) if hasattr(mt.nn, n)]
    ours = importlib.import_module(f"minitorch.{path}")
    assert names, path
    assert [getattr(ours, n, None) for n in names] == [getattr(mt.nn, n) for n in names], path


def test_private_base_classes_and_helpers_scripts_import():
    from minitorch.nn.modules.batchnorm import _BatchNorm
    from minitorch.nn.modules.conv import _ConvNd
    from minitorch.nn.modules.loss import _Loss, _WeightedLoss
    from minitorch.nn.modules.utils import _pair, _quadruple, _single, _triple

    assert issubclass(mt.nn.MSELoss, _Loss) and issubclass(mt.nn.NLLLoss, _WeightedLoss)
    assert issubclass(mt.nn.Conv2d, _ConvNd) and issubclass(mt.nn.BatchNorm2d, _BatchNorm)
    assert (_single(2), _pair(3), _triple([1, 2, 3]), _quadruple(0)) == ((2,), (3, 3), (1, 2, 3), (0, 0, 0, 0))
    from minitorch.utils.data.dataloader import DataLoader, default_collate, get_worker_info

    assert DataLoader is mt.utils.data.DataLoader and default_collate is mt.utils.data.default_collate
    assert get_worker_info() is None


# ----- Subset and the lazy RandomSampler --------------------------------------------------------

@pytest.mark.parametrize("indices", [[3, 0, 2], range(1, 4), (0, 1)])
def test_subset_keeps_the_indices_it_was_given(indices):
    subset = mt.utils.data.Subset(list("abcdef"), indices)
    assert subset.indices is indices
    assert [subset[i] for i in range(len(subset))] == ["abcdef"[i] for i in indices]
    torch = torch_or_skip()
    assert torch.utils.data.Subset(list("abcdef"), indices).indices is indices


def test_random_split_subsets_hold_lists_as_pytorch():
    torch = torch_or_skip()
    ours = mt.utils.data.random_split(range(10), [7, 3], generator=0)
    theirs = torch.utils.data.random_split(range(10), [7, 3])
    assert [type(s.indices) for s in ours] == [type(s.indices) for s in theirs] == [list, list]
    assert sorted(ours[0].indices + ours[1].indices) == list(range(10))


def test_random_sampler_with_replacement_draws_lazily():
    """An 'infinite' loader: 10**10 draws would be 74 GiB as one array; the first batches cost next to nothing."""
    data = mt.utils.data.TensorDataset(mt.arange(10.0))
    sampler = mt.utils.data.RandomSampler(data, replacement=True, num_samples=10**10, generator=0)
    loader = mt.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
    assert len(sampler) == 10**10 and len(loader) == 10**10 // 4
    tracemalloc.start()
    try:
        iterator = iter(loader)
        batches = [next(iterator)[0] for _ in range(5)]
        first = list(zip(range(7), iter(sampler)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, peak
    assert all(b.shape == (4,) and set(b.tolist()) <= set(range(10)) for b in batches)
    assert len(first) == 7
    # seeded and the same whether iterated, batched or asked for the whole (small) epoch
    small = mt.utils.data.RandomSampler(range(5), replacement=True, num_samples=9, generator=3)
    again = mt.utils.data.RandomSampler(range(5), replacement=True, num_samples=9, generator=3)
    assert list(small) == again.index_array().tolist()
    torch = torch_or_skip()
    theirs = torch.utils.data.RandomSampler(range(10), replacement=True, num_samples=10**10)
    assert len(list(zip(range(7), iter(theirs)))) == 7


def test_a_long_lazy_epoch_is_batched_across_chunks():
    sampler = mt.utils.data.RandomSampler(range(3), replacement=True, num_samples=70_001, generator=1)
    same_seed = mt.utils.data.RandomSampler(range(3), replacement=True, num_samples=70_001, generator=1)
    batches = list(mt.utils.data.BatchSampler(sampler, 1000, drop_last=False).index_batches())
    assert [len(b) for b in batches] == [1000] * 70 + [1]
    assert np.concatenate(batches).tolist() == same_seed.index_array().tolist()
    dropped = list(mt.utils.data.BatchSampler(sampler, 1000, drop_last=True))
    assert len(dropped) == 70


@pytest.mark.parametrize("framework", ["minitorch", "torch"])
def test_nn_buffer_registers_itself_as_pytorch(framework):
    L = mt if framework == "minitorch" else torch_or_skip()

    class Running(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.mean = L.nn.Buffer(L.zeros(2))
            self.scratch = L.nn.Buffer(L.ones(1), persistent=False)

    model = Running()
    assert [name for name, _ in model.named_buffers()] == ["mean", "scratch"]
    assert list(model.state_dict()) == ["mean"] and not list(model.parameters())
    source = L.zeros(3)
    buffer = L.nn.Buffer(source)
    buffer[0] = 5.0
    assert source[0].item() == 5.0  # shares memory


# ----- keywords -----------------------------------------------------------------------------------

def frameworks():
    """minitorch, and torch where installed: each keyword test runs the same code on both."""
    return ["minitorch", "torch"]


def framework(name):
    return mt if name == "minitorch" else torch_or_skip()


@pytest.mark.parametrize("name", frameworks())
def test_pytorchs_keywords_are_taken(name):
    L = framework(name)
    x = L.arange(6.0).reshape(2, 3)
    assert L.sum(input=x, dim=1).tolist() == [3.0, 12.0]
    assert L.add(input=x, other=x, alpha=2).tolist() == [[0.0, 3.0, 6.0], [9.0, 12.0, 15.0]]
    assert L.max(x, other=L.full((2, 3), 2.0)).tolist() == [[2.0, 2.0, 2.0], [3.0, 4.0, 5.0]]
    assert L.zeros(size=(2,)).tolist() == [0.0, 0.0] and L.ones(size=[1]).tolist() == [1.0]
    assert L.arange(end=4).tolist() == [0, 1, 2, 3]
    assert L.flip(x, dims=[0]).tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert L.concatenate([x, x], axis=0).shape == (4, 3) and L.cat([x, x], axis=1).shape == (2, 6)
    assert x.reshape(shape=(3, 2)).shape == (3, 2) and x.view(size=(6,)).shape == (6,)
    assert x.permute(dims=(1, 0)).shape == (3, 2) and x.repeat(repeats=(2, 1)).shape == (4, 3)
    assert x.expand(size=(2, 2, 3)).shape == (2, 2, 3) and x.tile(2, 1).shape == (4, 3)
    assert [p.shape for p in L.tensor_split(x, sections=3, dim=1)] == [(2, 1)] * 3
    assert [p.shape for p in x.hsplit(1, 2)] == [(2, 1), (2, 1), (2, 1)]
    assert x.split(split_size=1)[1].tolist() == [[3.0, 4.0, 5.0]]
    assert L.swapdims(x, dim0=0, dim1=1).shape == (3, 2) and L.swapaxes(x, axis0=0, axis1=1).shape == (3, 2)
    assert L.histogram(L.arange(10.0), density=True).hist.shape == (100,)  # PyTorch's default bins
    assert L.where(x > 3)[1].tolist() == [1, 2]
    assert L.repeat_interleave(repeats=L.tensor([1, 2])).tolist() == [0, 1, 1]
    assert x.numpy(force=True).shape == (2, 3)
    y = L.zeros(3)
    assert y.copy_(other=L.ones(3)).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("name", frameworks())
@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_regression_losses(name, loss, reduction):
    L = framework(name)
    x = L.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -2.5]], requires_grad=True)
    y = L.tensor([[0.0, 1.0, 2.5], [1.0, 0.5, -1.0]])
    w = L.tensor([[1.0, 0.5, 2.0], [0.0, 3.0, 1.0]])
    out = getattr(L.nn.functional, loss)(x, y, reduction=reduction, weight=w)
    out.sum().backward()
    expected = {  # computed by PyTorch 2.13
        ("mse_loss", "mean"): 5.75 / 7.5, ("mse_loss", "sum"): 5.75, ("mse_loss", "none"): 5.75,
        ("l1_loss", "mean"): 5.5 / 7.5, ("l1_loss", "sum"): 5.5, ("l1_loss", "none"): 5.5,
        ("huber_loss", "mean"): 2.5 / 6, ("huber_loss", "sum"): 2.5, ("huber_loss", "none"): 2.5,
    }[loss, reduction]  # the weights sum to 7.5; huber_loss's mean is over the 6 elements
    np.testing.assert_allclose(out.sum().item(), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="same size"):
        getattr(L.nn.functional, loss)(x, y, weight=L.ones(3))


@pytest.mark.parametrize("name", frameworks())
def test_initialisers_take_a_generator(name):
    L = framework(name)
    inits = [lambda t, g: L.nn.init.uniform_(t, generator=g), lambda t, g: L.nn.init.normal_(t, generator=g),
             lambda t, g: L.nn.init.xavier_uniform_(t, generator=g), lambda t, g: L.nn.init.xavier_normal_(t, generator=g),
             lambda t, g: L.nn.init.kaiming_uniform_(t, generator=g),
             lambda t, g: L.nn.init.kaiming_normal_(t, generator=g),
             lambda t, g: L.nn.init.trunc_normal_(t, generator=g), lambda t, g: L.nn.init.orthogonal_(t, generator=g)]
    if name == "minitorch":  # PyTorch's sparse_ draws its zeroed rows from the global generator
        inits.append(lambda t, g: L.nn.init.sparse_(t, 0.5, generator=g))
    for init in inits:
        first = init(L.empty(4, 5), L.Generator().manual_seed(7)).tolist()
        again = init(L.empty(4, 5), L.Generator().manual_seed(7)).tolist()
        other = init(L.empty(4, 5), L.Generator().manual_seed(8)).tolist()
        assert first == again and first != other


# ----- out= ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", frameworks())
def test_out_writes_into_the_given_tensor(name):
    L = framework(name)
    a, b = L.tensor([1.0, 2.0]), L.tensor([10.0, 20.0])
    c = L.zeros(2)
    assert L.add(a, b, out=c) is c and c.tolist() == [11.0, 22.0]
    values, indices = L.zeros(0), L.zeros(0, dtype=L.int64)
    result = L.max(L.tensor([[1.0, 3.0], [4.0, 2.0]]), 1, out=(values, indices))
    assert result.values is values and values.tolist() == [3.0, 4.0] and indices.tolist() == [1, 0]
    d = L.zeros(2, dtype=L.float64)
    L.mul(a, 2, out=d)  # a same-kind cast into out's dtype
    assert d.dtype == L.float64 and d.tolist() == [2.0, 4.0]
    e = L.zeros(2, dtype=L.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        L.add(a, b, out=e)
    with pytest.warns(UserWarning, match="resized"):
        L.add(a, b, out=L.zeros(5))
    x = L.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        L.mul(x, 2, out=L.zeros(2))
    with L.no_grad():
        assert L.mul(x, 2, out=L.zeros(2)).tolist() == [2.0, 2.0]
    f = L.empty(0)
    assert L.arange(3.0, out=f) is f and f.tolist() == [0.0, 1.0, 2.0]
    g = L.empty(0)
    assert L.linalg.inv(L.eye(2) * 2, out=g) is g and g.tolist() == [[0.5, 0.0], [0.0, 0.5]]
    h = L.empty(0)
    assert L.special.expit(L.zeros(1), out=h) is h and h.tolist() == [0.5]


# ----- forms and names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", frameworks())
def test_dtype_aliases_and_constants(name):
    L = framework(name)
    assert (L.int, L.short, L.long, L.half, L.float, L.double, L.bool) == (
        L.int32, L.int16, L.int64, L.float16, L.float32, L.float64, L.bool)
    assert L.ones(1, dtype=L.int).dtype == L.int32
    assert L.inf == float("inf") and L.nan != L.nan and L.pi == np.pi and L.e == np.e


def test_complex_dtypes_are_named_and_refused_clearly():
    torch = torch_or_skip()
    for name in ("cfloat", "cdouble", "complex64", "complex128", "chalf", "complex32"):
        assert hasattr(torch, name) and hasattr(mt, name), name
    with pytest.raises(TypeError, match="complex"):
        mt.zeros(2, dtype=mt.cfloat)


# ----- autograd flags -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", frameworks())
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_rounding_requires_grad_with_a_zero_gradient(name, mode):
    L = framework(name)
    x = L.tensor([1.5, -2.5], requires_grad=True)
    y = L.div(x, 2, rounding_mode=mode)
    assert y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name", frameworks())
@pytest.mark.parametrize("write", ["zero_", "fill_", "copy_"])
def test_overwriting_a_clone_keeps_requires_grad_and_gives_zero_gradients(name, write):
    L = framework(name)
    x = L.tensor([1.0, 2.0], requires_grad=True)
    source = L.tensor([3.0, 4.0], requires_grad=True)
    c = x.clone()
    {"zero_": lambda: c.zero_(), "fill_": lambda: c.fill_(2.0), "copy_": lambda: c.copy_(source * 2)}[write]()
    assert c.requires_grad
    (c * c).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    if write == "copy_":
        assert source.grad.tolist() == [24.0, 32.0]  # d (2s)^2 / ds = 8 s


@pytest.mark.parametrize("name", [
    "minitorch",
    "torch"])
def test_assigning_a_wrong_grad_raises(name):
    L = framework(name)
    w = L.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="size"):
        w.grad = L.zeros(3)
    with pytest.raises(RuntimeError, match="dtype"):
        w.grad = L.zeros(2, dtype=L.float64)
    with pytest.raises(TypeError):
        w.grad = [0.0, 0.0]
    w.grad = L.full((2,), 3.0)
    w.grad = None
    assert w.grad is None


@pytest.mark.parametrize("name", frameworks())
def test_linear_and_matmul_refuse_mixed_dtypes(name):
    L = framework(name)
    with pytest.raises(RuntimeError, match="same dtype"):
        L.nn.functional.linear(L.ones(2, 3, dtype=L.int64), L.ones(4, 3))
    with pytest.raises(RuntimeError, match="same dtype"):
        L.matmul(L.ones(2, 2, dtype=L.float64), L.ones(2, 2))


# ----- pickling out ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", frameworks())
def test_tensors_and_modules_pickle_out(name):
    L = framework(name)
    x = L.tensor([1.0, 2.0], requires_grad=True)
    x.grad = L.ones(2)
    again = pickle.loads(pickle.dumps(x))
    assert again.requires_grad and again.is_leaf and again.grad is None and again.tolist() == [1.0, 2.0]
    assert pickle.loads(pickle.dumps(x * 2)).requires_grad  # a non-leaf comes back as a leaf
    model = L.nn.Sequential(L.nn.Linear(2, 3), L.nn.BatchNorm1d(3), L.nn.ReLU())
    model(L.ones(4, 2)).sum().backward()
    for copied in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert [type(p).__name__ for p in copied.parameters()] == ["Parameter"] * 4
        for (key, value), other in zip(model.state_dict().items(), copied.state_dict().values()):
            assert value.tolist() == other.tolist(), key
        copied(L.ones(4, 2)).sum().backward()
        assert copied[0].weight.grad is not None


def test_a_model_reaches_spawned_data_loader_workers():
    """A data set holding a model is pickled into spawned worker processes."""
    model = mt.nn.Linear(3, 1)
    with mt.no_grad():
        model.weight.fill_(1.0)
        model.bias.fill_(0.0)

    loader = mt.utils.data.DataLoader(_ModelDataset(model), batch_size=2, num_workers=1,
                                      multiprocessing_context="spawn")
    batches = [batch.tolist() for batch in loader]
    assert batches == [[[0.0], [3.0]], [[6.0], [9.0]]]


class _ModelDataset(mt.utils.data.Dataset):
    def __init__(self, model):
        self.model = model

    def __len__(self):
        return 4

    def __getitem__(self, i):
        with mt.no_grad():
            return self.model(mt.full((3,), float(i)))


def test_minitorch_load_still_refuses_pickles(tmp_path):
    path = tmp_path / "model.pt"
    path.write_bytes(pickle.dumps(mt.nn.Linear(2, 2)))
    with pytest.raises(mt.CheckpointError, match="pickle"):
        mt.load(path)


# ----- exception classes ----------------------------------------------------------------------------

CALLS_AND_CLASSES = [
    ("index_select out of range", IndexError, lambda L: L.index_select(L.ones(2, 3), 0, L.tensor([5]))),
    ("embedding out of range", IndexError, lambda L: L.nn.functional.embedding(L.tensor([5]), L.ones(3, 2))),
    ("zeros(-1)", RuntimeError, lambda L: L.zeros(-1)),
    ("bitwise_and on floats", RuntimeError, lambda L: L.bitwise_and(L.ones(2), L.ones(2))),
    ("~ on floats", TypeError, lambda L: ~L.ones(2)),  # PyTorch: TypeError here, RuntimeError for bitwise_and
    ("float indices to Embedding", RuntimeError, lambda L: L.nn.Embedding(3, 2)(L.tensor([1.0]))),
    ("float target to nll_loss", RuntimeError, lambda L: L.nn.functional.nll_loss(L.ones(2, 3), L.tensor([1.0, 0.0]))),
    ("float indices to one_hot", RuntimeError, lambda L: L.nn.functional.one_hot(L.tensor([1.0]))),
    ("reflect padding too wide", RuntimeError, lambda L: L.nn.functional.pad(L.ones(1, 1, 2), (3, 3), mode="reflect")),
]


@pytest.mark.parametrize("name", frameworks())
@pytest.mark.parametrize("what, error, call", CALLS_AND_CLASSES, ids=[c[0] for c in CALLS_AND_CLASSES])
def test_pytorchs_exception_classes(name, what, error, call):
    L = framework(name)
    with pytest.raises(error):
        call(L)


# ----- the names the surface tool found missing (goal 4) -------------------------------------------

@pytest.mark.parametrize("name", frameworks())
def test_hardshrink_and_prelu_are_methods(name):
    L = framework(name)
    x = L.tensor([[-1.0, 0.3], [0.6, -0.2]])
    assert x.hardshrink().tolist() == L.nn.functional.hardshrink(x).tolist()
    np.testing.assert_allclose(x.hardshrink(0.25).tolist(), [[-1.0, 0.3], [0.6, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(x.prelu(L.tensor([0.5, 0.25])).tolist(), [[-0.5, 0.3], [0.6, -0.05]], rtol=1e-6)


@pytest.mark.parametrize("name", frameworks())
def test_in_place_aten_dropouts(name):
    L = framework(name)
    for fn in (L.dropout_, L.alpha_dropout_, L.feature_dropout_, L.feature_alpha_dropout_):
        x = L.ones(2, 3, 4)
        assert fn(x, 0.5, False) is x and x.tolist() == L.ones(2, 3, 4).tolist()
    x = L.ones(1000)
    L.manual_seed(0)
    L.dropout_(x, 0.5, True)
    assert set(x.tolist()) <= {0.0, 2.0} and 300 < (x == 0).sum().item() < 700


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("bags", ["offsets", "last offset", "padding"])
def test_aten_embedding_bag_returns_pytorchs_four_tensors(mode, bags):
    torch = torch_or_skip()
    weight = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    indices, offsets, last, padding = {
        "offsets": ([0, 2, 1, 3, 3], [0, 2], False, None), "last offset": ([0, 2, 1, 3, 3], [0, 2, 2, 5], True, None),
        "padding": ([0, 2, 1, 3, 3], [0, 2], False, 3)}[bags]
    results = []
    for L in (torch, mt):
        out = L.embedding_bag(L.tensor(weight), L.tensor(indices), L.tensor(offsets), False, mode, False, None, last,
                              padding)
        results.append([t.tolist() for t in out])
    assert results[1] == results[0]
    with pytest.raises(RuntimeError, match="1-D indices"):  # PyTorch's form mixes up 2-D bags in mean mode
        mt.embedding_bag(mt.tensor(weight), mt.tensor([[0, 2], [1, 3]]), mt.tensor([0, 2]), False, mode)


def test_embedding_renorm_and_solve_triangular_match_pytorch():
    torch = torch_or_skip()
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)
    expected = torch.embedding_renorm_(torch.tensor(table), torch.tensor([0, 1]), 1.0, 2.0)
    np.testing.assert_allclose(mt.embedding_renorm_(mt.tensor(table), mt.tensor([0, 1]), 1.0, 2.0).numpy(),
                               expected.numpy(), rtol=1e-6)
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 2))
    for upper in (True, False):
        for left in (True, False):
            for unitriangular in (True, False):
                rhs = B if left else B.transpose(0, 2, 1)
                grads = []
                for L in (torch, mt):
                    a, b = L.tensor(A, requires_grad=True), L.tensor(rhs, requires_grad=True)
                    x = L.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular)
                    (x ** 2).sum().backward()
                    grads.append((x.detach().numpy(), a.grad.numpy(), b.grad.numpy()))
                for ours, theirs in zip(grads[1], grads[0]):
                    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", frameworks())
def test_resize_family(name):
    L = framework(name)
    x = L.arange(4.0)
    assert x.resize_(2, 2) is x and x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert x.resize_(3).tolist() == [0.0, 1.0, 2.0]
    assert L.zeros(2).resize_as_(L.ones(1, 3)).shape == (1, 3)
    with pytest.raises(RuntimeError, match="require grad"):
        L.ones(2, requires_grad=True).resize_(3)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        assert L.ones(2, 3).resize(3, 2).shape == (3, 2)
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="requested resize"):
        L.ones(2, 3).resize(4)


def test_resize_of_a_tensor_with_views_is_refused_not_silently_detached():
    x = mt.arange(4.0)
    _ = x[:2]
    view = x[:2]
    with pytest.raises(RuntimeError, match="views"):
        view.resize_(3)
    assert view.resize_(2) is view  # the same size is no change


@pytest.mark.parametrize("name", frameworks())
def test_legacy_attributes(name):
    L = framework(name)
    x = L.ones(2)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.raises(RuntimeError, match="reinforce"):
        x.reinforce(1.0)
    assert x.grad_dtype == L.float32
    subclass = type("Tagged", (L.Tensor,), {"__slots__": ()} if L is mt else {})
    tagged = L.ones(2, requires_grad=True).as_subclass(subclass)
    assert type(tagged) is subclass and tagged.requires_grad


def test_complex_conversions_refuse_clearly():
    torch = torch_or_skip()
    for name in ("cfloat", "cdouble", "chalf"):
        assert callable(getattr(torch.Tensor, name))
        with pytest.raises(TypeError, match="complex numbers are out of scope"):
            getattr(mt.ones(1), name)()


@pytest.mark.parametrize("activation", ["ReLU", "LeakyReLU"])
def test_batch_norm_then_an_in_place_activation_backpropagates_as_pytorch(activation):
    """ResNet's and DCGAN's BatchNorm2d -> ReLU(inplace=True): batch norm's gradient must not keep its output."""
    torch = torch_or_skip()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 2, 5, 5)).astype(np.float32)
    weight = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    grads = []
    for L in (torch, mt):
        conv, norm = L.nn.Conv2d(2, 3, 3), L.nn.BatchNorm2d(3)
        with L.no_grad():
            conv.weight.copy_(L.tensor(weight))
            conv.bias.zero_()
        act = getattr(L.nn, activation)(inplace=True)
        inputs = L.tensor(x, requires_grad=True)
        (act(norm(conv(inputs))) ** 2).sum().backward()
        grads.append((inputs.grad.numpy(), norm.weight.grad.numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-4, atol=1e-5)
