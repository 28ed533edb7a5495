"""Checkpoints: `save(obj, path)` and `load(path)` in the safetensors format, never pickle.

Tensors (and numpy arrays) go into the file flat, under their state_dict keys:
a model's {"0.weight": W, ...} is stored under exactly "0.weight", so
`safetensors.torch.load_file(path)` hands PyTorch a dict its
`load_state_dict` accepts. Everything else (the nesting of dicts, lists and
tuples, int dict keys, numbers, strings, None) is a JSON tree in the file's
`__metadata__` whose leaves name the stored tensors. Loading parses JSON and
raw arrays only, so a checkpoint can never run code; anything that is not a
well-formed safetensors file (a pickle, a torch.save zip, a truncated or empty
file) raises CheckpointError naming the file.
"""
import json
import math
import os
import struct
import tempfile

import numpy as np
import safetensors.numpy

from . import dtypes
from .tensor import Tensor

_TREE_KEY = "minitorch"  # metadata entry holding the JSON tree
_FORMAT_VERSION = 1
_MAX_HEADER_BYTES = 100 * 1024 * 1024  # the safetensors spec's own limit


class CheckpointError(ValueError):
    """A file that is not a readable minitorch/safetensors checkpoint (a ValueError naming the file).

    >>> _ = open("bad.mt", "wb").write(b"hello")
    >>> mt.load("bad.mt")
    Traceback (most recent call last):
        ...
    minitorch.serialization.CheckpointError: bad.mt: 5 bytes is too short for a safetensors file
    """


# ----- save -----

def save(obj, f):
    """Writes `obj` (nested dicts/lists/tuples of Tensors, arrays, numbers, strings, None) to `f`, in the safetensors format.

    `f` is a path or a binary file object. A path is replaced atomically, so a
    crash mid-write never leaves a half-written checkpoint behind.

        mt.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, "ckpt.safetensors")

    >>> import io
    >>> buffer = io.BytesIO()
    >>> mt.save({"w": mt.ones(2), "step": 3}, buffer)
    >>> _ = buffer.seek(0)
    >>> mt.load(buffer)
    {'w': tensor([1., 1.]), 'step': 3}
    """
    arrays = {}
    tree = _Encoder(arrays).encode(obj, ())
    metadata = {"format": "pt", _TREE_KEY: json.dumps({"version": _FORMAT_VERSION, "tree": tree}, allow_nan=False)}
    try:
        data = safetensors.numpy.save(arrays, metadata=metadata)
    except Exception as error:  # safetensors rejects some dtypes; say which entry
        raise TypeError(f"save: safetensors cannot store these arrays: {error}") from error
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".safetensors", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class _Encoder:
    """Turns an object into a JSON tree, moving its arrays into `arrays` under path keys."""

    def __init__(self, arrays):
        self.arrays = arrays
        self.key_of = {}  # id(tensor or array) -> stored key: one copy of a shared tensor
        self.open_containers = set()

    def encode(self, obj, path):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"float": repr(float(obj))}
        if isinstance(obj, Tensor):
            node = {"tensor": self._store(obj, obj._data, path)}
            if obj._requires_grad:
                node["requires_grad"] = True
            return node
        if isinstance(obj, np.ndarray):
            return {"ndarray": self._store(obj, obj, path)}
        if isinstance(obj, np.generic):
            return {"numpy_scalar": self._store(obj, np.asarray(obj), path)}
        if isinstance(obj, (dict, list, tuple)):
            if id(obj) in self.open_containers:
                raise ValueError(f"save: {_describe(path)} contains itself")
            self.open_containers.add(id(obj))
            try:
                if isinstance(obj, dict):
                    return {"dict": [[self._encode_key(k, path), self.encode(v, path + (k,))] for k, v in obj.items()]}
                items = [self.encode(v, path + (i,)) for i, v in enumerate(obj)]
                return {"tuple": items} if isinstance(obj, tuple) else {"list": items}
            finally:
                self.open_containers.discard(id(obj))
        raise TypeError(f"save: cannot store a {type(obj).__name__} at {_describe(path)}; checkpoints hold Tensors, "
                        f"numpy arrays, numbers, strings, bools, None and dicts/lists/tuples of them")

    def _encode_key(self, key, path):
        if isinstance(key, (str, int)) and not isinstance(key, bool):
            return int(key) if isinstance(key, int) else key
        raise TypeError(f"save: dict keys must be str or int, got {type(key).__name__} {key!r} at {_describe(path)}")

    def _store(self, obj, array, path):
        if id(obj) in self.key_of:
            return self.key_of[id(obj)]
        if array.dtype.kind not in "biuf":
            raise TypeError(f"save: cannot store an array of dtype {array.dtype} at {_describe(path)}")
        key = ".".join(str(part) for part in path) or "tensor"
        if key in self.arrays or key == "__metadata__":
            # Keys only need to be unique: the tree records which key each leaf uses.
            suffix = 1
            while f"{key}~{suffix}" in self.arrays:
                suffix += 1
            key = f"{key}~{suffix}"
        # Not np.ascontiguousarray: it turns a 0-d array (an optimizer's "step") into shape (1,).
        self.arrays[key] = np.require(array.astype(array.dtype.newbyteorder("<"), copy=False), requirements="C")
        self.key_of[id(obj)] = key
        return key


def _describe(path):
    return "the top level" if not path else "key path " + "/".join(repr(p) for p in path)


# ----- load -----

def load(f):
    """Reads a checkpoint written by `save`, or any safetensors file (then: a flat dict of Tensors).

    Raises CheckpointError, naming the file, for anything else; never executes code.

    >>> model = mt.nn.Linear(2, 1)
    >>> mt.save(model.state_dict(), "checkpoint.mt")
    >>> state = mt.load("checkpoint.mt")
    >>> sorted(state), model.load_state_dict(state)
    (['bias', 'weight'], IncompatibleKeys(missing_keys=[], unexpected_keys=[]))
    """
    if hasattr(f, "read"):
        name = getattr(f, "name", None) or repr(f)
        data = f.read()
    else:
        name = os.fspath(f)
        with open(name, "rb") as stream:
            data = stream.read()
    header = _read_header(data, name)
    try:
        arrays = safetensors.numpy.load(data)
    except Exception as error:
        raise CheckpointError(f"{name}: not a readable safetensors file ({type(error).__name__}: {error})") from error
    metadata = header.get("__metadata__") or {}
    if not isinstance(metadata, dict):
        raise CheckpointError(f"{name}: the safetensors __metadata__ is not a JSON object")
    if _TREE_KEY not in metadata:
        # A file from elsewhere (e.g. safetensors.torch.save_file(model.state_dict(), path)).
        return {key: _tensor_from(arrays[key], name, key) for key in header if key != "__metadata__"}
    try:
        document = json.loads(metadata[_TREE_KEY])
        version, tree = document["version"], document["tree"]
    except (TypeError, ValueError, KeyError) as error:
        raise CheckpointError(f"{name}: the minitorch structure in its metadata is damaged ({error})") from None
    if version != _FORMAT_VERSION:
        raise CheckpointError(f"{name}: checkpoint format version {version!r} is not supported "
                              f"(this minitorch reads version {_FORMAT_VERSION})")
    return _Decoder(arrays, name).decode(tree)


def _read_header(data, name):
    """The parsed JSON header; a file that has none gets a message saying what it looks like instead."""
    header = None
    if len(data) >= 8:
        (header_size,) = struct.unpack("<Q", data[:8])
        if header_size <= min(len(data) - 8, _MAX_HEADER_BYTES):
            try:
                header = json.loads(data[8:8 + header_size].decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                header = None
    if not isinstance(header, dict):
        raise CheckpointError(f"{name}: {_what_it_is(data)}")
    return header


def _what_it_is(data):
    """Why `data` is not a safetensors file, for the error message (it is never parsed further)."""
    if len(data) == 0:
        return "the file is empty, not a checkpoint"
    if data[:4] == b"PK\x03\x04":
        return ("this is a zip archive (e.g. from torch.save), which holds a pickle; minitorch never unpickles "
                "(it could run code). Re-save the tensors with safetensors.torch.save_file.")
    if data[:1] == b"\x80" or data.rstrip().endswith(b"."):
        return ("this looks like a pickle file; minitorch never unpickles (it could run code). "
                "Re-save the tensors with safetensors.")
    if len(data) < 8:
        return f"{len(data)} bytes is too short for a safetensors file"
    return "not a safetensors file (no valid header; the file is damaged, truncated or of another format)"


class _Decoder:
    def __init__(self, arrays, name):
        self.arrays = arrays
        self.name = name
        self.loaded = {}  # stored key -> object, so a tensor saved once at two places loads as one

    def decode(self, node):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        if isinstance(node, dict) and len(node) >= 1:
            if "dict" in node:
                return {self._key(k): self.decode(v) for k, v in self._pairs(node["dict"])}
            if "list" in node:
                return [self.decode(v) for v in self._items(node["list"])]
            if "tuple" in node:
                return tuple(self.decode(v) for v in self._items(node["tuple"]))
            if "float" in node and node["float"] in ("nan", "inf", "-inf"):
                return float(node["float"])
            for kind in ("tensor", "ndarray", "numpy_scalar"):
                if kind in node:
                    return self._leaf(kind, node[kind], node.get("requires_grad", False))
        raise CheckpointError(f"{self.name}: unexpected entry {node!r} in the minitorch structure (damaged file)")

    def _leaf(self, kind, key, requires_grad):
        if (kind, key) in self.loaded:
            return self.loaded[(kind, key)]
        if not isinstance(key, str) or key not in self.arrays:
            raise CheckpointError(f"{self.name}: the structure refers to tensor {key!r}, which the file does not hold")
        array = self.arrays[key]
        if kind == "tensor":
            value = _tensor_from(array, self.name, key)
            if requires_grad:
                value.requires_grad_(True)
        elif kind == "ndarray":
            value = _writable(array)
        else:
            value = array[()]
        self.loaded[(kind, key)] = value
        return value

    def _pairs(self, pairs):
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise CheckpointError(f"{self.name}: a dict entry of the minitorch structure is damaged")
        return pairs

    def _items(self, items):
        if not isinstance(items, list):
            raise CheckpointError(f"{self.name}: a list entry of the minitorch structure is damaged")
        return items

    def _key(self, key):
        if isinstance(key, (str, int)) and not isinstance(key, bool):
            return key
        raise CheckpointError(f"{self.name}: dict key {key!r} in the minitorch structure is not a str or int")


def _writable(array):
    return array if array.flags.writeable else array.copy()


def _tensor_from(array, name, key):
    try:
        dtypes.from_numpy_dtype(array.dtype)
    except TypeError:
        raise CheckpointError(f"{name}: tensor {key!r} has dtype {array.dtype}, which minitorch does not "
                              f"support") from None
    return Tensor._make(_writable(array))
