"""minitorch's intra-op threads (minitorch/parallel.py): a split convolution gives the serial
loop's results, a part's exception reaches the caller, a split inside a split and a second
user thread's split run serially, and the BLAS pools get their sizes back."""
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import minitorch as mt
from minitorch import parallel, threads
from minitorch.ops import activation_ops, conv_ops, pool_ops


@pytest.fixture
def two_threads():
    before = mt.get_num_threads()
    mt.set_num_threads(2)
    yield
    mt.set_num_threads(before)


@pytest.fixture
def splits(monkeypatch, two_threads):
    """Every op splits, however small; the list counts the splits that ran on the pool."""
    ran = []
    run_on_pool = parallel._run_on_pool

    def counted(op_name, part, item_ranges):
        ran.append((op_name, len(item_ranges)))
        return run_on_pool(op_name, part, item_ranges)

    monkeypatch.setattr(parallel, "ENABLED", True)
    monkeypatch.setattr(parallel, "MIN_SPLIT_BYTES", 0)
    monkeypatch.setattr(parallel, "_run_on_pool", counted)
    return ran


CONV_CASES = [  # batch, in channels, kernel, attrs
    (5, 3, (3, 3), dict(padding=((1, 1), (1, 1)))),
    (7, 8, (3, 2), dict(padding=((1, 1), (0, 1)), groups=2, stride=(2, 2))),
    (3, 4, (2, 3), dict(padding=((0, 1), (2, 0)), dilation=(2, 1))),
    (9, 16, (3, 3), dict(padding=((1, 1), (1, 1)), stride=(2, 1), groups=4)),
    (2, 12, (3, 3), dict(padding=((2, 2), (2, 2)), dilation=(2, 2))),  # the input gradient as a convolution
]


def _channels_last(a):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


def _conv_results(x, w, b, dy, attrs):
    return (conv_ops._conv2d(x, w, b, **attrs),
            conv_ops._conv2d_backprop_input(w, dy, x.shape, **attrs),
            conv_ops._conv2d_backprop_filter(x, dy, w.shape, **attrs))


def _problem(batch, channels, kernel_size, config, seed=0):
    rng = np.random.default_rng(seed)
    attrs = {"stride": (1, 1), "dilation": (1, 1), "groups": 1, **config}
    x = _channels_last(rng.standard_normal((batch, channels, 9, 8)).astype(np.float32))
    w = rng.standard_normal((8, channels // attrs["groups"], *kernel_size)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    dy = _channels_last(rng.standard_normal(conv_ops._conv2d(x, w, **attrs).shape).astype(np.float32))
    return x, w, b, dy, attrs


@pytest.mark.parametrize("block_bytes", [1, 1 << 30], ids=["a block per sample", "one block per thread"])
@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_a_split_convolution_gives_the_serial_results(monkeypatch, splits, case, block_bytes):
    x, w, b, dy, attrs = _problem(*case)
    monkeypatch.setattr(parallel, "ENABLED", False)
    splits.clear()
    serial = _conv_results(x, w, b, dy, attrs)
    assert splits == []
    monkeypatch.setattr(parallel, "ENABLED", True)
    monkeypatch.setattr(conv_ops, "_SPLIT_BLOCK_BYTES", block_bytes)
    split = _conv_results(x, w, b, dy, attrs)
    assert {name for name, _ in splits} == {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"} - (
        {"Conv2DBackpropInput"} if conv_ops._is_full_convolution(w.shape[2:], **{k: attrs[k] for k in ("stride", "padding", "dilation")}) else set())
    assert all(parts == 2 for _, parts in splits)
    for mine, reference in zip(split, serial):
        assert mine.dtype == np.float32 and mine.shape == reference.shape
        np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-6 * np.abs(reference).max())
    assert split[0].transpose(0, 2, 3, 1).flags.c_contiguous  # still written channels-last


@pytest.mark.parametrize("layout", ["channels last", "contiguous"])
@pytest.mark.parametrize("nan_at", [None, 5], ids=["finite", "NaN in the second thread's samples"])
def test_split_max_pooling_and_its_gradient_give_the_serial_results_exactly(monkeypatch, splits, layout, nan_at):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((7, 3, 8, 6)).astype(np.float32)
    x[0, 0, :2, :2] = 1.0  # ties: the first maximum wins on both paths
    if nan_at is not None:
        x[nan_at, 1, 3, 2] = np.nan
    x = _channels_last(x) if layout == "channels last" else x
    attrs = {"kernel_size": (2, 2), "stride": (2, 2), "padding": (0, 0), "dilation": (1, 1), "ceil_mode": False}
    results = {}
    for enabled in (False, True):
        monkeypatch.setattr(parallel, "ENABLED", enabled)
        values, argmax = pool_ops._max_pool(x, **attrs)
        dy = np.arange(values.size, dtype=np.float32).reshape(values.shape)
        dx = pool_ops._max_pool_grad_kernel(argmax, dy, x.shape, disjoint=True, channels_last=layout == "channels last")
        results[enabled] = values, argmax, dx
    assert {name for name, _ in splits} == {"MaxPool", "MaxPoolGrad"}
    for mine, reference in zip(results[True], results[False]):
        np.testing.assert_array_equal(mine, reference)
        assert mine.strides == reference.strides  # the same memory layout
    if nan_at is not None:
        assert np.isnan(results[True][0][nan_at, 1, 1, 1])


@pytest.mark.parametrize("layout", ["channels last", "contiguous"])
def test_split_relu_and_its_gradient_give_the_serial_results_exactly(monkeypatch, splits, layout):
    rng = np.random.default_rng(3)
    x, g = (rng.standard_normal((5, 3, 4, 6)).astype(np.float32) for _ in range(2))
    x, g = (_channels_last(x), _channels_last(g)) if layout == "channels last" else (x, g)
    results = {}
    for enabled in (False, True):
        monkeypatch.setattr(parallel, "ENABLED", enabled)
        y = activation_ops._relu(x)
        results[enabled] = y, activation_ops._relu_grad_kernel(g, y)
    assert [name for name, _ in splits] == ["Relu", "ReluGrad"]
    for mine, reference in zip(results[True], results[False]):
        np.testing.assert_array_equal(mine, reference)
        assert mine.dtype == np.float32 and mine.strides == reference.strides


def test_relu_of_integers_is_not_split_and_a_broadcast_gradient_splits_correctly(splits):
    assert activation_ops._relu(np.arange(-3, 3)).tolist() == [0, 0, 0, 0, 1, 2]
    assert splits == []
    g = np.broadcast_to(np.float32(2), (4, 3))  # a stride-0 gradient, as a sum's backward hands it
    dx = activation_ops._relu_grad_kernel(g, np.array([[1, -1, 0]] * 4, np.float32))
    np.testing.assert_array_equal(dx, [[2, 0, 0]] * 4)
    assert dx.dtype == np.float32 and dx.flags.writeable and splits == [("ReluGrad", 2)]


def test_a_split_convolution_trains_like_the_serial_one(monkeypatch, splits):
    """The ops through the engine: a conv layer's output and gradients, split and not."""
    rng = np.random.default_rng(1)
    x = mt.tensor(rng.standard_normal((6, 4, 7, 7)).astype(np.float32), requires_grad=True)
    layer = mt.nn.Conv2d(4, 6, 3, padding=1, stride=2)
    results = {}
    for enabled in (False, True):
        monkeypatch.setattr(parallel, "ENABLED", enabled)
        x.grad = None
        layer.zero_grad()
        out = layer(x)
        (out * out).sum().backward()
        results[enabled] = [out.detach().numpy(), x.grad.numpy(), layer.weight.grad.numpy(), layer.bias.grad.numpy()]
    assert splits, "the split path did not run"
    for mine, reference in zip(results[True], results[False]):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-5 * np.abs(reference).max())


def test_at_one_thread_nothing_is_split(monkeypatch, splits):
    mt.set_num_threads(1)
    assert parallel.split_threads(64, 1 << 30) == 1
    x, w, b, dy, attrs = _problem(*CONV_CASES[0])
    _conv_results(x, w, b, dy, attrs)
    assert splits == []


def test_a_part_sees_its_own_range_and_results_come_back_in_order(splits):
    assert parallel.split("Ranges", lambda first, last: (first, last, threading.current_thread().name), 9, 0)[0][:2] == (0, 4)
    results = parallel.split("Ranges", lambda first, last: (first, last), 9, 0)
    assert results == [(0, 4), (4, 9)] and splits[-1] == ("Ranges", 2)


@pytest.mark.parametrize("failing", ["worker", "caller"])
def test_an_exception_in_a_part_reaches_the_caller_and_the_pools_get_their_size_back(splits, failing):
    finished = []

    def part(first, last):
        if (first > 0) == (failing == "worker"):
            raise ValueError(f"part {first}:{last} fails")
        finished.append((first, last))
        return first

    with pytest.raises(ValueError, match="fails") as raised:
        parallel.split("Boom", part, 10, 0)
    assert len(finished) == 1  # the other part ran to its end before the caller went on
    if failing == "worker":
        assert any("Boom" in note for note in raised.value.__notes__)
    assert mt.get_num_threads() == 2
    assert not parallel._busy.locked()


def test_a_split_inside_a_split_runs_serially(splits):
    def inner(first, last):
        return parallel.split("Inner", lambda a, b: (a, b), 6, 0)

    outer = parallel.split("Outer", inner, 4, 0)
    assert outer == [[(0, 6)], [(0, 6)]]  # each part, on the caller and on the worker, ran the inner loop whole
    assert splits == [("Outer", 2)]


def test_the_blas_pools_run_one_thread_during_a_split_and_get_their_size_back(splits):
    during = parallel.split("Sizes", lambda first, last: mt.get_num_threads(), 4, 0)
    assert during == [1, 1]
    assert mt.get_num_threads() == 2


def test_two_user_threads_running_convolutions_at_once_get_the_serial_results(monkeypatch, splits):
    problems = [_problem(*case, seed=seed) for seed, case in enumerate(CONV_CASES[:2])]
    monkeypatch.setattr(parallel, "ENABLED", False)
    expected = [_conv_results(*problem) for problem in problems]
    monkeypatch.setattr(parallel, "ENABLED", True)
    errors, barrier = [], threading.Barrier(len(problems))

    def user(index):
        try:
            barrier.wait()
            for _ in range(30):
                for mine, reference in zip(_conv_results(*problems[index]), expected[index]):
                    np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-6 * np.abs(reference).max())
        except BaseException as error:  # reported by the main thread
            errors.append(error)

    users = [threading.Thread(target=user, args=(i,)) for i in range(len(problems))]
    for thread in users:
        thread.start()
    for thread in users:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in users), "a user thread hangs"
    assert errors == []
    assert splits  # at least some of them split
    assert mt.get_num_threads() == 2


def test_blas_threads_restores_each_pool_and_checks_its_argument(two_threads):
    with threads.blas_threads(1):
        assert mt.get_num_threads() == 1
    assert mt.get_num_threads() == 2
    with pytest.raises(RuntimeError, match="blas_threads"):
        with threads.blas_threads(0):
            pass


def test_minitorch_intraop_0_switches_splitting_off():
    code = "import minitorch; print(minitorch.parallel.ENABLED, minitorch.parallel.split_threads(64, 1 << 30))"
    result = subprocess.run([sys.executable, "-c", code], env={"MINITORCH_INTRAOP": "0", "OMP_NUM_THREADS": "2",
                                                                 "OPENBLAS_NUM_THREADS": "2", "PATH": ""},
                            capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["False", "1"], result.stderr


@pytest.mark.parametrize("setting, expected", [({}, "physical cores"), ({"OMP_NUM_THREADS": "1"}, "1")])
def test_the_blas_pool_has_one_thread_per_physical_core_unless_the_environment_says(setting, expected):
    # ... and the environment is left alone: a child process still follows its own OMP_NUM_THREADS.
    code = ("import os, minitorch as mt; print(mt.get_num_threads(), mt.threads.physical_cores(), "
            "[os.environ.get(name) for name in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')])")
    environment = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                                    "MKL_NUM_THREADS")}
    result = subprocess.run([sys.executable, "-c", code], env={**environment, **setting}, capture_output=True,
                            text=True, timeout=120)
    threads_used, cores, environment_after = result.stdout.split(maxsplit=2)
    assert threads_used == (cores if expected == "physical cores" else expected), result.stderr
    assert environment_after.strip() == str([setting.get("OMP_NUM_THREADS"), None, None])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_splits_on_a_pool_of_its_own(splits):
    parallel.split("Warm", lambda first, last: None, 4, 0)  # the parent's pool has started
    child = os.fork()
    if child == 0:  # the child: a split must run on new threads, not hang on the parent's
        try:
            ok = parallel.split("Child", lambda first, last: (first, last), 4, 0) == [(0, 2), (2, 4)]
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    pytest.fail("the forked child hangs in a split")
