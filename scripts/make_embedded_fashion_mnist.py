#!/usr/bin/env python3
"""Regenerate minitorch's embedded Fashion-MNIST subset from the full IDX files.

Picks, with a fixed seed, 600 training and 100 test images per class from the
real Fashion-MNIST (kept in their original order) and writes them as gzipped
IDX files into minitorch/datasets/embedded/, next to the dataset's MIT licence.
Same input and seed give byte-identical output on every Python version: the
gzip header is written here, not by the gzip module (whose OS byte differs
between Python versions), and the deflate stream is zlib's at level 9.

The full files come from ``apt-get install dataset-fashion-mnist`` (Debian),
``FashionMNIST(download=True)``, or any directory given with ``--source``.

    python scripts/make_embedded_fashion_mnist.py [--source DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # run from a checkout without installing

from minitorch.datasets.idx import read_idx, write_idx  # noqa: E402
from minitorch.datasets.mnist import EMBEDDED_DIR, FashionMNIST, _find_file, _split_files  # noqa: E402

SEED = 20240601
TRAIN_PER_CLASS = 600
TEST_PER_CLASS = 100
NUM_CLASSES = 10

# RFC 1952 header: magic 1f 8b, method 8 (deflate), no flags, mtime 0, XFL 2 (slowest, best
# compression), OS 3 (Unix). gzip.compress writes OS 255 on Python 3.10 and 3.13 but 3 on 3.11
# and 3.12, so the shipped files, made on 3.11, keep 3.
GZIP_HEADER = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3])

LICENSE_TEXT = """\
The files in this directory are a subset of Fashion-MNIST
(https://github.com/zalandoresearch/fashion-mnist), chosen by
scripts/make_embedded_fashion_mnist.py. Fashion-MNIST is distributed under
the MIT License:

The MIT License (MIT)

Copyright (c) 2017 Zalando SE, https://tech.zalando.com

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def find_source(explicit: Path | None) -> Path:
    """The directory holding the full Fashion-MNIST files (all four)."""
    candidates = [explicit] if explicit else FashionMNIST.search_dirs()
    for directory in candidates:
        names = [*_split_files(True), *_split_files(False)]
        if all(_find_file(directory, name) for name in names):
            return directory
    looked = "\n  ".join(str(d) for d in candidates)
    sys.exit(f"full Fashion-MNIST not found in:\n  {looked}\n(apt-get install dataset-fashion-mnist, or --source DIR)")


def gzip_deterministic(payload: bytes) -> bytes:
    """``payload`` as a gzip member whose bytes depend on nothing but ``payload`` (and zlib's level-9 deflate)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)  # raw deflate: we write header and trailer
    deflated = compressor.compress(payload) + compressor.flush()
    return GZIP_HEADER + deflated + struct.pack("<II", zlib.crc32(payload), len(payload) & 0xFFFFFFFF)


def idx_bytes(array: np.ndarray) -> bytes:
    """The uncompressed IDX file of ``array``, as minitorch's write_idx writes it."""
    with tempfile.TemporaryDirectory() as directory:
        return write_idx(Path(directory) / "array.idx", array, compress=False).read_bytes()


def balanced_indices(labels: np.ndarray, per_class: int, rng: np.random.Generator) -> np.ndarray:
    """``per_class`` random indices of each class, returned in increasing (original) order."""
    chosen = []
    for label in range(NUM_CLASSES):
        members = np.flatnonzero(labels == label)
        if len(members) < per_class:
            sys.exit(f"class {label} has only {len(members)} images, need {per_class}")
        chosen.append(rng.choice(members, size=per_class, replace=False))
    return np.sort(np.concatenate(chosen))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, help="directory with the full Fashion-MNIST IDX files")
    parser.add_argument("--out", type=Path, default=EMBEDDED_DIR, help=f"output directory (default {EMBEDDED_DIR})")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()

    source = find_source(args.source)
    args.out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    summary = []
    for train, per_class in ((True, TRAIN_PER_CLASS), (False, TEST_PER_CLASS)):
        images_name, labels_name = _split_files(train)
        images = read_idx(_find_file(source, images_name), expected_ndim=3, expected_dtype=np.uint8)
        labels = read_idx(_find_file(source, labels_name), expected_ndim=1, expected_dtype=np.uint8)
        keep = balanced_indices(labels, per_class, rng)
        for name, array in ((images_name, images[keep]), (labels_name, labels[keep])):
            path = args.out / f"{name}.gz"
            path.write_bytes(gzip_deterministic(idx_bytes(array)))
            sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
            summary.append(f"{path.name}: shape {array.shape}, {path.stat().st_size} bytes, sha256 {sha256}")
    (args.out / "LICENSE").write_text(LICENSE_TEXT)
    print(f"source: {source}\nseed: {args.seed}\n" + "\n".join(summary))


if __name__ == "__main__":
    main()
