"""DistributedSampler: disjoint shards covering the data set, PyTorch's padding and drop_last, DataLoader(sampler=)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import minitorch as mt
from minitorch.utils.data import DataLoader, DistributedSampler, TensorDataset


def shards(n, replicas, **options):
    return [list(DistributedSampler(range(n), num_replicas=replicas, rank=r, **options)) for r in range(replicas)]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), replicas=st.integers(1, 6), shuffle=st.booleans(), drop_last=st.booleans(),
       seed=st.integers(0, 5), epoch=st.integers(0, 3))
def test_shards_are_equal_sized_disjoint_and_cover_the_data_set(n, replicas, shuffle, drop_last, seed, epoch):
    parts = []
    for r in range(replicas):
        sampler = DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=shuffle, seed=seed, drop_last=drop_last)
        sampler.set_epoch(epoch)
        parts.append(list(sampler))
        assert len(parts[-1]) == len(sampler)
    sizes = {len(p) for p in parts}
    assert len(sizes) == 1
    everything = [i for p in parts for i in p]
    if drop_last:
        assert len(everything) == len(set(everything)) == (n // replicas) * replicas  # disjoint, nothing padded
    else:
        assert set(everything) == set(range(n))  # covered
        assert len(everything) - n == (-n) % replicas  # only the padding repeats
        assert len(everything) == len(set(everything)) + (-n) % replicas


def test_padding_and_drop_last_follow_pytorch():
    torch = pytest.importorskip("torch")
    for n in [1, 2, 5, 7, 10]:
        for replicas in [2, 3, 4]:
            for drop_last in [False, True]:
                theirs = [list(torch.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=r, shuffle=False, drop_last=drop_last))
                          for r in range(replicas)]
                assert shards(n, replicas, shuffle=False, drop_last=drop_last) == theirs, (n, replicas, drop_last)


def test_shuffling_depends_on_seed_and_epoch_only():
    first = shards(20, 2, seed=3)
    assert first == shards(20, 2, seed=3)
    assert first != shards(20, 2, seed=4)
    sampler = DistributedSampler(range(20), num_replicas=2, rank=0, seed=3)
    sampler.set_epoch(1)
    assert list(sampler) != first[0]
    assert sorted(first[0] + first[1]) == list(range(20))


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="num_replicas should be a positive integer, got 0"):
        DistributedSampler(range(4), num_replicas=0, rank=0)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))  # num_replicas from the process group, which is not there


def test_data_loader_batches_the_sampler_s_indices():
    ds = TensorDataset(mt.arange(10.0).reshape(5, 2), mt.arange(5))
    sampler = DistributedSampler(ds, num_replicas=2, rank=1, shuffle=False)
    loader = DataLoader(ds, batch_size=2, sampler=sampler)
    assert len(loader) == 2
    assert [y.tolist() for _, y in loader] == [[1, 3], [0]]
    assert [y.tolist() for _, y in DataLoader(ds, batch_size=2, sampler=sampler, drop_last=True)] == [[1, 3]]
    assert [y.tolist() for y in DataLoader(list(range(5)), batch_size=3, sampler=sampler)] == [[1, 3, 0]]
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=sampler, shuffle=True)
