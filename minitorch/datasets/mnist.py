"""MNIST, Fashion-MNIST and Kuzushiji-MNIST read from their standard IDX files.

Each split is loaded whole into memory (``.data`` uint8 (N, 28, 28),
``.targets`` int64 (N,)). ``dataset[i]`` gives ``(image, label)`` as
torchvision does, with a uint8 numpy array (28, 28) where torchvision gives a
PIL image: ``transform=transforms.ToTensor()`` makes it the float32 tensor
(1, 28, 28) in [0, 1] that torchvision's ToTensor makes, and
``Compose([ToTensor(), Normalize((0.1307,), (0.3081,))])`` gives torchvision's
tensors. ``arrays()`` gives the whole split, as the items are: uint8
(N, 28, 28) images and int64 labels, which the DataLoader batches by fancy
indexing when no transform is set.

Where files are looked for, in order (each directory may hold the files raw or
gzipped):
  1. ``root`` itself, ``root/<ClassName>/raw`` (torchvision's layout) and ``root/<ClassName>``;
  2. ``$MINITORCH_DATA/<ClassName>/raw`` and ``$MINITORCH_DATA/<ClassName>``;
  3. ``~/.cache/minitorch/<ClassName>/raw`` and ``~/.cache/minitorch/<ClassName>``;
  4. system directories of a distribution package (Fashion-MNIST: Debian's
     ``dataset-fashion-mnist`` in ``/usr/share/datasets/fashion-mnist``).
Only an explicit ``root`` is searched directly, so one dataset's files sitting
in a shared folder are never mistaken for another's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import numpy as np

from ..utils.data import Dataset
from .download import download_resources, resolve_mirrors
from .idx import IDXFormatError, read_idx

__all__ = [
    "MNIST",
    "FashionMNIST",
    "KMNIST",
    "DatasetNotFoundError",
    "DATA_ENV_VAR",
    "EMBEDDED_DIR",
    "embedded_fashion_mnist",
]

DATA_ENV_VAR = "MINITORCH_DATA"
EMBEDDED_DIR = Path(__file__).resolve().parent / "embedded"


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "minitorch"


class DatasetNotFoundError(FileNotFoundError):
    """The files of a dataset split are in none of the places searched (a FileNotFoundError listing them).

    >>> issubclass(mt.datasets.DatasetNotFoundError, FileNotFoundError)
    True
    >>> mt.datasets.MNIST("nowhere")  # doctest: +SKIP
    Traceback (most recent call last):
        ...
    minitorch.datasets.mnist.DatasetNotFoundError: ...
    """


def _split_files(train: bool) -> tuple[str, str]:
    prefix = "train" if train else "t10k"
    return f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"


def _find_file(directory: Path, name: str) -> Path | None:
    # Prefer the raw file: it reads faster than the gzip.
    for candidate in (directory / name, directory / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    return None


class MNIST(Dataset):
    """The MNIST handwritten digits (60,000 train / 10,000 test images, 28x28 grey), as torchvision.datasets.MNIST.

    Samples are (uint8 image array (28, 28), int label), as torchvision's are with
    a PIL image; `transform=mt.datasets.transforms.ToTensor()` gives the float32
    (1, 28, 28) tensor in [0, 1]. The files are looked for under `root` (and the
    cache directories); `download=True` fetches them.

    >>> from minitorch.datasets import write_idx
    >>> _ = write_idx("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8))  # a tiny stand-in split
    >>> _ = write_idx("train-labels-idx1-ubyte", np.array([7, 2, 1], np.uint8))
    >>> digits = mt.datasets.MNIST(".")
    >>> image, label = digits[0]
    >>> len(digits), image.shape, image.dtype, label, digits.classes[label]
    (3, (28, 28), dtype('uint8'), 7, '7 - seven')
    >>> T = mt.datasets.transforms
    >>> mt.datasets.MNIST(".", transform=T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))]))[0][0].shape
    minitorch.Size([1, 28, 28])
    >>> mt.datasets.MNIST("data", download=True)  # doctest: +SKIP
    """

    mirrors: list[str] = [
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "http://yann.lecun.com/exdb/mnist/",
    ]
    # (file name, MD5 of the .gz) as published in torchvision's MNIST.resources.
    resources: list[tuple[str, str]] = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    classes: list[str] = [
        "0 - zero", "1 - one", "2 - two", "3 - three", "4 - four",
        "5 - five", "6 - six", "7 - seven", "8 - eight", "9 - nine",
    ]  # fmt: skip
    # Directories where an OS package installs the files, searched last.
    system_dirs: tuple[str, ...] = ()
    # Extra ways to get the data, appended to the not-found message.
    install_hints: tuple[str, ...] = ()

    def __init__(
        self,
        root: str | os.PathLike | None = None,
        train: bool = True,
        *,
        download: bool = False,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ):
        # Keyword-only after ``train``: torchvision's positional order is (transform,
        # target_transform, download), so positional calls would silently mean different things.
        self.train = bool(train)
        self.transform = transform
        self.target_transform = target_transform
        self.root = None if root is None else Path(root).expanduser()
        images_path, labels_path = self._locate(download)
        self._load(images_path, labels_path)

    # -- finding the files -------------------------------------------------

    @classmethod
    def search_dirs(cls, root: str | os.PathLike | None = None) -> list[Path]:
        """Every directory looked in, in order (see the module docstring).

        >>> [d.as_posix() for d in mt.datasets.MNIST.search_dirs("data")][:3]
        ['data', 'data/MNIST/raw', 'data/MNIST']
        """
        name = cls.__name__
        dirs: list[Path] = []
        if root is not None:
            root = Path(root).expanduser()
            dirs += [root, root / name / "raw", root / name]
        for base in (os.environ.get(DATA_ENV_VAR), default_cache_dir()):
            if base:
                base = Path(base).expanduser()
                dirs += [base / name / "raw", base / name]
        dirs += [Path(d) for d in cls.system_dirs]
        return dirs

    @classmethod
    def download_dir(cls, root: str | os.PathLike | None = None) -> Path:
        """Where ``download=True`` puts the files (torchvision's ``<root>/<ClassName>/raw``).

        >>> mt.datasets.KMNIST.download_dir("data").as_posix()
        'data/KMNIST/raw'
        """
        if root is not None:
            base = Path(root).expanduser()
        elif os.environ.get(DATA_ENV_VAR):
            base = Path(os.environ[DATA_ENV_VAR]).expanduser()
        else:
            base = default_cache_dir()
        return base / cls.__name__ / "raw"

    def _find_split(self) -> tuple[Path, Path] | None:
        images_name, labels_name = _split_files(self.train)
        for directory in self.search_dirs(self.root):
            images, labels = _find_file(directory, images_name), _find_file(directory, labels_name)
            if images is not None and labels is not None:
                return images, labels
        return None

    def _locate(self, download: bool) -> tuple[Path, Path]:
        found = self._find_split()
        if found is None and download:
            self.download(self.root)
            found = self._find_split()
        if found is None:
            raise DatasetNotFoundError(self._not_found_message())
        return found

    def _not_found_message(self) -> str:
        images_name, labels_name = _split_files(self.train)
        split = "train" if self.train else "test"
        looked = "\n".join(f"  {d}" for d in self.search_dirs(self.root))
        how = [
            f"pass download=True to fetch it into {self.download_dir(self.root)}",
            f"or put the files in one of the directories above (set ${DATA_ENV_VAR} to choose your own)",
            *self.install_hints,
        ]
        return (
            f"{type(self).__name__} {split} split not found: looked for {images_name}[.gz] and "
            f"{labels_name}[.gz] in:\n{looked}\nTo get it:\n" + "\n".join(f"  - {line}" for line in how)
        )

    @classmethod
    def download(cls, root: str | os.PathLike | None = None, *, progress: bool = True) -> Path:
        """Fetch all four files (both splits) into :meth:`download_dir`; returns that directory.

        Mirrors come from ``cls.mirrors`` unless ``$MINITORCH_DATASETS_MIRROR`` is set.
        """
        directory = cls.download_dir(root)
        download_resources(directory, cls.resources, resolve_mirrors(cls.mirrors), progress=progress)
        return directory

    # -- loading ------------------------------------------------------------

    def _load(self, images_path: Path, labels_path: Path) -> None:
        images = read_idx(images_path, expected_ndim=3, expected_dtype=np.uint8)
        labels = read_idx(labels_path, expected_ndim=1, expected_dtype=np.uint8)
        if len(images) != len(labels):
            raise IDXFormatError(
                labels_path, f"has {len(labels)} labels but {images_path.name} has {len(images)} images"
            )
        if labels.size and labels.max() >= len(self.classes):
            raise IDXFormatError(
                labels_path, f"label {int(labels.max())} out of range for {len(self.classes)} classes"
            )
        self.raw_folder = images_path.parent  # where the files were found
        self.data = images
        self.targets = labels.astype(np.int64)

    @property
    def class_to_idx(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.classes)}

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, index: int):
        image = self.data[index].copy()  # a transform may write into it; the split stays intact
        target = int(self.targets[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The whole split, as the items are: uint8 images (N, 28, 28) and int64 labels (N,).

        >>> from minitorch.datasets import write_idx
        >>> _ = write_idx("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8))  # a tiny stand-in split
        >>> _ = write_idx("train-labels-idx1-ubyte", np.array([7, 2, 1], np.uint8))
        >>> images, labels = mt.datasets.MNIST(".").arrays()
        >>> images.shape, images.dtype, labels.tolist()
        ((3, 28, 28), dtype('uint8'), [7, 2, 1])
        """
        return np.asarray(self.data), np.asarray(self.targets, dtype=np.int64)

    def __repr__(self) -> str:
        lines = [
            f"Dataset {type(self).__name__}",
            f"    Number of datapoints: {len(self)}",
            f"    Files: {self.raw_folder}",
            f"    Split: {'Train' if self.train else 'Test'}",
        ]
        if self.transform is not None:
            lines.append(f"    Transform: {self.transform!r}")
        if self.target_transform is not None:
            lines.append(f"    Target transform: {self.target_transform!r}")
        return "\n".join(lines)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 10 clothing classes, same format as MNIST.

    ``FashionMNIST(embedded=True)`` loads the balanced subset shipped inside
    minitorch (600 train / 100 test images per class), with no file or network.

    >>> test = mt.datasets.FashionMNIST(train=False, embedded=True)
    >>> len(test), test.classes[:3]
    (1000, ['T-shirt/top', 'Trouser', 'Pullover'])
    """

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
    system_dirs = ("/usr/share/datasets/fashion-mnist",)
    install_hints = (
        "or on Debian/Ubuntu: apt-get install dataset-fashion-mnist (installs /usr/share/datasets/fashion-mnist)",
        "or use FashionMNIST(embedded=True) / minitorch.datasets.embedded_fashion_mnist() "
        "for the 7,000-image subset shipped with minitorch",
    )

    def __init__(
        self,
        root: str | os.PathLike | None = None,
        train: bool = True,
        *,
        download: bool = False,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        embedded: bool = False,
    ):
        if not embedded:
            super().__init__(
                root, train, download=download, transform=transform, target_transform=target_transform
            )
            return
        if root is not None or download:
            raise ValueError("FashionMNIST(embedded=True) reads the subset shipped with minitorch; omit root and download")
        self.train = bool(train)
        self.transform = transform
        self.target_transform = target_transform
        self.root = None
        images_name, labels_name = _split_files(self.train)
        images, labels = EMBEDDED_DIR / f"{images_name}.gz", EMBEDDED_DIR / f"{labels_name}.gz"
        if not (images.is_file() and labels.is_file()):
            raise DatasetNotFoundError(
                f"the embedded Fashion-MNIST subset is missing from the installed package: {images} / {labels} "
                "(regenerate it with scripts/make_embedded_fashion_mnist.py, or reinstall minitorch)"
            )
        self._load(images, labels)


class KMNIST(MNIST):
    """Kuzushiji-MNIST: 10 classes of cursive Japanese characters, same format as MNIST.

    >>> from minitorch.datasets import write_idx
    >>> _ = write_idx("train-images-idx3-ubyte", np.zeros((3, 28, 28), np.uint8))  # a tiny stand-in split
    >>> _ = write_idx("train-labels-idx1-ubyte", np.array([7, 2, 1], np.uint8))
    >>> chars = mt.datasets.KMNIST(".")
    >>> chars.classes[chars[1][1]]
    'su'
    """

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


def embedded_fashion_mnist(
    train: bool = True, transform: Callable | None = None, target_transform: Callable | None = None
) -> FashionMNIST:
    """The balanced Fashion-MNIST subset shipped inside minitorch (6,000 train / 1,000 test images).

    >>> train = mt.datasets.embedded_fashion_mnist()
    >>> len(train), train[0][0].shape, train.classes[train[0][1]]
    (6000, (28, 28), 'T-shirt/top')
    """
    return FashionMNIST(train=train, transform=transform, target_transform=target_transform, embedded=True)
