"""The core surface against PyTorch: devices, generators and sampling, the number protocol, Size,
printing, checkpoint arguments and the misc torch functions (issue 11, items 1, 2, 3, 6)."""
import math
import operator
import warnings

import numpy as np
import pytest

import minitorch as mt
from minitorch.devices import DeviceError

torch = pytest.importorskip("torch")


def mt_repr(text):
    return text.replace("torch.", "minitorch.")


# ----- devices -----

@pytest.mark.parametrize("args", [("cpu",), ("cpu:0",), ("cpu", 0), ("cuda",), ("cuda:1",), ("cuda", 2), ("mps",),
                                  ("meta",)])
def test_device_names_parse_as_in_pytorch(args):
    mine, theirs = mt.device(*args), torch.device(*args)
    assert (repr(mine), str(mine), mine.type, mine.index) == (repr(theirs), str(theirs), theirs.type, theirs.index)
    assert mt.device(mine) == mine and hash(mt.device(*args)) == hash(mine)


@pytest.mark.parametrize("args", [("foo",), ("CPU",), ("cuda:x",), ("cpu", -1), ("cpu:0", 1)])
def test_bad_device_names_raise_as_in_pytorch(args):
    with pytest.raises(RuntimeError):
        torch.device(*args)
    with pytest.raises(RuntimeError):
        mt.device(*args)


def test_device_equality_follows_pytorch():
    for a, b in [("cpu", "cpu:0"), ("cpu", "cpu"), ("cuda:0", "cuda:1")]:
        assert (mt.device(a) == mt.device(b)) == (torch.device(a) == torch.device(b))
    assert (mt.device("cpu") == "cpu") == (torch.device("cpu") == "cpu")  # False in PyTorch 2.13


@pytest.mark.parametrize("where", ["cuda", "cuda:0", "mps", mt.device("cuda"), "meta"])
def test_nothing_silently_stays_on_the_cpu(where):
    x = mt.ones(2)
    for attempt in (lambda: x.to(where), lambda: mt.zeros(2, device=where), lambda: mt.tensor([1.0], device=where),
                    lambda: mt.rand(2, device=where), lambda: mt.nn.Linear(2, 2).to(where),
                    lambda: mt.set_default_device(where), lambda: mt.Generator(where), lambda: mt.ones(1).cuda()):
        with pytest.raises(DeviceError, match="CPU only"):
            attempt()
    assert mt.get_default_device() == mt.device("cpu")


def test_the_cpu_is_accepted_everywhere():
    x = mt.ones(2, device="cpu")
    assert x.device == mt.device("cpu") and x.get_device() == -1 == torch.ones(1).get_device()
    assert x.to("cpu") is x and x.cpu() is x and x.to(mt.device("cpu:0")) is x
    assert not x.is_cuda and x.is_cpu and x.layout is mt.strided
    for make in (mt.zeros, mt.ones, mt.rand, mt.randn, mt.empty):
        assert make(2, device="cpu").device.type == "cpu"
    for make in (mt.zeros_like, mt.ones_like, mt.rand_like, mt.randn_like, mt.empty_like):
        assert make(x, device="cpu").shape == (2,)
    mt.arange(3, device="cpu"), mt.linspace(0, 1, 3, device="cpu"), mt.eye(2, device="cpu")
    mt.full((2,), 1.0, device="cpu"), mt.randint(0, 3, (2,), device="cpu"), mt.randperm(3, device="cpu")
    with mt.device("cpu"):
        assert mt.zeros(1).device.type == "cpu"
    with pytest.raises(DeviceError, match="pin_memory"):
        mt.empty(2, pin_memory=True)
    with pytest.raises(RuntimeError, match="dense"):
        mt.zeros(2, layout="sparse_coo")


def test_no_accelerator_is_reported():
    assert (mt.cuda.is_available(), mt.cuda.device_count()) == (torch.cuda.is_available(), torch.cuda.device_count())
    assert mt.accelerator.is_available() is False and mt.accelerator.current_accelerator() is None
    assert mt.backends.mps.is_available() is False and mt.backends.cudnn.is_available() is False
    mt.cuda.manual_seed(0), mt.cuda.manual_seed_all(0)
    mt.backends.cudnn.benchmark = True
    mt.backends.cudnn.deterministic = True
    with pytest.raises(DeviceError):
        mt.cuda.synchronize()
    assert mt.get_device_module("cpu").is_available()


def test_to_forms_match_pytorch():
    data = [1.5, -2.5]
    for args, kwargs in [((mt.int64,), {}), (("cpu", mt.float64), {}), ((), {"dtype": mt.float16}),
                         ((), {"device": "cpu", "dtype": mt.int32}), ((mt.float32,), {"copy": True}),
                         ((None,), {}), ((mt.float32, False, True), {})]:
        t_args = tuple(getattr(torch, a.name) if isinstance(a, mt.dtype) else a for a in args)
        t_kwargs = {k: getattr(torch, v.name) if isinstance(v, mt.dtype) else v for k, v in kwargs.items()}
        x, tx = mt.tensor(data), torch.tensor(data)
        mine, theirs = x.to(*args, **kwargs), tx.to(*t_args, **t_kwargs)
        assert mine.tolist() == theirs.tolist() and repr(mine.dtype) == mt_repr(repr(theirs.dtype))
        assert (mine is x) == (theirs is tx)
    other = mt.zeros(1, dtype=mt.float64)
    assert mt.tensor(data).to(other).dtype == mt.float64


def test_to_a_new_dtype_is_differentiable_and_channels_last_is_real():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    x.to(mt.float64).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    images = mt.randn(2, 3, 4, 5)
    stored = images.to(memory_format=mt.channels_last)
    assert stored.is_contiguous(memory_format=mt.channels_last) and not stored.is_contiguous()
    assert stored.stride() == torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last).stride()
    np.testing.assert_array_equal(np.asarray(stored), np.asarray(images))


# ----- generators and sampling -----

SAMPLERS = {
    "rand": lambda g: mt.rand(3, 4, generator=g), "randn": lambda g: mt.randn(5, generator=g),
    "randint": lambda g: mt.randint(0, 100, (6,), generator=g), "randperm": lambda g: mt.randperm(9, generator=g),
    "rand_like": lambda g: mt.rand_like(mt.zeros(3), generator=g),
    "randn_like": lambda g: mt.randn_like(mt.zeros(3), generator=g),
    "randint_like": lambda g: mt.randint_like(mt.zeros(3), 10, generator=g),
    "multinomial": lambda g: mt.multinomial(mt.tensor([0.2, 0.3, 0.5]), 5, replacement=True, generator=g),
    "multinomial_no_replacement": lambda g: mt.multinomial(mt.ones(2, 6), 4, generator=g),
    "normal": lambda g: mt.normal(mt.zeros(4), mt.ones(4), generator=g),
    "normal_numbers": lambda g: mt.normal(1.0, 2.0, size=(3,), generator=g),
    "bernoulli": lambda g: mt.bernoulli(mt.full((8,), 0.5), generator=g),
    "poisson": lambda g: mt.poisson(mt.full((5,), 3.0), generator=g),
    "binomial": lambda g: mt.binomial(mt.full((5,), 10.0), mt.full((5,), 0.5), generator=g),
    "uniform_": lambda g: mt.empty(4).uniform_(-1, 1, generator=g),
    "normal_": lambda g: mt.empty(4).normal_(mean=0.0, std=2.0, generator=g),
    "bernoulli_": lambda g: mt.empty(6).bernoulli_(0.5, generator=g),
    "exponential_": lambda g: mt.empty(4).exponential_(generator=g),
    "geometric_": lambda g: mt.empty(4).geometric_(0.3, generator=g),
    "log_normal_": lambda g: mt.empty(4).log_normal_(generator=g),
    "cauchy_": lambda g: mt.empty(4).cauchy_(generator=g),
    "random_": lambda g: mt.empty(4).random_(0, 1000, generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_every_sampler_repeats_under_its_generator_and_leaves_the_default_alone(name):
    draw = SAMPLERS[name]
    before = mt.get_rng_state()
    first = draw(mt.Generator().manual_seed(123)).tolist()
    assert draw(mt.Generator().manual_seed(123)).tolist() == first
    assert bool((mt.get_rng_state() == before).all())
    generator = mt.Generator().manual_seed(5)
    state = generator.get_state()
    again = draw(generator).tolist()
    generator.set_state(state)
    assert draw(generator).tolist() == again
    _ = mt.manual_seed(7)
    from_default = draw(None).tolist()
    _ = mt.manual_seed(7)
    assert draw(None).tolist() == from_default


def test_generator_api_matches_pytorch():
    g, tg = mt.Generator(), torch.Generator()
    assert g.initial_seed() == tg.initial_seed() and str(g.device) == str(tg.device)
    assert g.manual_seed(-1).initial_seed() == tg.manual_seed(-1).initial_seed()
    assert g.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    with pytest.raises(RuntimeError):
        g.manual_seed(2**64)
    seed = g.seed()
    assert g.initial_seed() == seed and 0 <= seed < 2**64
    assert mt.manual_seed(3) is mt.default_generator and mt.initial_seed() == 3
    assert isinstance(mt.seed(), int)
    with pytest.raises(RuntimeError, match="get_state"):
        g.set_state(mt.tensor(torch.get_rng_state().numpy()))
    with pytest.raises(TypeError, match="minitorch.Generator"):
        mt.rand(2, generator=torch.Generator())


def test_rng_state_round_trip_and_fork():
    state = mt.get_rng_state()
    a = mt.randn(3)
    mt.set_rng_state(state)
    assert mt.randn(3).tolist() == a.tolist()
    with mt.random.fork_rng():
        mt.rand(10)
    assert mt.randn(2).tolist() == (lambda: (mt.set_rng_state(state), mt.randn(3), mt.randn(2))[2])().tolist()


def test_different_seeds_give_different_numbers():
    assert mt.rand(8, generator=mt.Generator().manual_seed(1)).tolist() != \
        mt.rand(8, generator=mt.Generator().manual_seed(2)).tolist()


def test_multinomial_follows_the_weights():
    g = mt.Generator().manual_seed(0)
    weights = mt.tensor([[0.1, 0.0, 0.6, 0.3], [1.0, 1.0, 0.0, 2.0]])
    draws = mt.multinomial(weights, 20000, replacement=True, generator=g)
    assert draws.dtype == mt.int64 and draws.shape == (2, 20000)
    for row, w in zip(draws.numpy(), np.asarray(weights)):
        frequencies = np.bincount(row, minlength=4) / row.size
        np.testing.assert_allclose(frequencies, w / w.sum(), atol=0.015)
    distinct = mt.multinomial(weights, 3, generator=g).numpy()
    assert all(len(set(row)) == 3 for row in distinct) and 1 not in distinct[0] and 2 not in distinct[1]
    assert mt.multinomial(mt.tensor([0.0, 1.0, 0.0]), 3, generator=g).tolist()[0] == 1  # as PyTorch: no error
    first = np.bincount([mt.multinomial(mt.tensor([1.0, 3.0]), 1, generator=g).item() for _ in range(4000)])
    assert abs(first[1] / 4000 - 0.75) < 0.03  # the first draw without replacement follows the weights


@pytest.mark.parametrize("weights, n, replacement", [([[0.0, 0.0]], 1, True), ([1.0, -1.0], 1, True),
                                                     ([1.0, 1.0], 3, False),
                                                     ([1.0, float("nan")], 1, True), ([[[1.0]]], 1, True)])
def test_multinomial_refuses_what_pytorch_refuses(weights, n, replacement):
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor(weights), n, replacement)
    with pytest.raises(RuntimeError):
        mt.multinomial(mt.tensor(weights), n, replacement)


def test_normal_bernoulli_poisson_shapes_dtypes_and_moments():
    g = mt.Generator().manual_seed(0)
    for mean, std in [(mt.zeros(2, 3), mt.ones(3)), (mt.zeros(4), 2.0), (1.0, mt.ones(5, dtype=mt.float64))]:
        tm = mean if not isinstance(mean, mt.Tensor) else torch.zeros(tuple(mean.shape), dtype=getattr(torch, mean.dtype.name))
        ts = std if not isinstance(std, mt.Tensor) else torch.ones(tuple(std.shape), dtype=getattr(torch, std.dtype.name))
        mine, theirs = mt.normal(mean, std, generator=g), torch.normal(tm, ts)
        assert mine.shape == tuple(theirs.shape) and repr(mine.dtype) == mt_repr(repr(theirs.dtype))
    big = mt.normal(3.0, 2.0, size=(20000,), generator=g).numpy()
    assert abs(big.mean() - 3.0) < 0.05 and abs(big.std() - 2.0) < 0.05
    with pytest.raises(RuntimeError):
        mt.normal(mt.zeros(2), mt.tensor([1.0, -1.0]))
    assert abs(float(mt.bernoulli(mt.full((20000,), 0.3), generator=g).mean()) - 0.3) < 0.015
    assert mt.bernoulli(mt.zeros(3, dtype=mt.float64)).dtype == mt.float64
    with pytest.raises(RuntimeError):
        mt.bernoulli(mt.tensor([1.5]))
    rates = mt.poisson(mt.full((20000,), 4.0), generator=g).numpy()
    assert abs(rates.mean() - 4.0) < 0.05 and abs(rates.var() - 4.0) < 0.15
    x = mt.tensor([0.0, 1.0]).bernoulli()
    assert x.tolist() == [0.0, 1.0]


def test_in_place_fills_follow_their_distributions():
    g = mt.Generator().manual_seed(1)
    assert abs(float(mt.empty(20000).exponential_(4.0, generator=g).mean()) - 0.25) < 0.01
    geometric = mt.empty(20000).geometric_(0.25, generator=g)
    assert float(geometric.min()) == 1.0 and abs(float(geometric.mean()) - 4.0) < 0.1
    x = mt.zeros(1000, dtype=mt.int64).random_(5, generator=g)
    assert set(x.tolist()) == {0, 1, 2, 3, 4}
    floats = mt.zeros(1000).random_(generator=g).numpy()
    assert floats.min() >= 0 and floats.max() <= 2**24 and np.all(floats == np.round(floats))
    w = mt.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.exponential_()


def test_loader_and_random_split_take_a_generator():
    data = mt.utils.data.TensorDataset(mt.arange(20))
    orders = []
    for _ in range(2):
        loader = mt.utils.data.DataLoader(data, batch_size=20, shuffle=True, generator=mt.Generator().manual_seed(4))
        orders.append(next(iter(loader))[0].tolist())
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(20))
    splits = [mt.utils.data.random_split(data, [5, 15], generator=mt.Generator().manual_seed(9)) for _ in range(2)]
    assert list(splits[0][0].indices) == list(splits[1][0].indices)


# ----- the number protocol and Size -----

NUMBERS = [[2.4544], 2.4544, [[3.7]], True, -3, [1.5, 2.0], [], 7]
FORMATTERS = [lambda t: f"{t}", lambda t: f"{t:>12}"]


@pytest.mark.parametrize("value", NUMBERS, ids=str)
@pytest.mark.parametrize("convert", [float, int, complex, bool, operator.index, *FORMATTERS],
                         ids=["float", "int", "complex", "bool", "index", "format", "format_empty_width"])
def test_python_conversions_match_pytorch(value, convert):
    def outcome(t):
        try:
            return "ok", convert(t)
        except Exception as error:  # noqa: BLE001 (the exception type is what is compared)
            return "error", type(error)
    mine, theirs = outcome(mt.tensor(value)), outcome(torch.tensor(value))
    if np.ndim(value) and np.size(value) == 1 and convert is not FORMATTERS[0] and convert in FORMATTERS:
        # minitorch's extension: a spec formats a one-element tensor of any rank (PyTorch: 0-d only)
        assert theirs == ("error", TypeError) and mine == ("ok", convert(torch.tensor(value).reshape(())))
    elif mine[0] == "ok" and isinstance(mine[1], str):
        assert mine[1] == mt_repr(theirs[1])
    else:
        assert mine == theirs


def test_format_specs_on_one_element_tensors():
    loss = mt.tensor(2.454400062561035)
    assert f"{loss:.4f}" == f"{torch.tensor(2.4544):.4f}" == "2.4544"
    assert "{:+.2f}".format(mt.tensor(-0.5)) == "{:+.2f}".format(torch.tensor(-0.5))
    assert f"{mt.tensor(3):5d}" == f"{torch.tensor(3):5d}"
    assert f"{mt.tensor([0.125]):.2f}" == "0.12"  # PyTorch refuses a spec on a 1-d one-element tensor
    with pytest.raises(TypeError):
        f"{mt.tensor([1.0, 2.0]):.2f}"
    assert round(mt.tensor(2.567), 2) == 2.57 and round(mt.tensor([3.5])) == 4


def test_size_is_torch_size():
    mine, theirs = mt.zeros(2, 3).shape, torch.zeros(2, 3).shape
    assert repr(mine) == mt_repr(repr(theirs)) and str(mine) == mt_repr(str(theirs))
    for result, expected in [(mine[1:], theirs[1:]), (mine + (4,), theirs + (4,)), ((1,) + mine, (1,) + theirs),
                             (mine * 2, theirs * 2)]:
        assert type(result) is mt.Size and tuple(result) == tuple(expected) and type(expected) is torch.Size
    assert mine.numel() == theirs.numel() and mine == (2, 3) and isinstance(mine[0], int)
    assert mt.zeros(2, 3).size() == mine and mt.zeros(2, 3).size(-1) == 3
    assert repr(mt.zeros(()).shape) == "minitorch.Size([])"


# ----- printing -----

PRINTED = [
    np.array([2.5, 10.5], np.float32), np.array([1e-5, 1.0], np.float32), np.array([True, False]),
    np.array(3.25, np.float32), np.array([], np.float32), np.zeros((0, 3), np.float32), np.array([], np.int64),
    np.arange(2000, dtype=np.float32).reshape(40, 50) / 7, np.arange(5000), np.arange(1001, dtype=np.float32),
    np.array([np.nan, np.inf, -np.inf, 1.0], np.float32), np.array([1e10, 1.0], np.float32),
    np.array([[1, -2], [300, 4]]), np.array([0.1, 0.25]), np.array([1, 2], np.int32), np.array([1.0, 2.0], np.float16),
    np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32), np.array([-0.0, 0.0], np.float32),
    np.arange(30, dtype=np.float32) * 1000.125, np.array(5), np.array(np.nan, np.float32), np.array([123456789.0, 0.5]),
    np.zeros((2, 40), np.float32) + np.arange(40, dtype=np.float32), np.array([[True], [False]]),
    np.arange(24, dtype=np.uint8).reshape(2, 3, 4), np.array([0.0, 0.0], np.float32), np.array(-7, np.int8),
]


@pytest.mark.parametrize("index", range(len(PRINTED)))
def test_tensors_print_as_in_pytorch(index):
    array = PRINTED[index]
    assert repr(mt.from_numpy(array.copy())) == mt_repr(repr(torch.from_numpy(array.copy())))


@pytest.mark.parametrize("options", [{"precision": 2}, {"threshold": 5}, {"edgeitems": 1, "threshold": 5},
                                     {"linewidth": 30}, {"sci_mode": True}, {"sci_mode": False}, {"profile": "short"},
                                     {"profile": "full"}, {"edgeitems": 0, "threshold": 3}])
def test_set_printoptions_as_in_pytorch(options):
    arrays = [np.arange(12, dtype=np.float32).reshape(3, 4) / 3, np.arange(40), np.array([1e-6, 3.0], np.float32)]
    try:
        mt.set_printoptions(**options)
        torch.set_printoptions(**options)
        for array in arrays:
            assert repr(mt.from_numpy(array.copy())) == mt_repr(repr(torch.from_numpy(array.copy())))
    finally:
        mt.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_autograd_suffixes_print_as_in_pytorch():
    x, tx = mt.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == repr(tx) and repr(x * 2) == repr(tx * 2)
    assert repr(mt.zeros(2, dtype=mt.float64)) == mt_repr(repr(torch.zeros(2, dtype=torch.float64)))


# ----- checkpoints -----

def test_load_takes_pytorch_arguments_and_never_unpickles(tmp_path):
    path = tmp_path / "model.pth"
    mt.save({"w": mt.ones(2), "step": 3}, path)
    for kwargs in [{}, {"map_location": "cpu"}, {"map_location": mt.device("cpu")}, {"weights_only": True},
                   {"map_location": {"cuda:0": "cpu"}}, {"mmap": True}]:
        assert mt.load(path, **kwargs)["w"].tolist() == [1.0, 1.0]
    assert mt.load(path, map_location=lambda tensor, location: tensor * 3)["w"].tolist() == [3.0, 3.0]
    with pytest.raises(ValueError, match="safetensors"):
        mt.load(path, weights_only=False)
    with pytest.raises(ValueError, match="safetensors"):
        mt.load(path, pickle_module=object())
    with pytest.raises(DeviceError):
        mt.load(path, map_location="cuda:0")


# ----- misc torch functions -----

def test_creation_functions_match_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairs = [(mt.range(1, 4), torch.range(1, 4)), (mt.range(0, 1, 0.25), torch.range(0, 1, 0.25)),
                 (mt.range(1, 4, dtype=mt.int64), torch.range(1, 4, dtype=torch.int64))]
    pairs += [(mt.logspace(0, 2, 3), torch.logspace(0, 2, 3)), (mt.logspace(0, 3, 4, base=2), torch.logspace(0, 3, 4, base=2)),
              (mt.logspace(0, 2, 3, dtype=mt.int64), torch.logspace(0, 2, 3, dtype=torch.int64)),
              (mt.scalar_tensor(3), torch.scalar_tensor(3)), (mt.scalar_tensor(True), torch.scalar_tensor(True)),
              (mt.asarray([1, 2]), torch.asarray([1, 2])), (mt.asarray(3.5), torch.asarray(3.5)),
              (mt.full((2,), True), torch.full((2,), True)), (mt.fill(mt.zeros(2), 3), torch.fill(torch.zeros(2), 3)),
              (mt.zeros(2, dtype=mt.int32).new_tensor([1.5, 2.0]), torch.zeros(2, dtype=torch.int32).new_tensor([1.5, 2.0])),
              (mt.zeros(1, dtype=mt.float64).new_zeros((2, 3)), torch.zeros(1, dtype=torch.float64).new_zeros((2, 3))),
              (mt.zeros(2).new_full((2,), 3), torch.zeros(2).new_full((2,), 3)),
              (mt.zeros(2, dtype=mt.int64).new_ones(2, 2), torch.zeros(2, dtype=torch.int64).new_ones(2, 2)),
              (mt.zeros(2).new([1, 2]), torch.zeros(2).new([1, 2]))]
    for mine, theirs in pairs:
        assert repr(mine) == mt_repr(repr(theirs))
    array = np.arange(3.0)
    shared = mt.asarray(array)
    array[0] = 9
    assert shared[0].item() == 9 and mt.asarray(shared) is shared and mt.asarray(shared, copy=True) is not shared
    with pytest.raises(ValueError):
        mt.asarray([1.0], copy=False)
    assert mt.zeros(2).new(2, 3).shape == torch.zeros(2).new(2, 3).shape
    with pytest.warns(UserWarning, match="deprecated"):
        mt.range(3)


def test_sizes_strides_and_predicates_match_pytorch():
    x, tx = mt.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    assert x.nelement() == tx.nelement() and x.ndimension() == tx.ndimension() and mt.numel(x) == torch.numel(tx)
    for mine, theirs in [(x, tx), (x.transpose(0, 2), tx.transpose(0, 2)), (x[:, 1], tx[:, 1])]:
        assert mine.stride() == theirs.stride() and mine.is_contiguous() == theirs.is_contiguous()
    assert x.stride(1) == tx.stride(1)
    assert mt.is_floating_point(x) and not mt.is_floating_point(mt.arange(2)) and not mt.is_complex(x)
    y = mt.ones(1, requires_grad=True) * 2
    y.retain_grad()
    assert y.retains_grad and not (y * 1).retains_grad
    assert mt.detach_(mt.ones(1, requires_grad=True)).requires_grad is False


def test_finfo_and_iinfo_match_pytorch():
    for dtype in ("float16", "float32", "float64"):
        mine, theirs = mt.finfo(getattr(mt, dtype)), torch.finfo(getattr(torch, dtype))
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(mine, field) == getattr(theirs, field), (dtype, field)
    for dtype in ("uint8", "int8", "int16", "int32", "int64"):
        mine, theirs = mt.iinfo(getattr(mt, dtype)), torch.iinfo(getattr(torch, dtype))
        assert (mine.bits, mine.min, mine.max, mine.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert mt.finfo().dtype == torch.finfo().dtype
    with pytest.raises(TypeError):
        mt.finfo(mt.int64)
    with pytest.raises(TypeError):
        mt.iinfo(mt.bool)


def test_default_dtype_switches_floats_everywhere():
    try:
        mt.set_default_dtype(mt.float64)
        assert mt.get_default_dtype() == mt.float64
        assert {t.dtype for t in (mt.tensor([1.5]), mt.zeros(1), mt.rand(1), mt.arange(0.0, 1.0), mt.full((1,), 0.5))} \
            == {mt.float64}
        assert repr(mt.tensor([1.5])) == "tensor([1.5000])" and "float32" in repr(mt.tensor([1.5], dtype=mt.float32))
        with pytest.raises(TypeError):
            mt.set_default_dtype(mt.int64)
    finally:
        mt.set_default_dtype(mt.float32)
    assert mt.tensor([1.5]).dtype == mt.float32


def test_threads_are_the_blas_pool():
    before = mt.get_num_threads()
    try:
        mt.set_num_threads(1)
        assert mt.get_num_threads() == 1
        (mt.randn(64, 64) @ mt.randn(64, 64)).sum()
    finally:
        mt.set_num_threads(before)
    assert mt.get_num_threads() == before and mt.get_num_interop_threads() == 1
    with pytest.raises(RuntimeError):
        mt.set_num_threads(0)


def test_switches_read_back():
    mt.use_deterministic_algorithms(True, warn_only=True)
    assert mt.are_deterministic_algorithms_enabled() and mt.is_deterministic_algorithms_warn_only_enabled()
    assert mt.get_deterministic_debug_mode() == 1
    mt.set_deterministic_debug_mode("default")
    assert not mt.are_deterministic_algorithms_enabled()
    mt.set_float32_matmul_precision("medium")
    assert mt.get_float32_matmul_precision() == "medium"
    mt.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError):
        mt.set_float32_matmul_precision("low")
    mt.set_anomaly_enabled(True)
    assert mt.is_anomaly_enabled() and mt.is_anomaly_check_nan_enabled()
    mt.set_anomaly_enabled(False)
    assert not mt.is_anomaly_enabled() and not mt.is_vulkan_available()


def test_inference_mode_stops_recording_in_every_form():
    x = mt.ones(2, requires_grad=True)
    with mt.inference_mode():
        assert not (x * 2).requires_grad
    with mt.inference_mode(False):
        assert (x * 2).requires_grad

    @mt.inference_mode
    def bare():
        return x * 2

    @mt.inference_mode()
    def called():
        return x * 2

    assert not bare().requires_grad and not called().requires_grad and (x * 2).requires_grad


def test_surface_names_exist_with_pytorch_signatures():
    for name in ("device", "Generator", "get_rng_state", "set_rng_state", "initial_seed", "multinomial", "normal",
                 "poisson", "bernoulli", "get_default_device", "set_default_device", "set_printoptions",
                 "get_default_dtype", "set_default_dtype", "finfo", "iinfo", "inference_mode", "Size"):
        assert hasattr(mt, name) and hasattr(torch, name)
    assert math.isclose(mt.finfo(mt.float32).eps, 2**-23)
