"""Tests for minitorch.datasets: IDX files, MNIST-family loading and search order, downloads, embedded subset."""

import gzip
import hashlib
import http.server
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import minitorch as mt
from minitorch.datasets import (
    KMNIST,
    MNIST,
    ChecksumMismatchError,
    DatasetNotFoundError,
    DownloadError,
    FashionMNIST,
    IDXFormatError,
    embedded_fashion_mnist,
    read_idx,
    write_idx,
)
from minitorch.datasets.download import MIRROR_ENV_VAR, download_file
from minitorch.utils.data import DataLoader

# Read before the autouse fixture below replaces it for every test.
DEFAULT_FASHION_SYSTEM_DIRS = FashionMNIST.system_dirs

FILE_NAMES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


@pytest.fixture(autouse=True)
def isolated_search_paths(tmp_path, monkeypatch):
    """No test may see the user's data, cache or the machine's Debian package."""
    monkeypatch.delenv("MINITORCH_DATA", raising=False)
    monkeypatch.delenv(MIRROR_ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(FashionMNIST, "system_dirs", (str(tmp_path / "no-system-dir"),))


def write_split(directory, train=True, n=12, gz=True, label_offset=0):
    """Write a small fake MNIST split; image i is filled with value i, label (i + offset) % 10."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    images = np.repeat(np.arange(n, dtype=np.uint8)[:, None, None], 28 * 28, axis=1).reshape(n, 28, 28)
    images[:, 0, 0] = 255
    labels = ((np.arange(n) + label_offset) % 10).astype(np.uint8)
    suffix = ".gz" if gz else ""
    images_name, labels_name = FILE_NAMES[train]
    write_idx(directory / (images_name + suffix), images)
    write_idx(directory / (labels_name + suffix), labels)
    return images, labels


# -- IDX -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("name", ["a.idx", "a.idx.gz"])
def test_idx_round_trip(tmp_path, dtype, name):
    array = (np.arange(24) - 5).astype(dtype).reshape(2, 3, 4)
    write_idx(tmp_path / name, array)
    back = read_idx(tmp_path / name)
    assert back.dtype == np.dtype(dtype) and back.dtype.isnative and back.flags.writeable
    np.testing.assert_array_equal(back, array)


def test_idx_gzip_detected_by_content_not_name(tmp_path):
    write_idx(tmp_path / "labels", np.arange(5, dtype=np.uint8), compress=True)
    assert (tmp_path / "labels").read_bytes()[:2] == b"\x1f\x8b"
    np.testing.assert_array_equal(read_idx(tmp_path / "labels"), np.arange(5))


def test_idx_header_layout(tmp_path):
    write_idx(tmp_path / "x", np.zeros((2, 3), np.uint8))
    assert (tmp_path / "x").read_bytes() == bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + bytes(6)


def write_raw(path, content):
    Path(path).write_bytes(content)
    return path


def labels_bytes(n=4, declared=None):
    declared = n if declared is None else declared
    return bytes([0, 0, 8, 1]) + declared.to_bytes(4, "big") + bytes(range(n))


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"", "shorter than the 4-byte magic"),
        (bytes([1, 2, 8, 1]) + bytes(8), "bad magic number 0x01020801"),
        (bytes([0, 0, 0x42, 1]) + bytes(8), "unknown dtype code 0x42"),
        (bytes([0, 0, 8, 0]), "0 dimensions"),
        (bytes([0, 0, 8, 3, 0, 0, 0, 5]), "truncated header"),
        (labels_bytes(4, declared=10), "truncated data"),
        (labels_bytes(4, declared=3), "1 unexpected trailing bytes"),
        (bytes([0, 0, 0x0C, 1, 0, 0, 0, 2]) + bytes(5), "need 8 bytes"),
    ],
)
def test_idx_corrupt_files_name_file_and_problem(tmp_path, content, problem):
    path = write_raw(tmp_path / "broken-idx1-ubyte", content)
    with pytest.raises(IDXFormatError, match=problem) as info:
        read_idx(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_idx_truncated_gzip(tmp_path):
    good = gzip.compress(labels_bytes(1000 % 256))
    path = write_raw(tmp_path / "cut.gz", good[: len(good) // 2])
    with pytest.raises(IDXFormatError, match="gzip") as info:
        read_idx(path)
    assert "cut.gz" in str(info.value)


def test_idx_gzip_of_truncated_idx(tmp_path):
    path = write_raw(tmp_path / "short.gz", gzip.compress(labels_bytes(4, declared=9)))
    with pytest.raises(IDXFormatError, match="truncated data"):
        read_idx(path)


def test_idx_expected_kind(tmp_path):
    write_idx(tmp_path / "labels", np.zeros(3, np.uint8))
    with pytest.raises(IDXFormatError, match="has 1 dimension\\(s\\), expected 3"):
        read_idx(tmp_path / "labels", expected_ndim=3)
    write_idx(tmp_path / "floats", np.zeros(3, np.float32))
    with pytest.raises(IDXFormatError, match="holds float32, expected uint8"):
        read_idx(tmp_path / "floats", expected_dtype=np.uint8)


def test_idx_writer_rejects_unsupported(tmp_path):
    with pytest.raises(ValueError, match="int64"):
        write_idx(tmp_path / "x", np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="dimensions"):
        write_idx(tmp_path / "x", np.float32(1.0))


# -- MNIST-family loading ---------------------------------------------------------------


@pytest.mark.parametrize("gz", [True, False])
def test_mnist_loads_like_torchvision(tmp_path, gz):
    images, labels = write_split(tmp_path, train=False, n=12, gz=gz)
    ds = MNIST(tmp_path, train=False)
    assert len(ds) == 12
    assert ds.data.dtype == np.uint8 and ds.data.shape == (12, 28, 28)
    assert ds.targets.dtype == np.int64 and ds.targets.tolist() == labels.tolist()
    image, label = ds[3]  # torchvision's PIL image, as a uint8 array
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape == (28, 28)
    assert isinstance(label, int) and label == 3
    assert image[0, 0] == 255 and image[5, 5] == 3
    image[0, 0] = 0  # an item is a copy: writing into it leaves the split alone
    assert ds.data[3, 0, 0] == 255
    pixels = mt.datasets.transforms.ToTensor()(ds[3][0])
    assert pixels.dtype == mt.float32 and pixels.shape == (1, 28, 28)
    assert pixels[0, 0, 0].item() == 1.0 and np.isclose(pixels[0, 5, 5].item(), 3 / 255)
    all_images, all_labels = ds.arrays()
    assert all_images.shape == (12, 28, 28) and all_images.dtype == np.uint8
    assert all_labels.dtype == np.int64
    np.testing.assert_array_equal(all_images[3], ds[3][0])
    assert "Split: Test" in repr(ds)


def test_optional_arguments_are_keyword_only(tmp_path):
    write_split(tmp_path, n=3)
    with pytest.raises(TypeError):
        MNIST(tmp_path, True, True)


def test_mnist_transforms_apply_and_force_slow_path(tmp_path):
    write_split(tmp_path, n=6)
    ds = MNIST(tmp_path, transform=lambda img: int(img.sum()), target_transform=lambda y: y + 100)
    value, label = ds[2]
    assert label == 102 and value == 2 * 783 + 255
    assert not DataLoader(ds, batch_size=4).uses_array_batching


def test_mnist_dataloader_fast_path_matches_getitem(tmp_path):
    write_split(tmp_path, n=10)
    ds = MNIST(tmp_path)
    loader = DataLoader(ds, batch_size=4, shuffle=True, seed=3)
    assert loader.uses_array_batching
    slow = DataLoader(ds, batch_size=4, shuffle=True, seed=3, collate_fn=__import__(
        "minitorch.utils.data", fromlist=["default_collate"]).default_collate)
    for (fx, fy), (sx, sy) in zip(loader, slow, strict=True):
        assert fx.dtype == mt.uint8 and fy.dtype == mt.int64 and tuple(fx.shape)[1:] == (28, 28)
        np.testing.assert_array_equal(fx.numpy(), sx.numpy())
        np.testing.assert_array_equal(fy.numpy(), sy.numpy())


def test_mnist_arrays_follow_replaced_data(tmp_path):
    write_split(tmp_path, n=10)
    ds = MNIST(tmp_path)
    assert len(ds.arrays()[0]) == 10
    ds.data, ds.targets = ds.data[:4], ds.targets[:4]
    assert len(ds.arrays()[0]) == 4 and len(ds) == 4


def test_mismatched_images_and_labels(tmp_path):
    write_split(tmp_path, n=5)
    write_idx(tmp_path / "train-labels-idx1-ubyte.gz", np.zeros(4, np.uint8))
    with pytest.raises(IDXFormatError, match="4 labels but train-images-idx3-ubyte.gz has 5 images"):
        MNIST(tmp_path)


def test_label_out_of_range(tmp_path):
    write_split(tmp_path, n=5)
    write_idx(tmp_path / "train-labels-idx1-ubyte.gz", np.full(5, 10, np.uint8))
    with pytest.raises(IDXFormatError, match="label 10 out of range"):
        MNIST(tmp_path)


def test_labels_file_given_as_images_is_rejected(tmp_path):
    write_split(tmp_path, n=5)
    write_idx(tmp_path / "train-images-idx3-ubyte.gz", np.zeros(5, np.uint8))
    with pytest.raises(IDXFormatError, match="expected 3"):
        MNIST(tmp_path)


# -- where the files are looked for -----------------------------------------------------------


def first_label(ds):
    return int(ds.targets[0])


def test_search_order_root_env_cache_system(tmp_path, monkeypatch):
    root, env, home = tmp_path / "root", tmp_path / "env", tmp_path / "home"
    system = tmp_path / "system"
    write_split(system, label_offset=4)
    monkeypatch.setattr(FashionMNIST, "system_dirs", (str(system),))
    assert first_label(FashionMNIST()) == 4
    write_split(home / ".cache" / "minitorch" / "FashionMNIST" / "raw", label_offset=3)
    assert first_label(FashionMNIST()) == 3
    write_split(env / "FashionMNIST", label_offset=2)
    monkeypatch.setenv("MINITORCH_DATA", str(env))
    assert first_label(FashionMNIST()) == 2
    write_split(root / "FashionMNIST" / "raw", label_offset=1, gz=False)  # torchvision's layout
    assert first_label(FashionMNIST(root)) == 1
    write_split(root, label_offset=0)
    assert first_label(FashionMNIST(root)) == 0
    # A root without the files falls through to the next places.
    assert first_label(FashionMNIST(tmp_path / "empty")) == 2


def test_shared_folders_only_match_the_class_subfolder(tmp_path, monkeypatch):
    write_split(tmp_path / "env")  # files directly in $MINITORCH_DATA: whose are they? not used
    monkeypatch.setenv("MINITORCH_DATA", str(tmp_path / "env"))
    with pytest.raises(DatasetNotFoundError):
        MNIST()


def test_default_system_dir_is_debians():
    assert "/usr/share/datasets/fashion-mnist" in DEFAULT_FASHION_SYSTEM_DIRS


def test_missing_dataset_message(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_DATA", str(tmp_path / "env"))
    with pytest.raises(DatasetNotFoundError) as info:
        FashionMNIST(tmp_path / "r", train=False)
    message = str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    for expected in ("FashionMNIST test split not found", "t10k-images-idx3-ubyte[.gz]",
                     str(tmp_path / "r"), str(tmp_path / "r" / "FashionMNIST" / "raw"),
                     str(tmp_path / "env" / "FashionMNIST" / "raw"),
                     str(tmp_path / "home" / ".cache" / "minitorch" / "FashionMNIST"),
                     "download=True", "apt-get install dataset-fashion-mnist", "embedded=True"):
        assert expected in message, expected
    with pytest.raises(DatasetNotFoundError) as info:
        KMNIST()
    assert "download=True" in str(info.value) and "dataset-fashion-mnist" not in str(info.value)


def test_partial_split_is_not_found(tmp_path):
    write_split(tmp_path)
    os.remove(tmp_path / "train-labels-idx1-ubyte.gz")
    with pytest.raises(DatasetNotFoundError):
        MNIST(tmp_path)


# -- downloads from a local HTTP server ------------------------------------------------------


class LocalServer:
    """Serves files from a directory on 127.0.0.1; paths under /short/ send half the body."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.requests = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                short = self.path.startswith("/short/")
                path = server.directory / self.path.removeprefix("/short/").lstrip("/")
                if not path.is_file():
                    self.send_error(404, "File not found")
                    return
                body = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if short else body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def served(tmp_path, monkeypatch):
    """A local server holding a small fake MNIST; MNIST.resources point at its files and MD5s."""
    files = tmp_path / "served"
    write_split(files, train=True, n=8)
    write_split(files, train=False, n=4)
    resources = [(p.name, hashlib.md5(p.read_bytes()).hexdigest()) for p in sorted(files.iterdir())]
    monkeypatch.setattr(MNIST, "resources", resources)
    server = LocalServer(files)
    monkeypatch.setenv(MIRROR_ENV_VAR, server.url)
    yield server
    server.close()


def leftovers(directory):
    return sorted(p.name for p in Path(directory).rglob("*") if p.is_file())


def test_download_fetches_verifies_and_loads(served, tmp_path, capsys):
    ds = MNIST(tmp_path / "data", download=True)
    raw = tmp_path / "data" / "MNIST" / "raw"
    assert len(ds) == 8 and ds.raw_folder == raw and ds.root == tmp_path / "data"
    assert leftovers(raw) == sorted(name for name, _ in MNIST.resources)
    assert len(served.requests) == 4
    err = capsys.readouterr().err
    assert "train-images-idx3-ubyte.gz" in err and "100%" in err  # the tqdm progress bar
    # Second time: found, nothing fetched; download=True with files present also fetches nothing.
    assert len(MNIST(tmp_path / "data", train=False, download=True)) == 4
    assert len(served.requests) == 4


def test_download_defaults_to_minitorch_data(served, tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_DATA", str(tmp_path / "env"))
    MNIST(download=True)
    assert (tmp_path / "env" / "MNIST" / "raw" / "t10k-labels-idx1-ubyte.gz").is_file()


def test_download_md5_mismatch_leaves_nothing(served, tmp_path, monkeypatch):
    bad = [(name, "0" * 32) for name, _ in MNIST.resources]
    monkeypatch.setattr(MNIST, "resources", bad)
    with pytest.raises(DownloadError, match="MD5 mismatch") as info:
        MNIST(tmp_path / "data", download=True)
    assert "could not download" in str(info.value) and served.url in str(info.value)
    assert leftovers(tmp_path / "data") == []
    with pytest.raises(ChecksumMismatchError):
        download_file(served.url + bad[0][0], tmp_path / "one" / bad[0][0], bad[0][1], progress=False)
    assert leftovers(tmp_path / "one") == []


def test_download_cut_off_transfer_leaves_nothing(served, tmp_path):
    name, md5 = MNIST.resources[0]
    with pytest.raises(DownloadError, match="short/.*(connection ended|transfer failed)"):
        download_file(served.url + "short/" + name, tmp_path / "out" / name, md5, progress=False)
    assert leftovers(tmp_path / "out") == []


def test_download_replaces_a_corrupt_file_atomically(served, tmp_path):
    raw = tmp_path / "data" / "MNIST" / "raw"
    write_split(raw, n=8)
    (raw / "train-images-idx3-ubyte.gz").write_bytes(b"half a file")
    # A bad file under the final name is not "found": load fails clearly, download repairs it.
    with pytest.raises(IDXFormatError):
        MNIST(tmp_path / "data")
    MNIST.download(tmp_path / "data", progress=False)
    assert len(MNIST(tmp_path / "data")) == 8


def test_download_tries_next_mirror(served, tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV_VAR, f"{served.url}missing/, {served.url}")
    MNIST.download(tmp_path / "d", progress=False)
    assert any(r.startswith("/missing/") for r in served.requests)
    assert len(MNIST(tmp_path / "d")) == 8


def test_download_all_mirrors_fail(served, tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV_VAR, f"{served.url}nowhere/")
    with pytest.raises(DownloadError, match="404"):
        MNIST(tmp_path / "d", download=True)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_downloaded_files_respect_the_umask(served, tmp_path, umask, mask, mode):
    umask(mask)
    MNIST.download(tmp_path / "d", progress=False)
    files = list((tmp_path / "d" / "MNIST" / "raw").iterdir())
    assert len(files) == 4 and {f.stat().st_mode & 0o777 for f in files} == {mode}


def test_an_unreachable_server_leaves_no_folder_behind(tmp_path, monkeypatch):
    # Port 1 on the loopback: nothing listens, so the connection is refused at once (as offline).
    monkeypatch.setenv(MIRROR_ENV_VAR, "http://127.0.0.1:1/")
    with pytest.raises(DownloadError) as info:
        MNIST(tmp_path / "cache", download=True)
    message = str(info.value)
    assert "\n" not in message and "could not download train-images-idx3-ubyte.gz" in message
    assert "127.0.0.1:1" in message
    assert not (tmp_path / "cache").exists()


def test_a_failed_transfer_removes_the_folders_it_created(served, tmp_path):
    name, _ = MNIST.resources[0]
    (tmp_path / "existing").mkdir()
    with pytest.raises(ChecksumMismatchError):
        download_file(served.url + name, tmp_path / "existing" / "a" / "b" / name, "0" * 32, progress=False)
    assert list((tmp_path / "existing").iterdir()) == []


def test_download_refuses_non_http(tmp_path):
    with pytest.raises(DownloadError, match="only http and https"):
        download_file((tmp_path / "x").as_uri(), tmp_path / "y")


def test_known_checksums_are_md5_hex():
    for cls in (MNIST, FashionMNIST, KMNIST):
        assert len(cls.__dict__["resources"]) == 4
        for name, md5 in cls.__dict__["resources"]:
            assert name.endswith(".gz") and len(md5) == 32 and int(md5, 16) >= 0


# -- the embedded Fashion-MNIST subset ---------------------------------------------------------


@pytest.mark.parametrize("train, per_class", [(True, 600), (False, 100)])
def test_embedded_subset(train, per_class):
    ds = FashionMNIST(train=train, embedded=True)
    assert len(ds) == 10 * per_class
    assert ds.data.shape == (10 * per_class, 28, 28) and ds.data.dtype == np.uint8
    assert np.bincount(ds.targets, minlength=10).tolist() == [per_class] * 10
    image, label = ds[0]
    assert image.dtype == np.uint8 and image.shape == (28, 28) and 0 <= label < 10
    assert ds.data.std() > 10  # real pictures, not blanks
    helper = embedded_fashion_mnist(train=train)
    np.testing.assert_array_equal(helper.data, ds.data)
    licence = Path(ds.raw_folder) / "LICENSE"
    assert "MIT" in licence.read_text() and "Zalando" in licence.read_text()


def test_embedded_subset_through_dataloader():
    loader = DataLoader(embedded_fashion_mnist(train=False), batch_size=256, shuffle=True, seed=0)
    assert loader.uses_array_batching and len(loader) == 4
    x, y = next(iter(loader))
    assert tuple(x.shape) == (256, 28, 28) and x.dtype == mt.uint8 and y.dtype == mt.int64


def test_embedded_rejects_root_and_download(tmp_path):
    with pytest.raises(ValueError, match="embedded=True"):
        FashionMNIST(tmp_path, embedded=True)
    with pytest.raises(ValueError, match="embedded=True"):
        FashionMNIST(download=True, embedded=True)


# -- against the real Fashion-MNIST when Debian's dataset-fashion-mnist is installed -------------

DEBIAN_FASHION = Path("/usr/share/datasets/fashion-mnist")
needs_debian_fashion = pytest.mark.skipif(
    not (DEBIAN_FASHION / "train-images-idx3-ubyte.gz").is_file(),
    reason="apt-get install dataset-fashion-mnist to run",
)


@needs_debian_fashion
def test_full_fashion_mnist_from_debian_package(monkeypatch):
    monkeypatch.setattr(FashionMNIST, "system_dirs", DEFAULT_FASHION_SYSTEM_DIRS)
    test = FashionMNIST(train=False)
    assert len(test) == 10_000 and test.raw_folder == DEBIAN_FASHION
    assert np.bincount(test.targets).tolist() == [1000] * 10


@needs_debian_fashion
def test_embedded_subset_is_regenerated_byte_for_byte(tmp_path):
    # Byte for byte on every Python: the script writes the gzip header itself (gzip.compress's
    # OS byte is 255 on Python 3.10 and 3.13, 3 on 3.11 and 3.12).
    script = Path(__file__).resolve().parent.parent / "scripts" / "make_embedded_fashion_mnist.py"
    subprocess.run([sys.executable, str(script), "--source", str(DEBIAN_FASHION), "--out", str(tmp_path)],
                   check=True, capture_output=True)
    shipped = Path(embedded_fashion_mnist(train=False).raw_folder)
    for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                 "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"):
        regenerated, expected = (tmp_path / name).read_bytes(), (shipped / name).read_bytes()
        assert regenerated[:10] == bytes.fromhex("1f8b0800000000000203"), name  # mtime 0, XFL 2, OS 3
        assert gzip.decompress(regenerated) == gzip.decompress(expected), name
        assert regenerated == expected, name
    assert (tmp_path / "LICENSE").read_text() == (shipped / "LICENSE").read_text()
    # Every embedded image is a real Fashion-MNIST image with its real label.
    full_images = read_idx(DEBIAN_FASHION / "t10k-images-idx3-ubyte.gz")
    full_labels = read_idx(DEBIAN_FASHION / "t10k-labels-idx1-ubyte.gz")
    subset = embedded_fashion_mnist(train=False)
    lookup = {full_images[i].tobytes(): full_labels[i] for i in range(len(full_images))}
    assert all(lookup[img.tobytes()] == label for img, label in zip(subset.data, subset.targets))


def test_data_code_never_unpickles():
    import minitorch.datasets
    import minitorch.utils.data

    sources = list(Path(minitorch.datasets.__file__).parent.glob("*.py")) + list(Path(minitorch.utils.data.__file__).parent.glob("*.py"))
    for source in sources:
        text = source.read_text()
        assert not re.search(r"import pickle|pickle\.|np\.load\(", text), source
