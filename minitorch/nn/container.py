"""Containers of modules: Sequential, ModuleList, ModuleDict, as in torch.nn.

They hold their children in the module registry under the names PyTorch
gives them ("0", "1", ... or the given keys), so state_dict keys match.
"""
import operator
from collections import OrderedDict

from .module import Module


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
