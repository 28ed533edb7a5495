"""Tests for minitorch.utils.data: DataLoader semantics, the array fast path and default_collate."""

from collections import namedtuple

import numpy as np
import pytest

import minitorch as mt
from minitorch.utils.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)


def make_tensor_dataset(n=10):
    images = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    labels = np.arange(n, dtype=np.int64)
    return TensorDataset(mt.from_numpy(images), mt.from_numpy(labels))


class CountingTensorDataset(TensorDataset):
    """A TensorDataset that counts __getitem__ calls, to prove the fast path skips them."""

    def __init__(self, *tensors):
        super().__init__(*tensors)
        self.getitem_calls = 0

    def __getitem__(self, index):
        self.getitem_calls += 1
        return super().__getitem__(index)


class ListDataset(Dataset):
    """A plain map-style dataset over a Python list (no arrays() protocol)."""

    def __init__(self, samples):
        self.samples = samples

    def __getitem__(self, index):
        return self.samples[index]

    def __len__(self):
        return len(self.samples)


def labels_of(loader):
    return [batch[1].numpy().tolist() for batch in loader]


# -- epoch semantics -----------------------------------------------------------


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("fast", [True, False])
def test_every_sample_once_per_epoch(shuffle, fast):
    loader = DataLoader(make_tensor_dataset(10), batch_size=3, shuffle=shuffle, seed=0,
                        collate_fn=None if fast else default_collate)
    assert loader.uses_array_batching is fast
    for _ in range(3):
        seen = sorted(x for batch in labels_of(loader) for x in batch)
        assert seen == list(range(10))


def test_short_last_batch_and_len():
    loader = DataLoader(make_tensor_dataset(10), batch_size=3)
    assert len(loader) == 4
    assert [len(b) for b in labels_of(loader)] == [3, 3, 3, 1]
    assert labels_of(loader) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]


def test_drop_last():
    loader = DataLoader(make_tensor_dataset(10), batch_size=3, drop_last=True)
    assert len(loader) == 3
    assert [len(b) for b in labels_of(loader)] == [3, 3, 3]
    exact = DataLoader(make_tensor_dataset(9), batch_size=3, drop_last=True)
    assert len(exact) == 3 and len(labels_of(exact)) == 3


def test_default_batch_size_is_one():
    loader = DataLoader(make_tensor_dataset(4))
    assert len(loader) == 4
    x, y = next(iter(loader))
    assert tuple(x.shape) == (1, 2) and tuple(y.shape) == (1,)


def test_shuffle_reshuffles_every_epoch_and_is_reproducible():
    loader = DataLoader(make_tensor_dataset(50), batch_size=50, shuffle=True, seed=123)
    epochs = [labels_of(loader)[0] for _ in range(3)]
    assert epochs[0] != epochs[1] != epochs[2]
    assert all(sorted(e) == list(range(50)) for e in epochs)
    again = DataLoader(make_tensor_dataset(50), batch_size=50, shuffle=True, seed=123)
    assert [labels_of(again)[0] for _ in range(3)] == epochs
    as_int_generator = DataLoader(make_tensor_dataset(50), batch_size=50, shuffle=True, generator=123)
    assert labels_of(as_int_generator)[0] == epochs[0]
    as_numpy_generator = DataLoader(make_tensor_dataset(50), batch_size=50, shuffle=True,
                                    generator=np.random.default_rng(123))
    assert labels_of(as_numpy_generator)[0] == epochs[0]
    other_seed = DataLoader(make_tensor_dataset(50), batch_size=50, shuffle=True, seed=124)
    assert labels_of(other_seed)[0] != epochs[0]


def test_fast_and_slow_paths_shuffle_identically():
    fast = DataLoader(make_tensor_dataset(20), batch_size=6, shuffle=True, seed=7)
    slow = DataLoader(make_tensor_dataset(20), batch_size=6, shuffle=True, seed=7, collate_fn=default_collate)
    for fast_batch, slow_batch in zip(fast, slow, strict=True):
        for a, b in zip(fast_batch, slow_batch, strict=True):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert a.dtype == b.dtype


def test_no_shuffle_keeps_order():
    assert labels_of(DataLoader(make_tensor_dataset(7), batch_size=4)) == [[0, 1, 2, 3], [4, 5, 6]]


def test_bad_arguments():
    ds = make_tensor_dataset(4)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="batch_size"):
            DataLoader(ds, batch_size=bad)
    with pytest.raises(ValueError, match="generator or seed"):
        DataLoader(ds, generator=1, seed=1)
    with pytest.raises(TypeError, match="generator"):
        DataLoader(ds, generator="abc")


# -- the array fast path ---------------------------------------------------------


def test_fast_path_never_calls_getitem():
    ds = CountingTensorDataset(mt.from_numpy(np.zeros((25, 1, 4, 4), np.float32)),
                               mt.from_numpy(np.arange(25, dtype=np.int64)))
    loader = DataLoader(ds, batch_size=8, shuffle=True, seed=0)
    assert loader.uses_array_batching
    batches = list(loader)
    assert ds.getitem_calls == 0
    assert [tuple(b[0].shape) for b in batches] == [(8, 1, 4, 4)] * 3 + [(1, 1, 4, 4)]


def test_fast_path_indexes_each_field_once_per_batch():
    calls = []

    class RecordingArray(np.ndarray):
        def __getitem__(self, index):
            calls.append(index)
            return np.asarray(self).__getitem__(index)

    class ArrayDataset(Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, index):  # pragma: no cover - must not be used
            raise AssertionError("fast path must not call __getitem__")

        def arrays(self):
            return (np.arange(10, dtype=np.float32).view(RecordingArray),)

    loader = DataLoader(ArrayDataset(), batch_size=4)
    batches = list(loader)
    assert len(batches) == 3 and len(calls) == 3
    assert all(isinstance(index, np.ndarray) for index in calls)


def test_fast_path_batches_are_tensors_with_dataset_dtypes():
    x, y = next(iter(DataLoader(make_tensor_dataset(6), batch_size=4)))
    assert isinstance(x, mt.Tensor) and isinstance(y, mt.Tensor)
    assert x.dtype == mt.float32 and y.dtype == mt.int64
    np.testing.assert_array_equal(x.numpy(), np.arange(8, dtype=np.float32).reshape(4, 2))


def test_fast_path_batch_is_a_copy():
    data = np.zeros((4, 2), np.float32)
    loader = DataLoader(TensorDataset(mt.from_numpy(data)), batch_size=4)
    (batch,) = next(iter(loader))
    batch.numpy()[...] = 5
    assert (data == 0).all()


def test_transform_forces_the_per_sample_path():
    class TransformedDataset(CountingTensorDataset):
        transform = staticmethod(lambda sample: sample)

    ds = TransformedDataset(mt.from_numpy(np.zeros((5, 2), np.float32)))
    loader = DataLoader(ds, batch_size=2)
    assert not loader.uses_array_batching
    assert len(list(loader)) == 3 and ds.getitem_calls == 5


def test_arrays_with_wrong_length_is_a_clear_error():
    class Broken(ListDataset):
        def arrays(self):
            return (np.zeros(3),)

    with pytest.raises(ValueError, match=r"arrays\(\) returned a field of shape \(3,\)"):
        list(DataLoader(Broken([0] * 5), batch_size=2))


# -- default_collate and the per-sample path -----------------------------------------


def test_collate_numbers_and_tuples():
    loader = DataLoader(ListDataset([(i, float(i) / 2, f"s{i}") for i in range(5)]), batch_size=2)
    assert not loader.uses_array_batching
    batches = list(loader)
    assert len(batches) == 3
    ints, floats, strings = batches[0]
    assert ints.dtype == mt.int64 and ints.numpy().tolist() == [0, 1]
    assert floats.dtype == mt.float64 and floats.numpy().tolist() == [0.0, 0.5]  # PyTorch gives float64 too
    assert strings == ["s0", "s1"]
    assert batches[-1][0].numpy().tolist() == [4]


def test_collate_dicts_nested_and_arrays():
    samples = [{"image": np.full((2, 2), i, np.float32), "meta": {"label": i, "flag": i % 2 == 0}}
               for i in range(4)]
    batch = next(iter(DataLoader(ListDataset(samples), batch_size=3)))
    assert set(batch) == {"image", "meta"}
    assert tuple(batch["image"].shape) == (3, 2, 2) and batch["image"].dtype == mt.float32
    assert batch["meta"]["label"].numpy().tolist() == [0, 1, 2]
    assert batch["meta"]["flag"].numpy().tolist() == [True, False, True]


def test_collate_tensors_and_namedtuples():
    Pair = namedtuple("Pair", "x y")
    samples = [Pair(mt.from_numpy(np.full(3, i, np.float32)), i) for i in range(3)]
    batch = default_collate(samples)
    assert isinstance(batch, Pair)
    assert tuple(batch.x.shape) == (3, 3) and batch.y.numpy().tolist() == [0, 1, 2]


def test_collate_uneven_sequences_fail():
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([(1, 2), (3,)])
    with pytest.raises(TypeError, match="cannot batch"):
        default_collate([object(), object()])


def test_custom_collate_fn_gets_the_list_of_samples():
    seen = []
    loader = DataLoader(make_tensor_dataset(5), batch_size=2, collate_fn=lambda s: seen.append(len(s)) or len(s))
    assert not loader.uses_array_batching
    assert list(loader) == [2, 2, 1] and seen == [2, 2, 1]


# -- TensorDataset, Subset, random_split -------------------------------------------------


def test_tensor_dataset_items_and_size_check():
    ds = make_tensor_dataset(3)
    assert len(ds) == 3
    x, y = ds[1]
    np.testing.assert_array_equal(np.asarray(x.numpy()), [2.0, 3.0])
    assert int(y.item()) == 1
    with pytest.raises(ValueError, match=r"size mismatch.*\(3, 2\), \(4,\)"):
        TensorDataset(mt.from_numpy(np.zeros((3, 2))), mt.from_numpy(np.zeros(4)))


def test_random_split_and_subset_use_fast_path():
    base = CountingTensorDataset(mt.from_numpy(np.arange(10, dtype=np.float32)),
                                 mt.from_numpy(np.arange(10, dtype=np.int64)))
    train, val = random_split(base, [0.7, 0.3], generator=0)
    assert (len(train), len(val)) == (7, 3)
    assert sorted(np.concatenate([train.indices, val.indices]).tolist()) == list(range(10))
    loader = DataLoader(train, batch_size=4)
    assert loader.uses_array_batching
    got = [y for batch in labels_of(loader) for y in batch]
    assert got == train.indices and base.getitem_calls == 0
    assert int(val[0][1].item()) == int(val.indices[0])
    with pytest.raises(ValueError, match="sum to"):
        random_split(base, [3, 3])
    assert isinstance(Subset(base, [1, 2]), Dataset)


def test_unseeded_shuffle_follows_manual_seed():
    mt.manual_seed(42)
    first = labels_of(DataLoader(make_tensor_dataset(30), batch_size=30, shuffle=True))
    mt.manual_seed(42)
    second = labels_of(DataLoader(make_tensor_dataset(30), batch_size=30, shuffle=True))
    assert first == second and sorted(first[0]) == list(range(30))


def test_tensors_that_require_grad_batch_without_graph():
    weights = mt.from_numpy(np.arange(6, dtype=np.float32).reshape(3, 2)).requires_grad_()
    for fast in (True, False):
        loader = DataLoader(TensorDataset(weights), batch_size=2, collate_fn=None if fast else default_collate)
        (batch,) = next(iter(loader))
        assert not batch.requires_grad
        np.testing.assert_array_equal(batch.numpy(), [[0, 1], [2, 3]])


def test_subset_of_plain_or_transformed_dataset_uses_per_sample_path():
    plain = Subset(ListDataset([(i, i * 2) for i in range(6)]), [5, 0, 3])
    loader = DataLoader(plain, batch_size=2)
    assert not loader.uses_array_batching
    assert [b[1].numpy().tolist() for b in loader] == [[10, 0], [6]]

    class TransformedDataset(CountingTensorDataset):
        transform = staticmethod(lambda sample: sample)

    transformed = TransformedDataset(mt.from_numpy(np.arange(4, dtype=np.float32)))
    loader = DataLoader(Subset(transformed, [1, 2]), batch_size=2)
    assert not loader.uses_array_batching
    assert next(iter(loader))[0].numpy().tolist() == [1.0, 2.0] and transformed.getitem_calls == 2


# -- samplers, generators, the new data set types ---------------------------------------


class _GeneratorLike:
    """What mt.Generator exposes to the data pipeline: a numpy Generator in `.numpy`."""

    def __init__(self, seed):
        self.numpy = np.random.default_rng(seed)


@pytest.mark.parametrize("make", [lambda: 7, lambda: np.random.default_rng(7), lambda: _GeneratorLike(7)],
                         ids=["int", "numpy", "minitorch-style"])
def test_every_kind_of_generator_gives_the_same_reproducible_orders(make):
    from minitorch.utils.data import RandomSampler
    expected = labels_of(DataLoader(make_tensor_dataset(20), batch_size=20, shuffle=True, generator=7))
    loader = DataLoader(make_tensor_dataset(20), batch_size=20, shuffle=True, generator=make())
    assert labels_of(loader) == expected
    first, second = list(RandomSampler(range(9), generator=make())), list(RandomSampler(range(9), generator=make()))
    assert first == second and sorted(first) == list(range(9))
    parts = random_split(make_tensor_dataset(10), [4, 6], generator=make())
    again = random_split(make_tensor_dataset(10), [4, 6], generator=make())
    assert [p.indices for p in parts] == [p.indices for p in again]
    assert sorted(np.concatenate([p.indices for p in parts]).tolist()) == list(range(10))


def test_random_sampler_with_replacement_and_more_samples_than_data():
    from minitorch.utils.data import RandomSampler
    drawn = np.array(list(RandomSampler(range(4), replacement=True, num_samples=4000, generator=0)))
    counts = np.bincount(drawn, minlength=4)
    assert len(drawn) == 4000 and counts.min() > 850  # uniform, about 1000 each
    cycled = list(RandomSampler(range(4), num_samples=10, generator=0))
    assert sorted(cycled[:4]) == sorted(cycled[4:8]) == [0, 1, 2, 3] and len(set(cycled[8:])) == 2


def test_weighted_random_sampler_draws_in_proportion():
    from minitorch.utils.data import WeightedRandomSampler
    drawn = np.array(list(WeightedRandomSampler([1.0, 2.0, 0.0, 5.0], 8000, generator=1)))
    frequencies = np.bincount(drawn, minlength=4) / 8000
    np.testing.assert_allclose(frequencies, [1 / 8, 2 / 8, 0, 5 / 8], atol=0.02)
    without = list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False, generator=1))
    assert sorted(without) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        list(WeightedRandomSampler([0.0, 0.0], 2))


def test_subset_random_sampler_permutes_any_keys_every_epoch():
    from minitorch.utils.data import SubsetRandomSampler
    sampler = SubsetRandomSampler(["a", "b", "c", "d", "e"], generator=3)
    epochs = [list(sampler) for _ in range(4)]
    assert all(sorted(e) == ["a", "b", "c", "d", "e"] for e in epochs) and len({tuple(e) for e in epochs}) > 1
    keyed = {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}
    loader = DataLoader(keyed, batch_size=2, sampler=sampler)
    assert sorted(x for batch in loader for x in batch.tolist()) == [1, 2, 3, 4, 5]


def test_batch_sampler_as_loader_argument_and_its_errors():
    from minitorch.utils.data import BatchSampler, SequentialSampler
    batches = BatchSampler(SequentialSampler(range(10)), 4, drop_last=False)
    assert list(batches) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(batches) == 3
    loader = DataLoader(make_tensor_dataset(10), batch_sampler=batches)
    assert labels_of(loader) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(loader) == 3
    assert loader.batch_size is None and loader.uses_array_batching
    uneven = [[3], [0, 9, 1], [5, 5]]  # any iterable of index lists will do
    assert labels_of(DataLoader(make_tensor_dataset(10), batch_sampler=uneven)) == uneven
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        BatchSampler(range(3), 0, False)


def test_batch_size_none_turns_batching_off():
    from minitorch.utils.data import default_convert
    loader = DataLoader(ListDataset([(np.float32(i), f"s{i}") for i in range(3)]), batch_size=None)
    assert loader.collate_fn is default_convert and len(loader) == 3
    items = list(loader)
    assert [x[1] for x in items] == ["s0", "s1", "s2"] and items[2][0].shape == () and items[2][0].item() == 2.0


def test_loader_attributes_follow_pytorch():
    from minitorch.utils.data import BatchSampler, RandomSampler, SequentialSampler
    loader = DataLoader(make_tensor_dataset(6), batch_size=4, shuffle=True, generator=3)
    assert isinstance(loader.sampler, RandomSampler) and isinstance(loader.batch_sampler, BatchSampler)
    assert loader.collate_fn is default_collate and loader.num_workers == 0 and loader.prefetch_factor is None
    assert isinstance(DataLoader(make_tensor_dataset(6)).sampler, SequentialSampler)
    assert DataLoader(make_tensor_dataset(6), num_workers=2).prefetch_factor == 2
    with pytest.raises(ValueError, match="drop_last attribute should not be set after DataLoader is initialized"):
        loader.drop_last = True
    loader.num_workers = 0  # not one of the fixed ones, as in PyTorch
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        assert labels_of(DataLoader(make_tensor_dataset(3), batch_size=3, pin_memory=True)) == [[0, 1, 2]]


def test_concat_chain_and_stack_datasets_through_the_loader():
    from minitorch.utils.data import ChainDataset, ConcatDataset, IterableDataset, StackDataset

    class Count(IterableDataset):
        def __init__(self, start, stop):
            self.start, self.stop = start, stop

        def __iter__(self):
            return iter(range(self.start, self.stop))

    both = ConcatDataset([make_tensor_dataset(3), make_tensor_dataset(2)])
    assert labels_of(DataLoader(both, batch_size=4)) == [[0, 1, 2, 0], [1]]
    chained = DataLoader(ChainDataset([Count(0, 3), Count(10, 12)]), batch_size=2)
    assert [b.tolist() for b in chained] == [[0, 1], [2, 10], [11]]
    with pytest.raises(TypeError):
        len(chained)  # a stream without a length, as in PyTorch
    stacked = DataLoader(StackDataset(image=make_tensor_dataset(4), index=range(4)), batch_size=3)
    first = next(iter(stacked))
    assert first["index"].tolist() == [0, 1, 2] and first["image"][1].tolist() == [0, 1, 2]
