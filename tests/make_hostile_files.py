"""Generate the corpus of damaged and hostile checkpoint and IDX files that tests/test_hostile_files.py loads.

Every case starts from a valid file and breaks it one way: bit flips, truncations,
deep nesting, wrong JSON types, absurd sizes, trailing data, a gzip bomb. The
random choices come from one seeded generator, so the corpus is the same on every
run. Each case says what loading it must do:
  REFUSED            raise CheckpointError / IDXFormatError naming the file
  LOADED             load (controls at the edge of what is allowed)
  REFUSED_OR_LOADED  either of those, never anything else (a flipped bit can land
                     in tensor values or a gzip timestamp and leave a valid file)

    python tests/make_hostile_files.py OUT_DIR   # writes the files and a manifest.json
"""
import argparse
import gzip
import io
import json
import random
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import safetensors.numpy

import minitorch as mt

SEED = 12
REFUSED, LOADED, REFUSED_OR_LOADED = "refused", "loaded", "refused or loaded"
FLIPS_PER_REGION = 12
TRUNCATIONS = 10
NESTING = 1000


@dataclass(frozen=True)
class Case:
    name: str  # also the file name
    content: bytes
    expect: str
    message: str = ""  # a fragment the error must contain, when the case is about one specific check


# ----- building blocks -----

def _base_checkpoint():
    rng = np.random.default_rng(SEED)
    weight = mt.tensor(rng.normal(size=(4, 3)).astype(np.float32), requires_grad=True)
    obj = {
        "model": {"0.weight": weight, "0.bias": mt.zeros(4), "steps": mt.tensor([3, 1])},
        "optim": {"state": {0: {"step": 3, "exp_avg": mt.ones(4, 3)}},
                  "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0]}]},
        "epoch": 3, "history": [1.5, float("nan")], "mask": np.ones(3, bool), "scale": np.float32(2.0),
    }
    return _saved(obj)


def _saved(obj):
    buffer = io.BytesIO()
    mt.save(obj, buffer)
    return buffer.getvalue()


def _safetensors(header, data=b""):
    """A file with a hand-written JSON header (str or object) and raw data."""
    text = header if isinstance(header, str) else json.dumps(header)
    return struct.pack("<Q", len(text.encode())) + text.encode() + data


def _with_tree(tree_json):
    """A valid safetensors file whose minitorch structure is the given JSON text."""
    return _canonical(safetensors.numpy.save({"w": np.zeros(2), "n": np.arange(3)},
                                             metadata={"format": "pt", "minitorch": tree_json}))


def _tree(tree, version=1):
    return _with_tree(json.dumps({"version": version, "tree": tree}))


def _nested_lists(depth, leaf="null"):
    return '{"list": [' * depth + leaf + "]}" * depth


def _header_size(content):
    return 8 + struct.unpack("<Q", content[:8])[0]


def _flip(content, position, bit):
    flipped = bytearray(content)
    flipped[position] ^= 1 << bit
    return bytes(flipped)


def _bit_flips(rng, prefix, content, regions):
    cases = []
    for region, (start, stop) in regions.items():
        for flat in rng.sample(range(8 * start, 8 * stop), FLIPS_PER_REGION):
            position, bit = divmod(flat, 8)
            cases.append(Case(f"{prefix}-flip-{region}-{position}.{bit}", _flip(content, position, bit),
                              REFUSED_OR_LOADED))
    return cases


def _truncations(rng, prefix, content, message=""):
    lengths = sorted({0, 1, 7, 8, len(content) - 1, *rng.sample(range(9, len(content) - 1), TRUNCATIONS)})
    return [Case(f"{prefix}-cut-{n}", content[:n], REFUSED, message) for n in lengths]


# ----- checkpoints -----

def _canonical(content):
    """The same safetensors file with its header's keys sorted.

    safetensors writes the __metadata__ entries in a different order in every
    process (a Rust HashMap), so bit positions would not mean the same thing twice.
    """
    header_end = _header_size(content)
    text = json.dumps(json.loads(content[8:header_end]), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    padded = text.encode() + b" " * (-len(text.encode()) % 8)
    return struct.pack("<Q", len(padded)) + padded + content[header_end:]


def checkpoint_cases(seed=SEED):
    """The checkpoint corpus: a list of Case, each a file for mt.load."""
    rng = random.Random(seed)
    ours = _canonical(_base_checkpoint())
    foreign = _canonical(safetensors.numpy.save({"layer.weight": np.eye(3, dtype=np.float32)}))
    cases = [Case("ckpt-valid", ours, LOADED), Case("ckpt-foreign-valid", foreign, LOADED)]
    for prefix, content in (("ckpt", ours), ("ckpt-foreign", foreign)):
        header_end = _header_size(content)
        regions = {"size": (0, 8), "header": (8, header_end), "data": (header_end, len(content))}
        cases += _bit_flips(rng, prefix, content, regions)
        cases += _truncations(rng, prefix, content)

    tensor = {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}
    deep = "[" * NESTING + "]" * NESTING
    cases += [
        # nesting
        Case("ckpt-header-nested-1000", _safetensors(f'{{"w": {json.dumps(tensor)}, "x": {deep}}}', bytes(16)),
             REFUSED, "nests too deeply"),
        Case("ckpt-tree-nested-1000", _with_tree(f'{{"version": 1, "tree": {_nested_lists(NESTING)}}}'),
             REFUSED, "nests too deeply"),
        Case("ckpt-tree-nested-101", _with_tree(f'{{"version": 1, "tree": {_nested_lists(101)}}}'),
             REFUSED, "more than 100 deep"),
        Case("ckpt-tree-nested-100", _with_tree(f'{{"version": 1, "tree": {_nested_lists(100)}}}'), LOADED),
        # wrong types where the structure expects something else
        Case("ckpt-tensor-key-list", _tree({"tensor": ["w"]}), REFUSED, "does not hold"),
        Case("ckpt-tensor-key-dict", _tree({"tensor": {"w": 1}}), REFUSED, "does not hold"),
        Case("ckpt-tensor-key-int", _tree({"tensor": 0}), REFUSED, "does not hold"),
        Case("ckpt-requires-grad-on-int", _tree({"tensor": "n", "requires_grad": True}), REFUSED,
             "only floating point"),
        Case("ckpt-requires-grad-string", _tree({"tensor": "w", "requires_grad": "yes"}), REFUSED,
             "unexpected entry"),
        Case("ckpt-requires-grad-on-ndarray", _tree({"ndarray": "w", "requires_grad": True}), REFUSED,
             "unexpected entry"),
        Case("ckpt-two-kinds", _tree({"list": [], "dict": []}), REFUSED, "unexpected entry"),
        Case("ckpt-float-not-special", _tree({"float": "1.5"}), REFUSED, "unexpected entry"),
        Case("ckpt-float-list", _tree({"float": ["nan"]}), REFUSED, "unexpected entry"),
        Case("ckpt-dict-pairs-dict", _tree({"dict": {"a": 1}}), REFUSED, "dict entry"),
        Case("ckpt-dict-pair-triple", _tree({"dict": [["a", 1, 2]]}), REFUSED, "dict entry"),
        Case("ckpt-dict-key-list", _tree({"dict": [[["a"], 1]]}), REFUSED, "not a str or int"),
        Case("ckpt-dict-key-float", _tree({"dict": [[1.5, 1]]}), REFUSED, "not a str or int"),
        Case("ckpt-list-items-dict", _tree({"list": {"a": 1}}), REFUSED, "list entry"),
        Case("ckpt-numpy-scalar-1d", _tree({"numpy_scalar": "w"}), REFUSED, "numpy scalar"),
        Case("ckpt-version-string", _tree(None, version="1"), REFUSED, "version '1'"),
        Case("ckpt-version-true", _tree(None, version=True), REFUSED, "version True"),
        Case("ckpt-version-float", _tree(None, version=1.0), REFUSED, "version 1.0"),
        Case("ckpt-document-list", _with_tree("[1, 2]"), REFUSED, "damaged"),
        Case("ckpt-document-string", _with_tree('"tree"'), REFUSED, "damaged"),
        Case("ckpt-document-no-tree", _with_tree('{"version": 1}'), REFUSED, "damaged"),
        Case("ckpt-document-huge-int", _with_tree('{"version": ' + "9" * 5000 + ', "tree": null}'), REFUSED,
             "damaged"),
        Case("ckpt-metadata-list", _safetensors({"__metadata__": ["a"], "w": tensor}, bytes(16)), REFUSED),
        Case("ckpt-metadata-value-int", _safetensors({"__metadata__": {"minitorch": 3}, "w": tensor}, bytes(16)),
             REFUSED),
        Case("ckpt-header-list", _safetensors([tensor], bytes(16)), REFUSED, "not a safetensors file"),
        Case("ckpt-tensor-entry-int", _safetensors({"w": 3}, bytes(16)), REFUSED),
        Case("ckpt-shape-string", _safetensors({"w": dict(tensor, shape="2")}, bytes(16)), REFUSED),
        Case("ckpt-dtype-unknown", _safetensors({"w": dict(tensor, dtype="X9")}, bytes(16)), REFUSED),
        Case("ckpt-dtype-bf16", _safetensors({"w": dict(tensor, dtype="BF16", shape=[8])}, bytes(16)), REFUSED),
        Case("ckpt-dtype-uint16", _safetensors({"w": dict(tensor, dtype="U16", shape=[8])}, bytes(16)), REFUSED,
             "uint16"),
        # absurd sizes
        Case("ckpt-header-size-2**64-1", b"\xff" * 8 + b"{}", REFUSED, "not a safetensors file"),
        Case("ckpt-header-size-past-end", struct.pack("<Q", 10**8) + b"{}", REFUSED, "not a safetensors file"),
        Case("ckpt-shape-overflows", _safetensors({"w": dict(tensor, shape=[2**62, 2**62, 16])}, bytes(16)),
             REFUSED),
        Case("ckpt-shape-huge", _safetensors({"w": dict(tensor, shape=[2**40, 2**20])}, bytes(16)), REFUSED),
        Case("ckpt-offsets-past-end", _safetensors({"w": dict(tensor, data_offsets=[0, 2**40])}, bytes(16)),
             REFUSED),
        Case("ckpt-offsets-reversed", _safetensors({"w": dict(tensor, data_offsets=[16, 0])}, bytes(16)), REFUSED),
        Case("ckpt-many-references", _tree({"list": [{"tensor": "w"}] * 10_000}), LOADED),
    ]
    return cases


# ----- IDX -----

def int64_overflow_idx():
    """A raw IDX header declaring (2**22, 2**21, 2**21) uint8: 2**64 bytes, one past int64."""
    return bytes([0, 0, 0x08, 3]) + b"".join(d.to_bytes(4, "big") for d in (2**22, 2**21, 2**21)) + bytes(16)


def gzip_bomb(zeros_mib=1024):
    """About 1 MB of gzip that declares one 28x28 image, then decompresses to `zeros_mib` MiB of zeros.

    The zeros are repeated gzip members (a valid gzip file may hold several), so
    building it takes milliseconds instead of compressing a GiB.
    """
    header = bytes([0, 0, 0x08, 3]) + (1).to_bytes(4, "big") + (28).to_bytes(4, "big") * 2
    image = bytes(range(256)) * 3 + bytes(16)
    zeros = gzip.compress(bytes(1 << 20), compresslevel=9, mtime=0)
    return gzip.compress(header + image, mtime=0) + zeros * zeros_mib


def _idx_bytes(array, compress):
    header = bytes([0, 0, {np.uint8: 0x08, np.int32: 0x0C}[array.dtype.type], array.ndim])
    payload = header + np.asarray(array.shape, ">u4").tobytes() + array.astype(array.dtype.newbyteorder(">")).tobytes()
    return gzip.compress(payload, mtime=0) if compress else payload


def idx_cases(seed=SEED):
    """The IDX corpus: a list of Case, each a file for read_idx."""
    rng = random.Random(seed + 1)
    images = np.arange(3 * 4 * 4, dtype=np.uint8).reshape(3, 4, 4)
    raw, packed = _idx_bytes(images, False), _idx_bytes(images, True)
    ints = _idx_bytes(np.arange(-3, 3, dtype=np.int32).reshape(2, 3), False)
    cases = [Case("idx-valid", raw, LOADED), Case("idx-gz-valid", packed, LOADED),
             Case("idx-int32-valid", ints, LOADED),
             Case("idx-empty-dimension", _idx_bytes(np.zeros((0, 28, 28), np.uint8), True), LOADED)]
    cases += _bit_flips(rng, "idx", raw, {"header": (0, 16)})
    cases += _bit_flips(rng, "idx-gz", packed, {"all": (0, len(packed))})
    cases += _truncations(rng, "idx", raw)
    cases += _truncations(rng, "idx-gz", packed)
    overflow = int64_overflow_idx()
    huge = bytes([0, 0, 0x0E, 255]) + b"\xff\xff\xff\xff" * 255
    cases += [
        Case("idx-trailing-byte", raw + b"\x00", REFUSED, "1 unexpected trailing bytes"),
        Case("idx-gz-trailing-byte", gzip.compress(raw + b"\x00", mtime=0), REFUSED, "1 unexpected trailing bytes"),
        Case("idx-gz-then-garbage", packed + b"garbage", REFUSED, "gzip"),
        Case("idx-int64-overflow", overflow, REFUSED, str(2**64)),
        Case("idx-gz-int64-overflow", gzip.compress(overflow, mtime=0), REFUSED, str(2**64)),
        Case("idx-255-dims-of-2**32-1", huge, REFUSED, "truncated data"),
        Case("idx-gz-255-dims-of-2**32-1", gzip.compress(huge, mtime=0), REFUSED, "gzip file of"),
        Case("idx-gzip-bomb-1GiB", gzip_bomb(), REFUSED, "more than 65536 unexpected trailing bytes"),
    ]
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for kind, cases in (("checkpoint", checkpoint_cases()), ("idx", idx_cases())):
        for case in cases:
            (args.out_dir / case.name).write_bytes(case.content)
            manifest[case.name] = {"kind": kind, "expect": case.expect, "message": case.message}
    (args.out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1))
    print(f"wrote {len(manifest)} files to {args.out_dir}")


if __name__ == "__main__":
    sys.exit(main())
