"""Containers, as in torch.nn: of modules (Sequential, ModuleList, ModuleDict) and of parameters (ParameterList, ParameterDict).

They hold their children in the module registry under the names PyTorch
gives them ("0", "1", ... or the given keys), so state_dict keys match.
"""
import operator
from collections import OrderedDict
from collections.abc import Mapping

from ..tensor import Tensor
from .module import Module, _indent
from .parameter import Parameter


def _index(idx, length, kind):
    idx = operator.index(idx)
    if not -length <= idx < length:
        raise IndexError(f"index {idx} is out of range for {kind} of length {length}")
    return idx % length


class _NumberedModules(Module):
    """What Sequential and ModuleList share: children named "0", "1", ... in order."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _renumber(self, modules):
        self._modules.clear()
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def append(self, module):
        """Adds a module at the end, named by its position.

        >>> len(mt.nn.Sequential(mt.nn.ReLU()).append(mt.nn.Tanh()))
        2
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        """Appends each module of an iterable.

        >>> len(mt.nn.ModuleList().extend([mt.nn.ReLU(), mt.nn.Tanh()]))
        2
        """
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        """Inserts a module before `index`; later ones are renumbered.

        >>> model = mt.nn.Sequential(mt.nn.ReLU(), mt.nn.Tanh()).insert(1, mt.nn.Sigmoid())
        >>> [type(m).__name__ for m in model]
        ['ReLU', 'Sigmoid', 'Tanh']
        """
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self


class Sequential(_NumberedModules):
    """Modules applied one after another.

    >>> model = mt.nn.Sequential(mt.nn.Linear(4, 8), mt.nn.ReLU(), mt.nn.Linear(8, 2))
    >>> model(mt.randn(3, 4)).shape
    minitorch.Size([3, 2])
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def extend(self, sequential):
        """Appends each module of an iterable (`sequential`: PyTorch's name here).

        >>> len(mt.nn.Sequential().extend([mt.nn.ReLU(), mt.nn.Tanh()]))
        2
        """
        return super().extend(sequential)

    def __getitem__(self, idx):
        items = list(self._modules.items())
        if isinstance(idx, slice):
            return type(self)(OrderedDict(items[idx]))
        return items[_index(idx, len(items), "Sequential")][1]

    def __setitem__(self, idx, module):
        key = list(self._modules)[_index(idx, len(self._modules), "Sequential")]
        setattr(self, key, module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "Sequential")]]):
            del self._modules[key]
        # PyTorch renumbers the remaining children so the names stay 0..n-1.
        self._renumber(list(self._modules.values()))


class ModuleList(_NumberedModules):
    """A list of modules that registers them (their parameters show up in parameters()).

    >>> layers = mt.nn.ModuleList([mt.nn.Linear(2, 2) for _ in range(3)])
    >>> len(layers), len(list(layers.parameters()))
    (3, 6)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        modules = list(self._modules.values())
        if isinstance(idx, slice):
            return type(self)(modules[idx])
        return modules[_index(idx, len(modules), "ModuleList")]

    def __setitem__(self, idx, module):
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        modules = list(self._modules.values())
        del modules[idx]
        self._renumber(modules)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __repr__(self):
        """As PyTorch prints it: a run of children that print alike is shown once, as "(i-j): n x Child(...)".

        >>> print(mt.nn.ModuleList([mt.nn.ReLU(), mt.nn.ReLU(), mt.nn.Tanh()]))
        ModuleList(
          (0-1): 2 x ReLU()
          (2): Tanh()
        )
        """
        runs = []  # [first index, last index, repr] of each run of equal reprs
        for index, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = index
            else:
                runs.append([index, index, text])
        if not runs:
            return self._get_name() + "()"
        lines = [_indent(f"({first}): {text}" if first == last else f"({first}-{last}): {last - first + 1} x {text}", 2)
                 for first, last, text in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward(); iterate over it and call its modules")


class ModuleDict(Module):
    """A dict of modules (insertion ordered) that registers them under their keys.

    >>> heads = mt.nn.ModuleDict({"a": mt.nn.Linear(2, 1), "b": mt.nn.Linear(2, 3)})
    >>> list(heads.keys()), heads["b"](mt.ones(1, 2)).shape
    (['a', 'b'], minitorch.Size([1, 3]))
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        module = self._modules[key]
        del self._modules[key]
        return module

    def update(self, modules):
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward(); index it and call its modules")


def _entry_repr(value):
    """One entry of a parameter container's repr, as PyTorch prints it."""
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"{kind} containing: [{value.dtype} of size {'x'.join(str(n) for n in value.shape)}]"
    return f"Object of type: {type(value).__name__}"


def _as_parameter(value):
    """Tensors put into a parameter container become Parameters (sharing memory); other objects stay as they are."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) else value


class _ParameterContainer(Module):
    """What ParameterList and ParameterDict share: no forward, and PyTorch's repr."""

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{type(self).__name__} should not be called.")

    def extra_repr(self):
        return "\n".join(f"  ({key}): {_entry_repr(value)}" for key, value in self._entries())

    def __repr__(self):
        lines = self.extra_repr().split("\n") if len(self) else []
        if len(lines) <= 1:
            return f"{self._get_name()}({''.join(lines)})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ParameterList(_ParameterContainer):
    """A list of parameters that registers them (named "0", "1", ...); tensors appended become Parameters.

    >>> weights = mt.nn.ParameterList([mt.nn.Parameter(mt.ones(2, 3)), mt.zeros(2)])
    >>> weights
    ParameterList(
        (0): Parameter containing: [minitorch.float32 of size 2x3]
        (1): Parameter containing: [minitorch.float32 of size 2]
    )
    >>> len(weights), [name for name, _ in weights.named_parameters()]
    (2, ['0', '1'])
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _entries(self):
        return enumerate(self)

    def _index(self, idx):
        return str(_index(idx, len(self), "ParameterList"))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(*idx.indices(len(self)))])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx, value):
        setattr(self, self._index(idx), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def __iadd__(self, values):
        return self.extend(values)

    def __dir__(self):
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value):
        """Adds a parameter (or any object) at the end.

        >>> mt.nn.ParameterList().append(mt.ones(1))[0].requires_grad
        True
        """
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        """Appends each element of an iterable.

        >>> len(mt.nn.ParameterList().extend([mt.ones(1), mt.ones(2)]))
        2
        """
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for value in values:
            self.append(value)
        return self


class ParameterDict(_ParameterContainer):
    """A dict of parameters that registers them under their (string) keys; tensors put in become Parameters.

    A plain dict is added in sorted key order, an OrderedDict or ParameterDict in its own, as PyTorch.

    >>> params = mt.nn.ParameterDict({"scale": mt.ones(3), "shift": mt.zeros(3)})
    >>> list(params.keys()), list(params.state_dict())
    (['scale', 'shift'], ['scale', 'shift'])
    >>> params["scale"].requires_grad
    True
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _entries(self):
        return self.items()

    @staticmethod
    def _key(key):
        if not isinstance(key, str):
            raise TypeError(f"Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}')")
        return key

    def __getitem__(self, key):
        if self._key(key) not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._key(key)
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Removes and returns the last (key, value) pair.

        >>> mt.nn.ParameterDict({"a": mt.ones(1)}).popitem()[0]
        'a'
        """
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def copy(self):
        return ParameterDict(OrderedDict((key, self[key]) for key in self._keys))

    def fromkeys(self, keys, default=None):
        return ParameterDict((key, default) for key in keys)

    def update(self, parameters):
        """Adds the pairs of a mapping (a plain dict in sorted key order) or of an iterable of (key, value) pairs.

        >>> params = mt.nn.ParameterDict(); params.update([("b", mt.ones(1)), ("a", mt.ones(1))]); list(params)
        ['b', 'a']
        """
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        elif isinstance(parameters, Tensor) or not hasattr(parameters, "__iter__"):
            raise TypeError(f"ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(parameters).__name__}")
        else:
            pairs = []
            for j, pair in enumerate(parameters):
                if not hasattr(pair, "__iter__"):
                    raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; is {type(pair).__name__}")
                pair = tuple(pair)
                if len(pair) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; 2 is required")
                pairs.append(pair)
        for key, value in pairs:
            self[key] = value

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
