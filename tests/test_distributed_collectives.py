"""minitorch.distributed: collectives against numpy on 2 and 3 processes, mismatched calls, failures, set-up errors.

The workers below run under `mpiexec` (distributed_launcher.launch); every rank
can compute every rank's data from its seed, so each checks its results
against numpy on its own.
"""
import atexit
import doctest
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import minitorch as mt
import minitorch.distributed as dist
from distributed_launcher import check, launch, require_mpi, run_worker

# Jobs of several processes under mpiexec: long-running checks (pyproject.toml: markers), run by -m slow and CI.
pytestmark = pytest.mark.slow

ReduceOp = dist.ReduceOp
TOLERANCE = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-13}
NUMPY_REDUCTIONS = {
    ReduceOp.SUM: lambda xs: np.sum(xs, axis=0, dtype=xs.dtype),
    ReduceOp.AVG: lambda xs: np.mean(xs, axis=0, dtype=xs.dtype),
    ReduceOp.PRODUCT: lambda xs: np.prod(xs, axis=0, dtype=xs.dtype),
    ReduceOp.MIN: lambda xs: np.min(xs, axis=0),
    ReduceOp.MAX: lambda xs: np.max(xs, axis=0),
    ReduceOp.BAND: lambda xs: np.bitwise_and.reduce(xs, axis=0),
    ReduceOp.BOR: lambda xs: np.bitwise_or.reduce(xs, axis=0),
    ReduceOp.BXOR: lambda xs: np.bitwise_xor.reduce(xs, axis=0),
}
BOOL_REDUCTIONS = {ReduceOp.SUM: np.any, ReduceOp.MAX: np.any, ReduceOp.BOR: np.any, ReduceOp.PRODUCT: np.all,
                   ReduceOp.MIN: np.all, ReduceOp.BAND: np.all}
OPS_BY_KIND = {
    "f": [ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX],
    "i": [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR],
    "b": list(BOOL_REDUCTIONS),
}


def rank_data(rank, dtype, shape, salt=0):
    """Rank `rank`'s test array: every rank can rebuild every other rank's."""
    rng = np.random.default_rng(1000 * rank + salt)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 7, size=shape).astype(dtype)
    return rng.uniform(0.5, 1.5, size=shape).astype(dtype)


def tensor_of(array):
    return mt.tensor(np.asarray(array))  # a 0-d slice is a numpy scalar, which mt.tensor would make float32


def assert_same(actual, expected, dtype):
    assert actual.dtype == np.dtype(dtype), (actual.dtype, dtype)
    if dtype in TOLERANCE:
        np.testing.assert_allclose(actual, expected, rtol=TOLERANCE[dtype])
    else:
        np.testing.assert_array_equal(actual, expected)


# ----- workers (run on every rank under mpiexec) -----

def worker_collectives():
    rank, size = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    assert rank == int(os.environ["PMI_RANK"]) and size == int(os.environ["PMI_SIZE"])
    shapes = [(3, 4), (), (0,)]
    for dtype in ["float16", "float32", "float64", "uint8", "int32", "int64", "bool"]:
        kind = "i" if np.dtype(dtype).kind in "iu" else np.dtype(dtype).kind
        for shape in shapes:
            everyone = np.stack([rank_data(r, dtype, shape) for r in range(size)])
            for op in OPS_BY_KIND[kind]:
                t = tensor_of(everyone[rank])
                dist.all_reduce(t, op=op)
                reduction = BOOL_REDUCTIONS[op] if dtype == "bool" else NUMPY_REDUCTIONS[op]
                assert_same(np.asarray(t), reduction(everyone) if dtype != "bool" else reduction(everyone, axis=0), dtype)
            for root in range(size):
                t = tensor_of(everyone[rank])
                dist.broadcast(t, src=root)
                assert_same(np.asarray(t), everyone[root], dtype)
                t = tensor_of(everyone[rank])
                op = ReduceOp.MAX if dtype == "bool" else ReduceOp.SUM
                dist.reduce(t, dst=root, op=op)
                expected = everyone.max(axis=0) if dtype == "bool" else NUMPY_REDUCTIONS[op](everyone)
                assert_same(np.asarray(t), expected if rank == root else everyone[rank], dtype)
                inbox = [mt.zeros(shape, dtype=t.dtype) for _ in range(size)] if rank == root else None
                dist.gather(tensor_of(everyone[rank]), inbox, dst=root)
                if rank == root:
                    for r in range(size):
                        assert_same(np.asarray(inbox[r]), everyone[r], dtype)
                parts = [tensor_of(rank_data(root, dtype, shape, salt=r + 1)) for r in range(size)] if rank == root else None
                mine = mt.zeros(shape, dtype=t.dtype)
                dist.scatter(mine, parts, src=root)
                assert_same(np.asarray(mine), rank_data(root, dtype, shape, salt=rank + 1), dtype)
            gathered = [mt.zeros(shape, dtype=tensor_of(everyone[0]).dtype) for _ in range(size)]
            dist.all_gather(gathered, tensor_of(everyone[rank]))
            for r in range(size):
                assert_same(np.asarray(gathered[r]), everyone[r], dtype)
    print(f"rank {rank}: collectives agree with numpy", flush=True)


def worker_memory_layouts_and_async():
    rank, size = dist.get_rank(), dist.get_world_size()
    everyone = np.stack([rank_data(r, "float64", (4, 3)) for r in range(size)])
    # A transposed (non-contiguous) tensor is reduced in place through a staging copy.
    transposed = tensor_of(everyone[rank]).T
    assert not np.asarray(transposed).flags.c_contiguous
    dist.all_reduce(transposed)
    np.testing.assert_allclose(np.asarray(transposed), everyone.sum(axis=0).T, rtol=1e-13)
    # A parameter (requires grad) is a valid buffer too: DDP broadcasts them.
    weight = mt.nn.Parameter(tensor_of(everyone[rank]))
    dist.broadcast(weight, src=size - 1)
    np.testing.assert_array_equal(weight.detach().numpy(), everyone[-1])
    # Several async collectives in flight; each finishes by wait().
    a, b = tensor_of(everyone[rank]), tensor_of(everyone[rank] * 2)
    works = [dist.all_reduce(a, async_op=True), dist.all_reduce(b, op=ReduceOp.MAX, async_op=True),
             dist.barrier(async_op=True)]
    assert all(isinstance(w, dist.Work) for w in works)
    assert all(w.wait() for w in works) and all(w.is_completed() and w.is_success() for w in works)
    np.testing.assert_allclose(np.asarray(a), everyone.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(b), 2 * everyone.max(axis=0), rtol=1e-13)
    # A read-only (expanded) tensor is refused on its rank; the others hear about it.
    try:
        dist.all_reduce(mt.ones(1).expand(3) if rank == 0 else mt.ones(3))
    except (ValueError, RuntimeError) as error:
        print(f"rank {rank}: {type(error).__name__}: {error}", flush=True)
    dist.barrier()
    t = mt.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [size, size]
    # A collective writes in place: a gradient that saved the tensor refuses to run afterwards.
    w = mt.ones(2, requires_grad=True)
    saved = w * 1.0
    loss = (saved * saved).sum()
    dist.all_reduce(saved.detach())  # detach(), not .data: .data writes are untracked, as in PyTorch
    try:
        loss.backward()
        raise AssertionError("backward used a tensor all_reduce overwrote")
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), error
    # Only the tensors a collective writes move: broadcast's source keeps its version.
    source = mt.ones(2, requires_grad=True)
    kept = (source * source).sum()
    dist.broadcast(source.detach(), src=0)
    try:
        kept.backward()
        assert rank == 0 and source.grad.tolist() == [2.0, 2.0]
    except RuntimeError as error:
        assert rank != 0 and "modified by an inplace operation" in str(error), error
    print(f"rank {rank}: versions moved", flush=True)


def worker_mismatches():
    """Calls that disagree across ranks raise on every rank, and the group stays usable."""
    rank, size = dist.get_rank(), dist.get_world_size()
    cases = {
        "shape": lambda: dist.all_reduce(mt.ones(2 + rank)),
        "dtype": lambda: dist.all_reduce(mt.ones(2, dtype=mt.float32 if rank == 0 else mt.float64)),
        "op": lambda: dist.all_reduce(mt.ones(2), op=ReduceOp.SUM if rank == 0 else ReduceOp.MAX),
        "root": lambda: dist.broadcast(mt.ones(2), src=rank),
        "collective": lambda: dist.broadcast(mt.ones(2)) if rank == 0 else dist.all_reduce(mt.ones(2)),
        "local": lambda: dist.all_gather([mt.zeros(2)] * (size if rank == 0 else size + 1), mt.ones(2)),
        "avg of ints": lambda: dist.all_reduce(mt.ones(2, dtype=mt.int64), op=ReduceOp.AVG),
        "bad src": lambda: dist.broadcast(mt.ones(2), src=size),
    }
    for name, call in cases.items():
        try:
            call()
        except (RuntimeError, ValueError) as error:
            print(f"rank {rank} {name}: {type(error).__name__}: {error}", flush=True)
        else:
            raise AssertionError(f"{name}: no error on rank {rank}")
    t = mt.tensor([float(rank)])
    dist.all_reduce(t)
    assert t.item() == sum(range(size))
    print(f"rank {rank}: still usable", flush=True)


def worker_failure(mode):
    """One rank fails or leaves; the job must end soon, not hang."""
    rank = dist.get_rank()
    if mode == "hang":  # re-init with a short timeout (the others must not time out before rank 1 fails)
        dist.destroy_process_group()
        dist.init_process_group("mpi", timeout=2.0)
    else:  # the default timeout, 30 minutes: only the way the rank left can end the job in time
        dist.destroy_process_group()
        dist.init_process_group("mpi")
    if rank == 1:
        if mode == "raise":
            raise ValueError("rank 1 failed on purpose")
        if mode == "exit":
            os._exit(3)
        if mode == "os._exit(0)":
            os._exit(0)
        if mode == "hang":
            time.sleep(120)
        if mode == "sys.exit(3)":
            sys.exit(3)
        if mode == "raise SystemExit(3)":
            raise SystemExit(3)
        if mode == "sys.exit(0)":
            sys.exit(0)
        if mode == "end of script":  # leaves without the all_reduce rank 0 waits in
            return
        if mode == "atexit os._exit(3)":  # its script ends; an atexit handler (see __main__) exits with 3
            return
    if rank == 0 and mode == "atexit os._exit(3)":
        time.sleep(1)  # rank 1 is gone before rank 0 starts
    dist.all_reduce(mt.ones(3))
    raise AssertionError("the all_reduce should not have finished")


def worker_staggered_ends(last_op):
    """Ranks that end cleanly at different times: the first to leave must not fail the others."""
    rank = dist.get_rank()
    t = mt.ones(2) * (rank + 1)
    if last_op == "broadcast":
        dist.broadcast(t, src=1)  # rank 1 may finish (and leave) before rank 0 has its data
    else:
        dist.all_reduce(t)
    if rank == 0:
        time.sleep(2)  # still working (saving a checkpoint, say) when rank 1 has left
    print(f"rank {rank}: ended cleanly with {t.tolist()}", flush=True)


def worker_single_process():
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    t = mt.tensor([1.0, 2.0])
    dist.all_reduce(t, op=ReduceOp.AVG)
    gathered = [mt.zeros(2)]
    dist.all_gather(gathered, t)
    dist.barrier()
    assert t.tolist() == [1.0, 2.0] and gathered[0].tolist() == [1.0, 2.0]
    print("world of one: ok", flush=True)


def worker_doctests():
    failed = 0
    for module in [dist.collectives, dist.process_group, mt.nn.parallel.distributed, mt.nn.parallel.sync_batchnorm]:
        result = doctest.testmod(module, extraglobs={"mt": mt, "np": np}, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0, module.__name__
        failed += result.failed
    assert failed == 0, f"{failed} docstring examples failed on rank {dist.get_rank()}"


WORKERS = {name[len("worker_"):]: fn for name, fn in globals().items() if name.startswith("worker_")}


# ----- tests -----

@pytest.mark.parametrize("nprocs", [2, 3])
def test_collectives_match_numpy(nprocs):
    out = check(launch(__file__, "collectives", nprocs))
    assert all(f"rank {r}: collectives agree with numpy" in out for r in range(nprocs))


def test_non_contiguous_parameters_async_and_read_only():
    out = check(launch(__file__, "memory_layouts_and_async", 2))
    assert "rank 0: ValueError: all_reduce: the tensor's memory is read-only" in out
    assert "rank 1: RuntimeError: all_reduce: rank 0 called it with invalid arguments" in out
    assert "rank 0: versions moved" in out and "rank 1: versions moved" in out


def test_mismatched_calls_raise_on_every_rank():
    out = check(launch(__file__, "mismatches", 2))
    for rank in (0, 1):
        assert f"rank {rank}: still usable" in out
        assert f"rank {rank} shape: RuntimeError: all_reduce: the ranks' calls do not match" in out
    # The ranks' lines reach one pipe and may be interleaved: look for the texts, not for whole lines.
    assert "rank 0: all_reduce of a float32 tensor of shape (2,)" in out and "rank 1: all_reduce of a float32 tensor of shape (3,)" in out
    assert "rank 1: all_reduce of a float64 tensor" in out
    assert "rank 0: broadcast of a float32 tensor of shape (2,), root 0; rank 1: broadcast of a float32 tensor of shape (2,), root 1" in out
    assert "rank 0: broadcast" in out and "rank 1: all_reduce" in out
    assert "rank 1 local: ValueError: all_gather: tensor_list must be a list of 2 tensors (the world size), got 3 tensors" in out
    assert "rank 0 local: RuntimeError: all_gather: rank 1 called it with invalid arguments" in out
    assert out.count("ReduceOp.AVG is not defined for int64 tensors") == 2
    assert out.count("src must be a rank in 0..1, got 2") == 2


@pytest.mark.parametrize("mode", ["raise", "exit", "hang", "sys.exit(3)", "raise SystemExit(3)", "sys.exit(0)",
                                  "end of script", "atexit os._exit(3)", "os._exit(0)"])
def test_a_failed_rank_ends_the_job_in_bounded_time(mode):
    start = time.monotonic()
    result = launch(__file__, "failure", 2, mode, timeout=30)
    if mode != "os._exit(0)":  # mpiexec kills rank 0 and reports 0, the status of the rank that left
        assert result.returncode != 0, result
    assert "the all_reduce should not have finished" not in result.stderr
    assert time.monotonic() - start < 20
    # (An atexit handler's os._exit runs before mpi4py's MPI_Finalize, a C-level exit function: mpiexec
    # sees a rank leave without finalizing and ends the job itself, maybe before rank 0 hears of it.)
    if mode in ("sys.exit(3)", "raise SystemExit(3)", "sys.exit(0)", "end of script"):
        assert "all_reduce (agreeing on the call): rank 1 left the job" in result.stderr, result.stderr
        assert "rank 0 raised DistBackendError; aborting the job" in result.stderr
    if mode == "raise":
        assert "ValueError: rank 1 failed on purpose" in result.stderr
        assert "rank 1 raised ValueError; aborting the job" in result.stderr
    if mode == "hang":
        assert "all_reduce (agreeing on the call): rank 0 of 2 waited 2 s" in result.stderr
        assert "DistBackendError" in result.stderr


def run_without_mpiexec(worker, env=None, code=None):
    require_mpi()
    environment = {**os.environ, **(env or {})}
    command = [sys.executable, "-c", code] if code else [sys.executable, __file__, worker]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment)


@pytest.mark.parametrize("last_op", ["broadcast", "all_reduce"])
def test_ranks_that_end_cleanly_at_different_times_end_the_job_cleanly(last_op):
    out = check(launch(__file__, "staggered_ends", 2, last_op, timeout=30))
    expected = [2.0, 2.0] if last_op == "broadcast" else [3.0, 3.0]
    assert f"rank 0: ended cleanly with {expected}" in out and f"rank 1: ended cleanly with {expected}" in out


def test_a_script_without_mpiexec_is_a_world_of_one():
    assert "world of one: ok" in check(run_without_mpiexec("single_process"))
    assert "world of one: ok" in check(run_without_mpiexec("single_process", env={"RANK": "0", "WORLD_SIZE": "1"}))


def test_env_variables_must_agree_with_mpi():
    result = run_without_mpiexec("single_process", env={"WORLD_SIZE": "2", "RANK": "0"})
    assert result.returncode != 0
    assert ("init_process_group: the WORLD_SIZE variable says world_size 2, but MPI says 1 "
            "(launch with: mpiexec -n 2 python ...)") in result.stderr


def test_without_mpi4py_the_error_says_how_to_install_it():
    code = ("import sys; sys.modules['mpi4py'] = None\n"
            "import minitorch.distributed as dist\n"
            "assert not dist.is_available()\n"
            "dist.init_process_group('mpi')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "RuntimeError: init_process_group(backend='mpi') needs mpi4py and an MPI library" in result.stderr
    assert "pip install mpi4py mpich" in result.stderr


def test_misuse_before_mpi_starts():
    assert not dist.is_initialized()
    for call in [dist.get_rank, dist.get_world_size, dist.barrier, lambda: dist.all_reduce(mt.ones(1))]:
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            call()
    with pytest.raises(ValueError, match="'mpi' backend only, got backend='nccl'"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="init_method must be None or 'env://', got 'tcp://10.0.0.1:23456'"):
        dist.init_process_group("mpi", init_method="tcp://10.0.0.1:23456")
    with pytest.raises(ValueError, match="timeout must be a positive"):
        dist.init_process_group("mpi", timeout=-1)
    assert not dist.is_initialized()


def test_docstring_examples_run_on_two_processes():
    check(launch(__file__, "doctests", 2))


if __name__ == "__main__":
    if sys.argv[1:] == ["failure", "atexit os._exit(3)"]:
        # Registered before init_process_group: it runs after minitorch's own atexit handler.
        atexit.register(os._exit, 3)
    run_worker(WORKERS)
