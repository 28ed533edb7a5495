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
