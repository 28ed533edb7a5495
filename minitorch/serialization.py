"""Checkpoints: `save(obj, path)` and `load(path)` in the safetensors format, never pickle.

Tensors (and numpy arrays) go into the file flat, under their state_dict keys:
a model's {"0.weight": W, ...} is stored under exactly "0.weight", so
`safetensors.torch.load_file(path)` hands PyTorch a dict its
`load_state_dict` accepts. Everything else (the nesting of dicts, lists and
tuples, int dict keys, numbers, strings, None) is a JSON tree in the file's
`__metadata__` whose leaves name the stored tensors. Loading parses JSON and
raw arrays only, so a checkpoint can never run code; anything that is not a
well-formed safetensors file (a pickle, a torch.save zip, a truncated or empty
file) raises CheckpointError naming the file. Loading reads the header first and
checks the sizes it declares against the file's size before reading anything
else, then reads only the declared bytes (as `safetensors.safe_open`): /dev/zero
or a huge sparse file is refused after a few bytes, and a valid file costs its
tensors' size once.
"""
import json
import math
import os
import reprlib
import struct
import sys

import numpy as np
import safetensors.numpy

from . import nest
from .creation import from_numpy
from .devices import cpu_device, device
from .files import atomic_write
from .streams import last_bytes, read_exactly, read_into, remaining_size
from .tensor import Tensor

_TREE_KEY = "minitorch"  # metadata entry holding the JSON tree
_FORMAT_VERSION = 1
_MAX_HEADER_BYTES = 100 * 1024 * 1024  # the safetensors spec's own limit
# Containers nested deeper than this are refused by save and load. Real checkpoints
# nest a handful of levels; the limit keeps decoding far from Python's recursion limit.
_MAX_NESTING = 100
_NODE_KINDS = ("dict", "list", "tuple", "float", "tensor", "ndarray", "numpy_scalar")


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

    `f` is a path (any file name: `model.pth` holds safetensors too) or a binary
    file object. A path is replaced atomically: the data goes to a hidden temporary
    file in the same folder, renamed over `f` only once complete, so a crash or a
    kill mid-write never leaves a half-written checkpoint. Like `open(f, "wb")`, a
    symlink is written through and an existing file keeps its permissions.

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
    with atomic_write(f, sync=False) as out:  # no fsync, as torch.save does none
        out.write(data)


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
            node = {"tensor": self._store(obj, np.asarray(obj), path)}
            if obj.requires_grad:
                node["requires_grad"] = True
            return node
        if isinstance(obj, np.ndarray):
            return {"ndarray": self._store(obj, obj, path)}
        if isinstance(obj, np.generic):
            return {"numpy_scalar": self._store(obj, np.asarray(obj), path)}
        if isinstance(obj, (dict, list, tuple)):
            if len(path) >= _MAX_NESTING:
                raise ValueError(f"save: {_where_in(path[:3])}... nests containers more than {_MAX_NESTING} deep")
            if id(obj) in self.open_containers:
                raise ValueError(f"save: {_where_in(path)} contains itself")
            self.open_containers.add(id(obj))
            try:
                if isinstance(obj, dict):
                    return {"dict": [[self._encode_key(k, path), self.encode(v, path + (k,))] for k, v in obj.items()]}
                items = [self.encode(v, path + (i,)) for i, v in enumerate(obj)]
                return {"tuple": items} if isinstance(obj, tuple) else {"list": items}
            finally:
                self.open_containers.discard(id(obj))
        raise TypeError(f"save: cannot store a {type(obj).__name__} at {_where_in(path)}; checkpoints hold Tensors, "
                        f"numpy arrays, numbers, strings, bools, None and dicts/lists/tuples of them")

    def _encode_key(self, key, path):
        if isinstance(key, (str, int)) and not isinstance(key, bool):
            return int(key) if isinstance(key, int) else key
        raise TypeError(f"save: dict keys must be str or int, got {type(key).__name__} {key!r} at {_where_in(path)}")

    def _store(self, obj, array, path):
        if id(obj) in self.key_of:
            return self.key_of[id(obj)]
        if array.dtype.kind not in "biuf":
            raise TypeError(f"save: cannot store an array of dtype {array.dtype} at {_where_in(path)}")
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


def _where_in(path):
    return "the top level" if not path else "key path " + "/".join(repr(p) for p in path)


# ----- load -----

def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Reads a checkpoint written by `save`, or any safetensors file (then: a flat dict of Tensors).

    Raises CheckpointError, naming the file, for anything else; never executes code.
    PyTorch's arguments are accepted: `map_location` may name the CPU (a string,
    an `mt.device`, a dict mapping locations to "cpu") or be a function
    `fn(tensor, "cpu")` returning the tensor to use; any other device raises
    DeviceError. `weights_only=True` (or None) is what minitorch always does;
    `weights_only=False` and `pickle_module` ask for pickle, which minitorch
    never runs. `mmap=True` is accepted: the file is read into memory.

    >>> model = mt.nn.Linear(2, 1)
    >>> mt.save(model.state_dict(), "checkpoint.pth")
    >>> state = mt.load("checkpoint.pth", map_location="cpu", weights_only=True)
    >>> sorted(state), model.load_state_dict(state)
    (['bias', 'weight'], IncompatibleKeys(missing_keys=[], unexpected_keys=[]))
    >>> mt.load("checkpoint.pth", weights_only=False)
    Traceback (most recent call last):
        ...
    ValueError: load(weights_only=False) asks to unpickle arbitrary objects, which minitorch never does: its checkpoints are safetensors files (tensors, with numbers, strings and containers as JSON). Drop weights_only=False to read this one.
    """
    if weights_only is False or pickle_module is not None or pickle_load_args:
        asked = "weights_only=False" if weights_only is False else "pickle_module" if pickle_module is not None \
            else ", ".join(sorted(pickle_load_args))
        raise ValueError(f"load({asked}) asks to unpickle arbitrary objects, which minitorch never does: its "
                         "checkpoints are safetensors files (tensors, with numbers, strings and containers as "
                         f"JSON). Drop {asked} to read this one.")
    place = _placement(map_location)
    result = _load(f)
    return result if place is None else nest.map_structure(place, result)


def _placement(map_location):
    """None (tensors stay as loaded), or a function applied to every loaded tensor."""
    if callable(map_location) and not isinstance(map_location, device):
        def place(t):
            if not isinstance(t, Tensor):
                return t
            moved = map_location(t, "cpu")
            if not isinstance(moved, Tensor):
                raise TypeError(f"load: map_location returned {type(moved).__name__}, expected a Tensor")
            return moved
        return place
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        cpu_device(target)
    return None


def _load(f):
    if hasattr(f, "read"):
        return _load_stream(f, getattr(f, "name", None) or repr(f))
    name = os.fsdecode(f)
    with open(name, "rb") as stream:
        return _load_stream(stream, name)


def _load_stream(stream, name):
    """As safetensors.safe_open: the header first, its declared sizes checked against the file's
    size, then only the bytes it declares, each tensor read straight into its own array (peak
    memory: the declared content once). /dev/zero, a sparse file or a truncated one is refused
    after reading a few bytes."""
    size = remaining_size(stream)  # None for a pipe or a device
    header, header_size = _read_header(stream, name, size)
    metadata = header.get("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise CheckpointError(f"{name}: the safetensors __metadata__ is not a JSON object of strings")
    entries = _declared_tensors(header, name)
    data_size = entries[-1][4] if entries else 0
    declared = 8 + header_size + data_size
    if size is not None and size != declared:
        problem = "truncated" if size < declared else f"{size - declared} bytes follow the data it declares"
        raise CheckpointError(f"{name}: the file holds {size} bytes where its header declares {declared} ({problem})")
    arrays = {key: _read_tensor(stream, name, key, dtype, shape, end - begin)
              for key, dtype, shape, begin, end in entries}
    decoder = _Decoder(arrays, name)
    if _TREE_KEY not in metadata:
        # A file from elsewhere (e.g. safetensors.torch.save_file(model.state_dict(), path)).
        return {key: decoder.leaf("tensor", key, False) for key in header if key != "__metadata__"}
    try:
        document = json.loads(metadata[_TREE_KEY])
        version, tree = document["version"], document["tree"]
    except RecursionError:
        raise CheckpointError(f"{name}: the minitorch structure in its metadata nests too deeply (damaged file)") \
            from None
    except (TypeError, ValueError, KeyError, IndexError) as error:
        raise CheckpointError(f"{name}: the minitorch structure in its metadata is damaged ({error})") from None
    if type(version) is not int or version != _FORMAT_VERSION:
        raise CheckpointError(f"{name}: checkpoint format version {reprlib.repr(version)} is not supported "
                              f"(this minitorch reads version {_FORMAT_VERSION})")
    return decoder.decode(tree, 0)


def _read_header(stream, name, size):
    """(the parsed JSON header, its length); a file that has none gets a message saying what it looks like."""
    head = read_exactly(stream, 8)
    header, problem = None, None
    if len(head) == 8:
        (header_size,) = struct.unpack("<Q", head)
        if header_size > _MAX_HEADER_BYTES:
            problem = f"its first 8 bytes declare a header of {header_size} bytes, more than safetensors allows"
        elif size is not None and header_size > size - 8:
            problem = f"its first 8 bytes declare a header of {header_size} bytes in a file of {size}"
        else:
            text = read_exactly(stream, header_size)
            try:
                header = json.loads(text.decode("utf-8")) if len(text) == header_size else None
            except (UnicodeDecodeError, ValueError):
                header = None
            except RecursionError:
                raise CheckpointError(f"{name}: the safetensors header nests too deeply (damaged file)") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{name}: {_what_it_is(head, size, last_bytes(stream, 64), problem)}")
    return header, header_size


def _what_it_is(head, size, tail, problem):
    """Why a file that starts with `head` and ends with `tail` is not a safetensors file (never parsed further)."""
    if size == 0 or not head:
        return "the file is empty, not a checkpoint"
    if head[:4] == b"PK\x03\x04":
        return ("this is a zip archive (e.g. from torch.save), which holds a pickle; minitorch never unpickles "
                "(it could run code). Re-save the tensors with safetensors.torch.save_file.")
    if head[:1] == b"\x80" or tail.rstrip().endswith(b"."):
        return ("this looks like a pickle file; minitorch never unpickles (it could run code). "
                "Re-save the tensors with safetensors.")
    if len(head) < 8:
        return f"{len(head)} bytes is too short for a safetensors file"
    return (f"not a safetensors file ({problem or 'no valid header'}; the file is damaged, truncated or of "
            f"another format)")


# safetensors dtype names -> numpy (little-endian, as the format stores them). Others (BF16, F8_*)
# have no numpy dtype minitorch uses.
_DTYPES = {"BOOL": "?", "U8": "u1", "I8": "i1", "U16": "<u2", "I16": "<i2", "F16": "<f2", "U32": "<u4", "I32": "<i4",
           "F32": "<f4", "U64": "<u8", "I64": "<i8", "F64": "<f8"}


def _declared_tensors(header, name):
    """[(key, numpy dtype, shape, begin, end)] in file order, checked as safetensors checks them: each
    entry well-formed, its byte count its shape's, the data laid end to end from 0 with no gap."""
    entries = []
    for key, info in header.items():
        if key == "__metadata__":
            continue
        if not (isinstance(info, dict) and set(info) == {"dtype", "shape", "data_offsets"}
                and isinstance(info["dtype"], str) and _are_counts(info["shape"])
                and _are_counts(info["data_offsets"]) and len(info["data_offsets"]) == 2):
            raise CheckpointError(f"{name}: tensor entry {reprlib.repr(key)}: {reprlib.repr(info)} is not "
                                  f"{{dtype, shape, data_offsets}} (damaged file)")
        if info["dtype"] not in _DTYPES:
            raise CheckpointError(f"{name}: tensor {reprlib.repr(key)} has safetensors dtype "
                                  f"{reprlib.repr(info['dtype'])}, which minitorch does not read")
        dtype = np.dtype(_DTYPES[info["dtype"]])
        begin, end = info["data_offsets"]
        entries.append((key, dtype, tuple(info["shape"]), begin, end))
    entries.sort(key=lambda entry: entry[3:])
    expected_begin = 0
    for key, dtype, shape, begin, end in entries:
        nbytes = math.prod(shape) * dtype.itemsize  # Python ints: never wraps around
        if begin != expected_begin or end - begin != nbytes:
            raise CheckpointError(f"{name}: tensor {reprlib.repr(key)} of shape {list(shape)} ({nbytes} bytes) is "
                                  f"declared at bytes {begin} to {end} of the data, where the next tensor starts at "
                                  f"{expected_begin} (damaged file)")
        expected_begin = end
    return entries


def _are_counts(values):
    return isinstance(values, list) and all(type(v) is int and v >= 0 for v in values)


def _read_tensor(stream, name, key, dtype, shape, nbytes):
    """The next `nbytes` of `stream`, read straight into a new array of that dtype and shape."""
    if nbytes > sys.maxsize:
        raise CheckpointError(f"{name}: tensor {key!r} declares {nbytes} bytes, more than this machine can address")
    try:
        array = np.empty(shape, dtype=dtype.newbyteorder("="))
    except MemoryError:
        raise MemoryError(f"load: {name}: tensor {key!r} of shape {list(shape)} and dtype {dtype.name} needs "
                          f"{nbytes} bytes, more memory than is available") from None
    received = read_into(stream, memoryview(array.reshape(-1)).cast("B"))
    if received < nbytes:
        raise CheckpointError(f"{name}: the file ends {received} bytes into tensor {key!r}, which its header "
                              f"declares as {nbytes} bytes (truncated)")
    if not dtype.isnative:  # a big-endian machine: the file's little-endian values, swapped in place
        array.byteswap(inplace=True)
    return array


class _Decoder:
    """Rebuilds the saved object from the JSON tree, refusing anything `_Encoder` would not have written."""

    def __init__(self, arrays, name):
        self.arrays = arrays
        self.name = name
        self.loaded = {}  # (kind, stored key) -> object, so a tensor saved once at two places loads as one

    def decode(self, node, depth):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        kind = self._kind(node)
        if kind in ("dict", "list", "tuple") and depth >= _MAX_NESTING:
            raise CheckpointError(f"{self.name}: the minitorch structure nests containers more than "
                                  f"{_MAX_NESTING} deep (damaged file)")
        if kind == "dict":
            return {self._key(k): self.decode(v, depth + 1) for k, v in self._pairs(node["dict"])}
        if kind == "list":
            return [self.decode(v, depth + 1) for v in self._items(node["list"])]
        if kind == "tuple":
            return tuple(self.decode(v, depth + 1) for v in self._items(node["tuple"]))
        if kind == "float":
            return float(node["float"])
        requires_grad = node.get("requires_grad", False)
        if (kind != "tensor" and "requires_grad" in node) or not isinstance(requires_grad, bool):
            self._damaged(node)
        return self.leaf(kind, node[kind], requires_grad)

    def _kind(self, node):
        """Which of `_NODE_KINDS` a JSON object is; anything else is damage."""
        if isinstance(node, dict):
            kinds = [kind for kind in _NODE_KINDS if kind in node]
            extra = set(node) - set(kinds) - {"requires_grad"}
            if len(kinds) == 1 and not extra:
                if kinds[0] != "float" or node["float"] in ("nan", "inf", "-inf"):
                    return kinds[0]
        self._damaged(node)

    def _damaged(self, node):
        raise CheckpointError(f"{self.name}: unexpected entry {reprlib.repr(node)} in the minitorch structure "
                              f"(damaged file)")

    def leaf(self, kind, key, requires_grad):
        """The tensor, array or numpy scalar stored under `key`."""
        if not isinstance(key, str) or key not in self.arrays:
            raise CheckpointError(f"{self.name}: the structure refers to tensor {reprlib.repr(key)}, which the file "
                                  f"does not hold")
        if (kind, key) in self.loaded:
            return self.loaded[(kind, key)]
        array = self.arrays[key]
        if kind == "tensor":
            value = self._tensor(array, key, requires_grad)
        elif kind == "ndarray":
            value = array
        elif array.ndim == 0:
            value = array[()]
        else:
            raise CheckpointError(f"{self.name}: numpy scalar {key!r} has shape {array.shape} (damaged file)")
        self.loaded[(kind, key)] = value
        return value

    def _tensor(self, array, key, requires_grad):
        try:
            tensor = from_numpy(array)
        except TypeError:
            raise CheckpointError(f"{self.name}: tensor {key!r} has dtype {array.dtype}, which minitorch does not "
                                  f"support") from None
        if requires_grad:
            if not tensor.is_floating_point():
                raise CheckpointError(f"{self.name}: tensor {key!r} of dtype {tensor.dtype} is marked requires_grad, "
                                      f"which only floating point tensors can be (damaged file)")
            tensor.requires_grad_(True)
        return tensor

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
        raise CheckpointError(f"{self.name}: dict key {reprlib.repr(key)} in the minitorch structure is not a str "
                              f"or int")
