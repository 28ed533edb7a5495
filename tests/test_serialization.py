"""mt.save / mt.load: safetensors round trips, exact tensor keys, PyTorch interchange, refusing foreign files."""
import io
import json
import math
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest
import safetensors.numpy

import minitorch as mt
from minitorch import optim
from minitorch.serialization import CheckpointError


def _same(a, b):
    """Deep equality that also checks Python types and tensor dtypes."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, mt.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b) and all(type(x) is type(y) for x, y in zip(a, b))
        for key in a:
            _same(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def test_nested_round_trip_keeps_every_type(tmp_path):
    obj = {
        "model": {"0.weight": mt.randn(3, 4), "0.bias": mt.zeros(3, dtype=mt.float64, requires_grad=True)},
        "int keys": {0: "zero", "0": "string zero", 7: [1, 2.5, None, True, False]},
        "arrays": (np.arange(6, dtype=np.int32).reshape(2, 3), np.array(3.5), np.ones(2, dtype=bool)),
        "tensors of every dtype": [mt.tensor(np.arange(3).astype(dt)) for dt in
                                   (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                                    np.uint8, np.bool_)],
        "scalar tensor": mt.tensor(2.0),
        "numpy scalar": np.float32(1.25),
        "floats": [float("inf"), -float("inf"), float("nan"), -0.0, 1e-300],
        "text": "héllo ∑ \"quoted\" \\ back.slash",
        "empty": {"list": [], "dict": {}, "tuple": (), "tensor": mt.zeros(0, 3)},
        "big int": 2 ** 62,
        "transposed": np.arange(6.0).reshape(2, 3).T,
    }
    mt.save(obj, tmp_path / "all.safetensors")
    loaded = mt.load(tmp_path / "all.safetensors")
    _same(obj, loaded)
    assert math.copysign(1.0, loaded["floats"][3]) == -1.0


def test_top_level_tensor_dict_uses_exactly_its_keys(tmp_path):
    state = {"0.weight": mt.randn(3, 4), "0.bias": mt.randn(3), "2.weight": mt.randn(2, 3)}
    path = tmp_path / "model.safetensors"
    mt.save(state, path)
    raw = safetensors.numpy.load_file(str(path))
    assert sorted(raw) == sorted(state)
    for key, value in state.items():
        np.testing.assert_array_equal(raw[key], value.numpy())
    assert list(mt.load(path)) == list(state)  # insertion order comes back too


def test_nested_keys_are_dotted_and_collisions_stay_distinct(tmp_path):
    a, b, c = mt.tensor([1.0]), mt.tensor([2.0]), mt.tensor([3.0])
    obj = {"a.b": a, "a": {"b": b}, "__metadata__": c, "list": [mt.tensor([4.0])]}
    path = tmp_path / "clash.safetensors"
    mt.save(obj, path)
    keys = set(safetensors.numpy.load_file(str(path)))
    assert {"a.b", "list.0"} <= keys and len(keys) == 4
    _same(obj, mt.load(path))


def test_a_shared_tensor_is_stored_once_and_loads_shared(tmp_path):
    t = mt.randn(5)
    mt.save({"x": t, "y": [t]}, tmp_path / "shared.safetensors")
    assert len(safetensors.numpy.load_file(str(tmp_path / "shared.safetensors"))) == 1
    loaded = mt.load(tmp_path / "shared.safetensors")
    assert loaded["x"] is loaded["y"][0]


def test_loaded_tensors_are_writable_and_trainable(tmp_path):
    mt.save({"w": mt.ones(3, requires_grad=True)}, tmp_path / "w.safetensors")
    w = mt.load(tmp_path / "w.safetensors")["w"]
    assert w.requires_grad
    opt = optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    opt.step()
    np.testing.assert_array_equal(w.detach().numpy(), [0.0, 0.0, 0.0])


def test_optimizer_state_dict_round_trip_keeps_int_keys_and_tuples(tmp_path):
    params = [mt.tensor([1.0, 2.0], requires_grad=True), mt.tensor([3.0], requires_grad=True)]
    opt = optim.Adam([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.1, "amsgrad": True}])
    for p in params:
        p.grad = mt.ones(*p.shape)
    opt.step()
    mt.save(opt.state_dict(), tmp_path / "opt.safetensors")
    loaded = mt.load(tmp_path / "opt.safetensors")
    _same(opt.state_dict(), loaded)
    assert list(loaded["state"]) == [0, 1] and loaded["param_groups"][0]["betas"] == (0.9, 0.999)


def test_file_objects_and_overwriting(tmp_path):
    buffer = io.BytesIO()
    mt.save({"t": mt.arange(4)}, buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(mt.load(buffer)["t"].numpy(), [0, 1, 2, 3])
    path = tmp_path / "ckpt.safetensors"
    mt.save({"v": 1}, path)
    mt.save({"v": 2}, str(path))
    assert mt.load(str(path)) == {"v": 2}
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]  # no temporary files left behind


def test_a_plain_safetensors_file_loads_as_a_flat_dict_of_tensors(tmp_path):
    path = tmp_path / "foreign.safetensors"
    safetensors.numpy.save_file({"layer.weight": np.eye(2, dtype=np.float32), "layer.bias": np.zeros(2)}, str(path))
    loaded = mt.load(path)
    assert set(loaded) == {"layer.weight", "layer.bias"}
    assert all(isinstance(v, mt.Tensor) for v in loaded.values())
    assert loaded["layer.weight"].dtype == mt.float32 and loaded["layer.bias"].dtype == mt.float64


@pytest.mark.parametrize("obj, error, message", [
    ({"s": {1, 2}}, TypeError, "cannot store a set at key path 's'"),
    ({"f": print}, TypeError, "cannot store a builtin_function_or_method"),
    ({(1, 2): mt.zeros(1)}, TypeError, "dict keys must be str or int"),
    ({True: 1}, TypeError, "dict keys must be str or int"),
    ({"c": np.array([1 + 2j])}, TypeError, "dtype complex128"),
])
def test_unstorable_objects_raise_naming_where(obj, error, message, tmp_path):
    with pytest.raises(error, match=message):
        mt.save(obj, tmp_path / "bad.safetensors")
    assert not (tmp_path / "bad.safetensors").exists()


def test_a_cycle_raises(tmp_path):
    cycle = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="contains itself"):
        mt.save({"c": cycle}, tmp_path / "cycle.safetensors")


# ----- refusing what is not a checkpoint -----

class _RunsCodeWhenUnpickled:
    """A pickle payload whose loading would create a marker file (stands for arbitrary code)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_a_pickle_is_refused_and_never_runs(protocol, tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.safetensors"
    path.write_bytes(pickle.dumps({"weights": _RunsCodeWhenUnpickled(marker)}, protocol=protocol))
    with pytest.raises(CheckpointError, match="pickle") as info:
        mt.load(path)
    assert str(path) in str(info.value)
    assert not marker.exists()


def _valid_bytes():
    buffer = io.BytesIO()
    mt.save({"w": mt.randn(4, 4), "epoch": 3}, buffer)
    return buffer.getvalue()


def _with_metadata(tree_json):
    return safetensors.numpy.save({"w": np.zeros(2)}, metadata={"minitorch": tree_json})


@pytest.mark.parametrize("content, message", [
    (b"", "empty"),
    (b"\x01\x02", "too short"),
    (_valid_bytes()[:-5], r"holds \d+ bytes where its header declares \d+ \(truncated\)"),
    (_valid_bytes()[:20], "not a safetensors file"),
    (b"\xff" * 64, "not a safetensors file"),
    (struct.pack("<Q", 5) + b"{oops", "not a safetensors file"),
    (struct.pack("<Q", 2) + b"[]", "not a safetensors file"),
    (_with_metadata("{not json"), "structure in its metadata is damaged"),
    (_with_metadata(json.dumps({"version": 99, "tree": None})), "format version 99"),
    (_with_metadata(json.dumps({"version": 1, "tree": {"tensor": "missing"}})), "does not hold"),
    (_with_metadata(json.dumps({"version": 1, "tree": {"weird": 1}})), "unexpected entry"),
])
def test_damaged_or_foreign_files_raise_checkpoint_error_naming_the_file(content, message, tmp_path):
    path = tmp_path / "broken.safetensors"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=message) as info:
        mt.load(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_zip_archive_is_refused(tmp_path):
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    with pytest.raises(CheckpointError, match="zip archive"):
        mt.load(path)


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        mt.load(tmp_path / "nope.safetensors")


# ----- PyTorch interchange (optional) -----

def _forward(state, x):
    h = mt.relu(x @ state["0.weight"].T + state["0.bias"])
    return h @ state["2.weight"].T + state["2.bias"]


def test_minitorch_weights_load_into_pytorch_and_back(tmp_path):
    torch = pytest.importorskip("torch")
    import safetensors.torch

    mt.manual_seed(0)
    state = {"0.weight": mt.randn(3, 4, dtype=mt.float64), "0.bias": mt.randn(3, dtype=mt.float64),
             "2.weight": mt.randn(2, 3, dtype=mt.float64), "2.bias": mt.randn(2, dtype=mt.float64)}
    path = tmp_path / "mine.safetensors"
    mt.save(state, path)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2)).double()
    model.load_state_dict(safetensors.torch.load_file(str(path)), strict=True)
    x = np.random.default_rng(0).normal(size=(5, 4))
    np.testing.assert_allclose(model(torch.from_numpy(x)).detach().numpy(), _forward(state, mt.tensor(x)).numpy(),
                               rtol=1e-12)

    with torch.no_grad():
        for p in model.parameters():
            p.mul_(2.0)
    theirs = tmp_path / "theirs.safetensors"
    safetensors.torch.save_file(model.state_dict(), str(theirs))
    loaded = mt.load(theirs)
    assert set(loaded) == set(state)
    for key, value in model.state_dict().items():
        assert isinstance(loaded[key], mt.Tensor) and loaded[key].dtype == mt.float64
        np.testing.assert_array_equal(loaded[key].numpy(), value.numpy())


def test_a_torch_save_file_is_refused_without_running_it(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "model.pt"
    torch.save({"w": torch.zeros(2)}, path)
    with pytest.raises(CheckpointError, match="torch.save") as info:
        mt.load(path)
    assert str(path) in str(info.value)
    legacy = tmp_path / "legacy.pt"
    marker = tmp_path / "pwned"
    torch.save({"w": _RunsCodeWhenUnpickled(marker)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(CheckpointError, match="pickle"):
        mt.load(legacy)
    assert not marker.exists()
