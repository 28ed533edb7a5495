"""Ready-made datasets: MNIST, Fashion-MNIST, KMNIST from IDX files, and an embedded Fashion-MNIST subset."""

from . import transforms
from .download import ChecksumMismatchError, DownloadError
from .idx import IDXFormatError, read_idx, write_idx
from .mnist import KMNIST, MNIST, DatasetNotFoundError, FashionMNIST, embedded_fashion_mnist

__all__ = [
    "transforms",
    "MNIST",
    "FashionMNIST",
    "KMNIST",
    "embedded_fashion_mnist",
    "DatasetNotFoundError",
    "IDXFormatError",
    "DownloadError",
    "ChecksumMismatchError",
    "read_idx",
    "write_idx",
]
