"""utils.data against PyTorch's torch.utils.data: the same batches, lengths, dtypes, structures and errors.

Random orders are not compared number for number (the generators differ); their properties are.
"""
import collections
import re
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils import data

torch = pytest.importorskip("torch")
tdata = torch.utils.data

Point = collections.namedtuple("Point", "x y")


def _plain(obj):
    """A batch from either library as plain Python values plus dtype names, for comparison."""
    if isinstance(obj, (mt.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype).split(".")[-1], list(obj.shape), obj.tolist())
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, [_plain(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v) for v in obj])
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.tolist())
    return obj


SAMPLES = {
    "ints and floats": [(i, i / 2, i % 2 == 0) for i in range(7)],
    "arrays": [np.arange(3, dtype=np.float32) + i for i in range(7)],
    "int64 arrays and strings": [{"a": np.array([i, -i]), "name": f"n{i}"} for i in range(7)],
    "namedtuples": [Point(np.float64(i), [i, i + 1]) for i in range(7)],
    "numpy scalars": [np.int32(i) for i in range(7)],
}


class _ListDataset:
    def __init__(self, samples, module):
        self.samples = samples

    def __getitem__(self, i):
        return self.samples[i]

    def __len__(self):
        return len(self.samples)


def _both(make):
    return make(data, mt), make(tdata, torch)


@pytest.mark.parametrize("samples", SAMPLES.values(), ids=SAMPLES.keys())
@pytest.mark.parametrize("options", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
                                     dict(batch_size=2, collate_fn=lambda batch: batch)],
                         ids=lambda options: re.sub(r" at 0x[0-9a-f]+", "", str(options)))  # alike in every process
def test_batches_match_torch(samples, options):
    ours, theirs = _both(lambda module, lib: module.DataLoader(_ListDataset(samples, lib), **options))
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]
    assert len(ours) == len(theirs)


def test_tensor_dataset_and_batch_sampler_match_torch():
    x = np.arange(24, dtype=np.float32).reshape(12, 2)
    y = np.arange(12)
    ours = data.DataLoader(data.TensorDataset(mt.tensor(x), mt.tensor(y)),
                           batch_sampler=data.BatchSampler(data.SequentialSampler(range(12)), 5, drop_last=False))
    theirs = tdata.DataLoader(tdata.TensorDataset(torch.tensor(x), torch.tensor(y)),
                              batch_sampler=tdata.BatchSampler(tdata.SequentialSampler(range(12)), 5, drop_last=False))
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]
    assert ours.uses_array_batching


@pytest.mark.parametrize("samples", [SAMPLES["arrays"], SAMPLES["int64 arrays and strings"], SAMPLES["namedtuples"],
                                     7, "text", {"k": np.float32(2.5)}, (np.ones(2), "a")], ids=repr)
def test_default_convert_matches_torch(samples):
    assert _plain(data.default_convert(samples)) == _plain(tdata.default_convert(samples))


class _Stream:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def _stream(module, n):
    return type("Stream", (_Stream, module.IterableDataset), {})(n)


@pytest.mark.parametrize("options", [dict(batch_size=4), dict(batch_size=4, drop_last=True), dict(batch_size=None)],
                         ids=str)
def test_iterable_datasets_match_torch(options):
    ours, theirs = _both(lambda module, lib: module.DataLoader(_stream(module, 10), **options))
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]
    assert len(ours) == len(theirs)
    chained = [list(module.ChainDataset([_stream(module, 2), _stream(module, 3)])) for module in (data, tdata)]
    assert chained[0] == chained[1] and len(_stream(data, 2) + _stream(data, 3)) == 5


def _errors(make):
    """The exception type and message each library raises for make(module, lib)."""
    found = []
    for module, lib in ((data, mt), (tdata, torch)):
        with pytest.raises(Exception) as caught:
            make(module, lib)
        found.append((type(caught.value), str(caught.value)))
    return found


DS = list(range(10))
ERROR_CASES = {
    "sampler and shuffle": lambda m, lib: m.DataLoader(DS, sampler=m.SequentialSampler(DS), shuffle=True),
    "batch_sampler and batch_size": lambda m, lib: m.DataLoader(DS, batch_size=3,
                                                                 batch_sampler=m.BatchSampler(DS, 2, False)),
    "batch_size None and drop_last": lambda m, lib: m.DataLoader(DS, batch_size=None, drop_last=True),
    "negative workers": lambda m, lib: m.DataLoader(DS, num_workers=-1),
    "negative timeout": lambda m, lib: m.DataLoader(DS, timeout=-1),
    "prefetch without workers": lambda m, lib: m.DataLoader(DS, prefetch_factor=2),
    "persistent without workers": lambda m, lib: m.DataLoader(DS, persistent_workers=True),
    "context without workers": lambda m, lib: m.DataLoader(DS, multiprocessing_context="spawn"),
    "unknown start method": lambda m, lib: m.DataLoader(DS, num_workers=1, multiprocessing_context="teleport"),
    "zero batch size": lambda m, lib: m.DataLoader(DS, batch_size=0),
    "iterable and shuffle": lambda m, lib: m.DataLoader(_stream(m, 3), shuffle=True),
    "iterable and sampler": lambda m, lib: m.DataLoader(_stream(m, 3), sampler=[0, 1]),
    "set batch_size later": lambda m, lib: setattr(m.DataLoader(DS), "batch_size", 4),
    "batch sampler drop_last not bool": lambda m, lib: m.BatchSampler(DS, 2, drop_last=1),
    "random sampler replacement not bool": lambda m, lib: m.RandomSampler(DS, replacement=1),
    "random sampler empty": lambda m, lib: m.RandomSampler([]),
    "random sampler num_samples": lambda m, lib: m.RandomSampler(DS, num_samples=0),
    "weighted 2-d weights": lambda m, lib: m.WeightedRandomSampler([[1.0, 2.0]], 2),
    "weighted num_samples": lambda m, lib: m.WeightedRandomSampler([1.0, 2.0], 0),
    "stack size mismatch": lambda m, lib: m.StackDataset(DS, DS[:3]),
    "stack both kinds": lambda m, lib: m.StackDataset(DS, b=DS),
    "concat nothing": lambda m, lib: m.ConcatDataset([]),
    "concat iterable": lambda m, lib: m.ConcatDataset([_stream(m, 2)]),
    "concat index": lambda m, lib: m.ConcatDataset([DS])[-11],
    "split fractions": lambda m, lib: m.random_split(DS, [0.5, 1.5, -1.0]),
    "split lengths": lambda m, lib: m.random_split(DS, [3, 3]),
}


@pytest.mark.parametrize("make", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_errors_match_torch(make):
    (ours_type, ours_message), (theirs_type, theirs_message) = _errors(make)
    assert ours_type is theirs_type
    squeeze = lambda text: "".join(text.split())  # noqa: E731 (PyTorch's messages sometimes lack a space)
    assert squeeze(ours_message).startswith(squeeze(theirs_message)[:40]), (ours_message, theirs_message)


def test_weighted_sampler_errors_at_draw_match_torch():
    for weights in ([1.0, -1.0], [0.0, 0.0], [np.nan, 1.0], [np.inf, 1.0]):
        raised = []
        for module in (data, tdata):
            with pytest.raises(RuntimeError) as caught:
                list(module.WeightedRandomSampler(weights, 2))
            raised.append(str(caught.value))
        assert raised[0] == raised[1]
    # Without replacement, zero weights are drawn once the positive ones are used up (PyTorch does the same).
    for module in (data, tdata):
        drawn = list(module.WeightedRandomSampler([0.0, 2.0, 0.0, 1.0], 3, replacement=False))
        assert sorted(drawn[:2]) == [1, 3] and drawn[2] in (0, 2)


def test_lengths_of_samplers_and_loaders_match_torch():
    for make in (lambda m: m.RandomSampler(DS, replacement=True, num_samples=25),
                 lambda m: m.RandomSampler(DS, num_samples=23),
                 lambda m: m.SubsetRandomSampler([1, 5, 7]),
                 lambda m: m.WeightedRandomSampler([1.0] * 4, 9),
                 lambda m: m.BatchSampler(m.SequentialSampler(DS), 4, drop_last=True),
                 lambda m: m.DataLoader(DS, batch_size=4, sampler=m.SubsetRandomSampler([1, 2, 3, 4, 5])),
                 lambda m: m.DistributedSampler(DS, num_replicas=3, rank=1)):
        ours, theirs = make(data), make(tdata)
        assert len(ours) == len(theirs)
        if not isinstance(ours, data.DataLoader):
            assert len(list(ours)) == len(list(theirs))


def test_random_sampler_without_replacement_repeats_whole_permutations_like_torch():
    for module in (data, tdata):
        order = list(module.RandomSampler(range(4), num_samples=10))
        assert sorted(order[:4]) == sorted(order[4:8]) == [0, 1, 2, 3] and len(set(order[8:])) == 2


def test_datasets_match_torch():
    for module in (data, tdata):
        concat = module.ConcatDataset([range(3), range(10, 14)])
        assert (len(concat), concat[3], concat[-1], concat.cumulative_sizes) == (7, 10, 13, [3, 7])
        stacked = module.StackDataset(range(5), "abcde")
        assert stacked[2] == (2, "c") and stacked.__getitems__([4, 1]) == [(4, "e"), (1, "b")]
        named = module.StackDataset(i=range(5), s="abcde")
        assert named[0] == {"i": 0, "s": "a"} and named.__getitems__([1]) == [{"i": 1, "s": "b"}]
        subset = module.Subset(range(10, 20), [9, 0, 4])
        assert subset[0] == 19 and subset.__getitems__([2, 1]) == [14, 10] and len(subset) == 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lengths = [[len(s) for s in module.random_split(range(3), [0.1, 0.1, 0.8]) ] for module in (data, tdata)]
    assert lengths[0] == lengths[1] == [1, 0, 2]
    assert [str(w.message) for w in caught if "Length of split" in str(w.message)][0].startswith(
        "Length of split at index 1 is 0")


def test_adding_datasets_concatenates_or_chains_like_torch():
    class Squares(data.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i * i

    both = Squares() + Squares()
    assert isinstance(both, data.ConcatDataset) and [both[i] for i in range(6)] == [0, 1, 4, 0, 1, 4]
    assert isinstance(_stream(data, 2) + _stream(data, 1), data.ChainDataset)


def test_get_worker_info_is_none_in_the_main_process_like_torch():
    assert data.get_worker_info() is None and tdata.get_worker_info() is None
