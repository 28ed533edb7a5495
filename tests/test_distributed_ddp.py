"""DistributedDataParallel, SyncBatchNorm and DistributedSampler under mpiexec.

Parity: k steps of an N-rank run, each rank with its B/N share of every batch,
give the weights of one process trained on the whole batches. Every rank also
trains that one-process reference itself (it needs no communication), so
each rank checks parity on its own.
"""
import copy
import doctest
import gc
import os

import numpy as np
import pytest

import minitorch as mt
import minitorch.distributed as dist
import minitorch.nn.functional as F
from distributed_launcher import check, launch, run_worker
from minitorch.nn.parallel import DistributedDataParallel as DDP

# Jobs of several processes under mpiexec: long-running checks (pyproject.toml: markers), run by -m slow and CI.
pytestmark = pytest.mark.slow

GLOBAL_BATCH = 12  # divides by 2 and 3
STEPS = 3


def mlp():
    return mt.nn.Sequential(mt.nn.Linear(10, 16), mt.nn.ReLU(), mt.nn.Linear(16, 8), mt.nn.ReLU(), mt.nn.Linear(8, 4))


def cnn():
    return mt.nn.Sequential(mt.nn.Conv2d(1, 4, 3, padding=1), mt.nn.ReLU(), mt.nn.MaxPool2d(2), mt.nn.Conv2d(4, 6, 3),
                            mt.nn.ReLU(), mt.nn.Flatten(), mt.nn.Linear(6 * 2 * 2, 4))


def cnn_with_batchnorm():
    return mt.nn.Sequential(mt.nn.Conv2d(1, 4, 3), mt.nn.BatchNorm2d(4), mt.nn.ReLU(), mt.nn.Flatten(),
                            mt.nn.Linear(4 * 4 * 4, 4))


MODELS = {"mlp": (mlp, (10,)), "cnn": (cnn, (1, 8, 8)), "syncbn": (cnn_with_batchnorm, (1, 6, 6))}


def batches(sample_shape, steps=STEPS, size=GLOBAL_BATCH, seed=0):
    rng = np.random.default_rng(seed)
    return [(mt.tensor(rng.normal(size=(size,) + sample_shape).astype(np.float32)), mt.tensor(rng.integers(0, 4, size)))
            for _ in range(steps)]


def my_share(batch):
    rank, size = dist.get_rank(), dist.get_world_size()
    n = len(batch[1]) // size
    return batch[0][rank * n:(rank + 1) * n], batch[1][rank * n:(rank + 1) * n]


def replicas(make):
    """The one-process reference and this rank's model: equal on rank 0, initialised differently elsewhere."""
    mt.manual_seed(0)
    reference = make()
    mt.manual_seed(0 if dist.get_rank() == 0 else 100 + dist.get_rank())
    return reference, make()


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()


def assert_same_state(reference, model, rtol=1e-5, atol=1e-6):
    for (name, expected), actual in zip(reference.state_dict().items(), model.state_dict().values()):
        np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=rtol,
                                   atol=atol, err_msg=f"{name} on rank {dist.get_rank()}")


# ----- workers -----

def worker_parity(kind, bucket_cap_mb):
    make, sample_shape = MODELS[kind]
    reference, model = replicas(make)
    if kind == "syncbn":
        model = mt.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    ddp = DDP(model, bucket_cap_mb=None if bucket_cap_mb == "default" else float(bucket_cap_mb))
    assert_same_state(reference, model, rtol=0, atol=0)  # rank 0's weights everywhere
    ref_opt = mt.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    opt = mt.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    for x, y in batches(sample_shape):
        train_step(reference, ref_opt, x, y)
        train_step(ddp, opt, *my_share((x, y)))
        for p, q in zip(reference.parameters(), model.parameters()):
            np.testing.assert_allclose(np.asarray(q.grad), np.asarray(p.grad), rtol=1e-5, atol=1e-7)
    assert_same_state(reference, model)
    print(f"rank {dist.get_rank()}: {kind} parity with {len(ddp.reducer.buckets)} buckets", flush=True)


def worker_overlap_and_sampler():
    """Buckets start during backward, as soon as their gradients are ready; the sampler shards the data."""
    model = mlp()
    launched = []  # when the first layer's weight gradient (the last one backward finishes) is ready
    model[0].weight.register_post_accumulate_grad_hook(lambda p: launched.append(ddp.reducer.next_bucket))
    ddp = DDP(model, bucket_cap_mb=1e-4)  # ~100 bytes: one bucket per layer or so; its hooks run after ours
    buckets = ddp.reducer.buckets
    assert len(buckets) >= 3 and buckets[0].indices[0] == len(list(model.parameters())) - 1
    F.cross_entropy(ddp(mt.randn(4, 10)), mt.tensor([0, 1, 2, 3])).backward()
    # By then, every bucket but the one waiting for that gradient has started its all-reduce.
    assert launched == [len(buckets) - 1], (launched, len(buckets))

    # A backward pass that fails half-way (buckets in flight) leaves DDP usable for the next step.
    def fail(grad):
        raise ValueError("backward failed on purpose")

    def fail_in_backward(module, inputs, output):
        output.register_hook(fail)

    handle = model[1].register_forward_hook(fail_in_backward)
    try:
        F.cross_entropy(ddp(mt.randn(4, 10)), mt.tensor([0, 1, 2, 3])).backward()
    except ValueError:
        assert ddp.reducer.in_pass and ddp.reducer.next_bucket > 0
    handle.remove()
    reference = copy.deepcopy(model)
    x, y = mt.randn(4, 10) * (dist.get_rank() + 1), mt.tensor([0, 1, 2, 3])
    model.zero_grad()
    F.cross_entropy(ddp(x), y).backward()
    F.cross_entropy(reference(x), y).backward()
    for p, q in zip(reference.parameters(), model.parameters()):
        dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7)

    dataset = mt.utils.data.TensorDataset(mt.arange(23))
    sampler = mt.utils.data.DistributedSampler(dataset, shuffle=True, seed=5)
    sampler.set_epoch(2)
    loader = mt.utils.data.DataLoader(dataset, batch_size=4, sampler=sampler)
    mine = np.concatenate([batch[0].numpy() for batch in loader])
    everyone = [mt.zeros(len(mine), dtype=mt.int64) for _ in range(dist.get_world_size())]
    dist.all_gather(everyone, mt.from_numpy(mine))
    seen = np.concatenate([t.numpy() for t in everyone])
    assert sorted(set(seen.tolist())) == list(range(23)) and len(seen) == 24  # covered, one sample padded
    print(f"rank {dist.get_rank()}: overlap and sampler ok", flush=True)


def worker_no_sync_unused_and_tape():
    rank, size = dist.get_rank(), dist.get_world_size()
    # no_sync: two local micro-batches, then a synced one, equal one process accumulating the global micro-batches.
    reference, model = replicas(mlp)
    ddp = DDP(model)
    micro = batches((10,), steps=3, size=2 * size, seed=1)
    for i, (x, y) in enumerate(micro):
        F.cross_entropy(reference(x), y).backward()
        xs, ys = my_share((x, y))
        if i < 2:
            with ddp.no_sync():
                F.cross_entropy(ddp(xs), ys).backward()
            if i == 0:  # still local: each rank has the gradient of its own micro-batch
                local = [mt.zeros(16, 10) for _ in range(size)]
                dist.all_gather(local, model[0].weight.grad)
                assert not np.allclose(local[0].numpy(), local[1].numpy())
        else:
            F.cross_entropy(ddp(xs), ys).backward()
    for p, q in zip(reference.parameters(), model.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7)
    # A backward pass not after a forward through DDP (the bare module here) stays local, as in PyTorch.
    model.zero_grad()
    F.cross_entropy(model(xs), ys).backward()
    local = [mt.zeros(16, 10) for _ in range(size)]
    dist.all_gather(local, model[0].weight.grad)
    assert not np.allclose(local[0].numpy(), local[1].numpy())

    # find_unused_parameters: head "b" is used on the last rank only, head "c" nowhere.
    class Heads(mt.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c = mt.nn.Linear(3, 2), mt.nn.Linear(3, 2), mt.nn.Linear(3, 2)

        def forward(self, x, use_b):
            return self.a(x) + (self.b(x) if use_b else 0)

    mt.manual_seed(0)
    heads = Heads()
    ddp = DDP(heads, find_unused_parameters=True)
    x = mt.ones(1, 3) * (rank + 1)
    ddp(x, use_b=rank == size - 1).sum().backward()
    np.testing.assert_allclose(heads.a.weight.grad.numpy(), np.full((2, 3), np.mean(np.arange(1, size + 1))))
    np.testing.assert_allclose(heads.b.weight.grad.numpy(), np.full((2, 3), 1.0))  # the last rank's x (= size) / size
    assert heads.c.weight.grad is None and heads.c.bias.grad is None
    strict = DDP(Heads())
    try:
        strict(x, use_b=True).sum().backward()
    except RuntimeError as error:
        assert "parameters ['c.weight', 'c.bias'] got no gradient" in str(error) and "find_unused_parameters=True" in str(error)
    else:
        raise AssertionError("an unused parameter without find_unused_parameters should raise")

    # The GradientTape door gives what backward() gives.
    _, model = replicas(mlp)
    ddp = DDP(model)
    x, y = my_share(batches((10,), steps=1, seed=2)[0])
    F.cross_entropy(ddp(x), y).backward()
    with mt.GradientTape() as tape:
        loss = F.cross_entropy(ddp(x), y)
    params = list(ddp.parameters())
    grads = ddp.reduce_gradients(tape.gradient(loss, params))
    for p, g in zip(params, grads):
        np.testing.assert_allclose(g.numpy(), p.grad.numpy(), rtol=1e-6)
    try:
        ddp.reduce_gradients(grads[:-1] if rank == 0 else grads)
    except (ValueError, RuntimeError) as error:
        print(f"rank {rank} tape door: {type(error).__name__}: {error}", flush=True)
    print(f"rank {rank}: no_sync, unused parameters and tape door ok", flush=True)


def worker_checkpoint_and_buffers(directory):
    rank = dist.get_rank()
    _, model = replicas(cnn_with_batchnorm)
    ddp = DDP(model)
    opt = mt.optim.SGD(ddp.parameters(), lr=0.1)
    for x, y in batches((1, 6, 6), steps=2):
        train_step(ddp, opt, *my_share((x, y)))
    # Each rank's BatchNorm saw its own batch: running statistics differ...
    ranks_stats = [mt.zeros(4) for _ in range(dist.get_world_size())]
    dist.all_gather(ranks_stats, model[1].running_mean)
    assert not np.array_equal(ranks_stats[0].numpy(), ranks_stats[1].numpy())
    # ...until the next forward broadcasts rank 0's (eval mode: no update).
    ddp.eval()
    with mt.no_grad():
        ddp(batches((1, 6, 6), steps=1)[0][0])
    dist.all_gather(ranks_stats, model[1].running_mean)
    assert all(np.array_equal(s.numpy(), ranks_stats[0].numpy()) for s in ranks_stats)
    assert list(ddp.state_dict())[0] == "module.0.weight"

    path = os.path.join(directory, "model.safetensors")
    if rank == 0:
        mt.save(ddp.module.state_dict(), path)
        mt.save(ddp.state_dict(), path + ".ddp")
    dist.barrier()
    mt.manual_seed(999)
    fresh = cnn_with_batchnorm()
    fresh.load_state_dict(mt.load(path))
    assert_same_state(model, fresh, rtol=0, atol=0)
    again = DDP(cnn_with_batchnorm())
    again.load_state_dict(mt.load(path + ".ddp"))
    assert_same_state(ddp, again, rtol=0, atol=0)
    print(f"rank {rank}: checkpoint reloaded", flush=True)


def _post_accumulate_hooks(model):
    tables = [p._hooks.kinds.get("post_accumulate", {}) for p in model.parameters() if getattr(p, "_hooks", None)]
    return [fn for table in tables for fn in table.values()]


def worker_rewrapping_leaves_no_hooks():
    model = mlp()
    for _ in range(3):
        DDP(model)
    gc.collect()
    live = _post_accumulate_hooks(model)
    assert live == [], f"{len(live)} hooks of dropped DistributedDataParallel wrappers remain"
    ddp = DDP(model)
    assert len(_post_accumulate_hooks(model)) == 6
    F.cross_entropy(ddp(mt.randn(2, 10)), mt.tensor([0, 1])).backward()


def worker_model_mismatch():
    rank = dist.get_rank()
    try:
        DDP(mt.nn.Linear(3, 2 + rank))
    except RuntimeError as error:
        print(f"rank {rank}: {error}", flush=True)
    DDP(mt.nn.Linear(3, 2))  # the group is still usable


def worker_doctests():
    modules = [mt.nn.parallel.distributed, mt.nn.parallel.sync_batchnorm, mt.nn.parallel.reducer]
    for module in modules:
        mt.manual_seed(0)
        result = doctest.testmod(module, extraglobs={"mt": mt, "np": np, "F": F},
                                 optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, module.__name__


WORKERS = {name[len("worker_"):]: fn for name, fn in globals().items() if name.startswith("worker_")}


# ----- tests -----

@pytest.mark.parametrize("kind, nprocs, bucket_cap_mb", [
    ("mlp", 2, "0.0005"),     # several buckets
    ("cnn", 2, "default"),
    ("mlp", 3, "default"),
    ("syncbn", 2, "default"),
])
def test_ddp_matches_one_process_with_the_whole_batch(kind, nprocs, bucket_cap_mb):
    out = check(launch(__file__, "parity", nprocs, kind, bucket_cap_mb))
    assert all(f"rank {r}: {kind} parity" in out for r in range(nprocs))


def test_buckets_start_during_backward_and_the_sampler_covers_the_data():
    out = check(launch(__file__, "overlap_and_sampler", 2))
    assert "rank 1: overlap and sampler ok" in out


def test_no_sync_unused_parameters_and_the_gradient_tape_door():
    out = check(launch(__file__, "no_sync_unused_and_tape", 2))
    assert "rank 1: no_sync, unused parameters and tape door ok" in out
    assert "rank 0 tape door: ValueError: DistributedDataParallel.reduce_gradients: got 5 gradients for 6 parameters" in out
    assert "rank 1 tape door: RuntimeError: DistributedDataParallel.reduce_gradients: another rank called it" in out


def test_checkpoint_from_rank_0_reloads_everywhere_and_buffers_follow_rank_0(tmp_path):
    out = check(launch(__file__, "checkpoint_and_buffers", 2, tmp_path))
    assert "rank 1: checkpoint reloaded" in out


def test_dropped_wrappers_leave_no_hooks_behind():
    check(launch(__file__, "rewrapping_leaves_no_hooks", 2))


def test_different_models_on_different_ranks_raise_on_every_rank():
    out = check(launch(__file__, "model_mismatch", 2))
    assert "rank 0: DistributedDataParallel: the model differs across ranks: 'weight' is float32 of shape (2, 3) on rank 0 but float32 of shape (3, 3) on rank 1" in out
    assert "rank 1: DistributedDataParallel: the model differs across ranks: 'weight' is float32 of shape (3, 3) on rank 1 but float32 of shape (2, 3) on rank 0" in out


def test_docstring_examples_run_on_two_processes():
    check(launch(__file__, "doctests", 2))


if __name__ == "__main__":
    run_worker(WORKERS)
