"""Module: the base class of layers and models, as torch.nn.Module.

A Module keeps three ordered registries, filled by attribute assignment:
parameters (Parameter), buffers (tensors that are state but not learned,
like BatchNorm's running mean) and submodules. Everything else walks them
in that order: parameters(), state_dict() (PyTorch's keys and key order:
each module's parameters, then its persistent buffers, then its children,
recursively), load_state_dict(), train()/eval(), to(dtype), repr.

Module hooks follow PyTorch: forward pre-hooks, forward hooks and full
backward (pre-)hooks, with removable handles. The backward ones are tensor
gradients seen through an identity op (BackwardHookFunction, as PyTorch's
torch.utils.hooks.BackwardHook) wrapped around the forward's inputs and
outputs (nn/module_hooks.py). A module without hooks pays one flag test per call.
"""
from collections import OrderedDict, namedtuple

import numpy as np

from .. import dtypes
from ..creation import zeros_like
from ..devices import cpu_device
from ..engine.state import no_grad, thread_state
from ..tensor import Size, Tensor
from ..tensor_methods import to_arguments
from .module_hooks import BackwardHook, ModuleHookHandle
from .parameter import Buffer, Parameter

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


class Module:
    """Base class for all layers and models.

    >>> class TwoLayer(mt.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = mt.nn.Linear(4, 8)
    ...         self.out = mt.nn.Linear(8, 2)
    ...     def forward(self, x):
    ...         return self.out(self.hidden(x).relu())
    >>> list(TwoLayer().state_dict())
    ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    """

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments {args} {kwargs}")
        # Set through object.__setattr__: our __setattr__ needs these to exist.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_hooks_with_kwargs", set())  # handle ids of hooks that also get kwargs
        object.__setattr__(self, "_hooks_always_called", set())  # forward hooks that run when forward raises too

    _has_hooks = False  # the one test __call__ makes; set while any hook is registered

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if not self._has_hooks:
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        """PyTorch's order: pre-hooks, the input side of the backward hooks, forward, forward hooks, the output side."""
        with_kwargs = self._hooks_with_kwargs
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if (self._backward_hooks or self._backward_pre_hooks) and thread_state.recording:
            backward_hook = BackwardHook(self)
            args = backward_hook.setup_input_hook(args)
        try:
            result = self.forward(*args, **kwargs)
        except BaseException:
            for key, hook in list(self._forward_hooks.items()):  # always_call=True: run, then the error goes on
                if key in self._hooks_always_called:
                    hook(self, args, kwargs, None) if key in with_kwargs else hook(self, args, None)
            raise
        for key, hook in list(self._forward_hooks.items()):
            hook_result = hook(self, args, kwargs, result) if key in with_kwargs else hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        if backward_hook is not None:
            result = backward_hook.setup_output_hook(result)
        return result

    # ----- hooks -----

    def _add_hook(self, registry, hook, prepend, with_kwargs=False, always_call=False):
        if not callable(hook):
            raise TypeError(f"hook must be callable, got {type(hook).__name__}")
        handle = ModuleHookHandle(self, registry)
        registry[handle.id] = hook
        if prepend:
            registry.move_to_end(handle.id, last=False)
        if with_kwargs:
            self._hooks_with_kwargs.add(handle.id)
        if always_call:
            self._hooks_always_called.add(handle.id)
        object.__setattr__(self, "_has_hooks", True)
        return handle

    def _hooks_changed(self):
        any_hooks = bool(self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks or self._backward_hooks)
        object.__setattr__(self, "_has_hooks", any_hooks)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Calls `hook(module, args)` before each forward; a returned value replaces args.

        A returned non-tuple is wrapped into a 1-tuple. With `with_kwargs=True`
        the hook is `hook(module, args, kwargs)` and returns None or (args, kwargs).
        Returns a handle; `handle.remove()` unregisters the hook.

        >>> layer = mt.nn.Linear(2, 1)
        >>> handle = layer.register_forward_pre_hook(lambda module, args: (args[0] * 0,))
        >>> layer(mt.ones(1, 2)).tolist() == [[layer.bias.item()]]
        True
        >>> handle.remove()
        """
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Calls `hook(module, args, output)` after each forward; a returned value replaces the output.

        With `with_kwargs=True` the hook is `hook(module, args, kwargs, output)`; with `always_call=True`
        it also runs (with output None) when forward raises, before the error goes on.

        >>> shapes = []
        >>> layer = mt.nn.Linear(3, 2)
        >>> handle = layer.register_forward_hook(lambda module, args, out: shapes.append(tuple(out.shape)))
        >>> _ = layer(mt.ones(4, 3))
        >>> shapes
        [(4, 2)]
        >>> handle.remove()
        """
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs, always_call)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Calls `hook(module, grad_output)` when the gradients of the module's outputs are known.

        `grad_output` is a tuple, one entry per output (None for outputs that
        do not require grad); a returned tuple replaces it before it flows
        into the module.

        >>> layer = mt.nn.Linear(2, 1)
        >>> handle = layer.register_full_backward_pre_hook(lambda module, grad_output: (grad_output[0] * 0,))
        >>> layer(mt.ones(1, 2)).sum().backward()
        >>> layer.weight.grad.tolist()
        [[0.0, 0.0]]
        """
        return self._add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Calls `hook(module, grad_input, grad_output)` during backward, PyTorch's semantics.

        `grad_output` holds the gradients with respect to the module's outputs,
        `grad_input` those with respect to its positional tensor inputs (None
        where an argument is not a tensor requiring grad). The hook runs once
        the input gradients are known; a returned tuple replaces grad_input.
        Gradients of the parameters are not part of grad_input.

        >>> layer = mt.nn.Linear(2, 1)
        >>> seen = []
        >>> handle = layer.register_full_backward_hook(
        ...     lambda module, grad_input, grad_output: seen.append((grad_input[0].shape, grad_output[0].shape)))
        >>> x = mt.ones(3, 2, requires_grad=True)
        >>> layer(x).sum().backward()
        >>> seen
        [(minitorch.Size([3, 2]), minitorch.Size([3, 1]))]
        """
        return self._add_hook(self._backward_hooks, hook, prepend)

    # ----- registration -----

    def register_parameter(self, name, param):
        """Adds a parameter (or None, a declared but absent parameter like a missing bias).

        >>> m = mt.nn.Module()
        >>> m.register_parameter("scale", mt.nn.Parameter(mt.ones(2)))
        >>> [name for name, _ in m.named_parameters()]
        ['scale']
        """
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' (minitorch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer: state saved in the state_dict (if persistent) but not trained.

        >>> m = mt.nn.Module()
        >>> m.register_buffer("running_total", mt.zeros(3))
        >>> list(m.state_dict()), list(m.parameters())
        (['running_total'], [])
        """
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (minitorch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Registers a child module under `name` (what attribute assignment does).

        >>> m = mt.nn.Module()
        >>> m.add_module("fc", mt.nn.Linear(2, 3))
        >>> [name for name, _ in m.named_children()]
        ['fc']
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_new_name(name, "module", self._modules)
        self._modules[name] = module

    register_module = add_module

    def _check_new_name(self, name, kind, registry):
        if "_modules" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f'{kind} name can\'t be empty or contain ".", got: {name!r}')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def __setattr__(self, name, value):
        registries = self.__dict__.get("_parameters"), self.__dict__.get("_buffers"), self.__dict__.get("_modules")
        if isinstance(value, Parameter):
            if registries[0] is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep=registries[0])
            self.register_parameter(name, value)
        elif isinstance(value, Buffer):
            if registries[1] is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name, keep=registries[1])
            self.register_buffer(name, value, persistent=value.persistent)
        elif isinstance(value, Module):
            if registries[2] is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep=registries[2])
            self._modules[name] = value
        elif registries[0] is not None and name in registries[0]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' (minitorch.nn.Parameter or None expected)"
                )
            registries[0][name] = None
        elif registries[2] is not None and name in registries[2]:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' (minitorch.nn.Module or None expected)")
            registries[2][name] = None
        elif registries[1] is not None and name in registries[1]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (minitorch Tensor or None expected)")
            registries[1][name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep):
        """Removes `name` from every place but `keep`, so one name means one thing."""
        self.__dict__.pop(name, None)
        for registry in (self._parameters, self._buffers, self._modules):
            if registry is not keep:
                registry.pop(name, None)
        if keep is not self._buffers:
            self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        # Called only when normal lookup fails: look in the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    def get_submodule(self, target):
        module = self
        for item in target.split(".") if target else ():
            if item not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._parameters:
            raise AttributeError(f"{type(module).__name__} has no parameter `{name}`")
        return module._parameters[name]

    # ----- iteration over the registries -----

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every descendant, depth first, each module once.

        >>> model = mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.ReLU())
        >>> [name for name, _ in model.named_modules()]
        ['', '0', '1']
        """
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self, remove_duplicate=True):
        """This module and every descendant (a module reached twice comes once, unless `remove_duplicate=False`).

        >>> len(list(mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.ReLU()).modules()))
        3
        """
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self):
        """(name, module) for the direct children.

        >>> [name for name, _ in mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.ReLU()).named_children()]
        ['0', '1']
        """
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        """The direct children.

        >>> [type(m).__name__ for m in mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.ReLU()).children()]
        ['Linear', 'ReLU']
        """
        for _, module in self.named_children():
            yield module

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        seen = set()
        for module_prefix, module in modules:
            for name, value in getattr(module, registry).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) in registration order, shared parameters once.

        >>> [(name, p.shape) for name, p in mt.nn.Linear(3, 2).named_parameters()]
        [('weight', minitorch.Size([2, 3])), ('bias', minitorch.Size([2]))]
        """
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """The parameters, for an optimizer.

        >>> sum(p.numel() for p in mt.nn.Linear(3, 2).parameters())
        8
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, buffer) in registration order.

        >>> [name for name, _ in mt.nn.BatchNorm1d(4).named_buffers()]
        ['running_mean', 'running_var', 'num_batches_tracked']
        """
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """The buffers (state that is saved but not trained).

        >>> [b.shape for b in mt.nn.BatchNorm1d(4).buffers()]
        [minitorch.Size([4]), minitorch.Size([4]), minitorch.Size([])]
        """
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # ----- modes and gradients -----

    def train(self, mode=True):
        """Sets training mode here and in every descendant (Dropout, BatchNorm behave differently).

        >>> model = mt.nn.Sequential(mt.nn.Dropout(0.5))
        >>> model.train().training, model[0].training
        (True, True)
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        """Evaluation mode: train(False).

        >>> mt.nn.Dropout(0.5).eval().training
        False
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad on every parameter (freezing a model with False).

        >>> layer = mt.nn.Linear(2, 2).requires_grad_(False)
        >>> layer.weight.requires_grad
        False
        """
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clears the parameters' gradients (to None, or to zeros with set_to_none=False).

        >>> layer = mt.nn.Linear(2, 1)
        >>> layer(mt.ones(1, 2)).sum().backward()
        >>> layer.zero_grad()
        >>> layer.weight.grad is None
        True
        """
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad = zeros_like(param.grad)

    def apply(self, fn):
        """Calls fn on every child (recursively) and then on self, like PyTorch; used for custom init.

        >>> model = mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.Linear(2, 2))
        >>> _ = model.apply(lambda m: mt.nn.init.zeros_(m.bias) if isinstance(m, mt.nn.Linear) else None)
        >>> model[1].bias.tolist()
        [0.0, 0.0]
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ----- dtype conversion (one device: the CPU) -----

    def to(self, *args, **kwargs):
        """Converts floating parameters and buffers in place: module.to(mt.float64), .to("cpu"), .to("cpu", mt.float64).

        Any device but the CPU raises DeviceError (nothing silently stays on the CPU).

        >>> mt.nn.Linear(2, 2).to(mt.float64).weight.dtype
        minitorch.float64
        >>> mt.nn.Linear(2, 2).to("cuda")
        Traceback (most recent call last):
            ...
        minitorch.devices.DeviceError: device 'cuda' is not available: minitorch computes on the CPU only (mt.cuda.is_available() is False); use 'cpu'
        """
        device, dtype, _, _ = to_arguments(args, kwargs)
        if device is not None:
            cpu_device(device)
        if dtype is None:
            return self
        dtype = dtypes.from_numpy_dtype(dtypes.to_numpy_dtype(dtype))
        if not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
        return self._convert_floats(dtype.numpy)

    def _convert_floats(self, np_dtype):
        # In place, so optimizers holding these Parameter objects keep working.
        for tensor in list(self.parameters()) + list(self.buffers()):
            if tensor.is_floating_point():
                tensor.data = tensor.data.to(np_dtype)
                if tensor.grad is not None:
                    tensor.grad = tensor.grad.to(np_dtype)
        return self

    def float(self):
        """Floating parameters and buffers to float32, in place.

        >>> mt.nn.Linear(2, 2).double().float().weight.dtype
        minitorch.float32
        """
        return self._convert_floats(np.float32)

    def double(self):
        """Floating parameters and buffers to float64, in place (for gradcheck).

        >>> mt.nn.Linear(2, 2).double().bias.dtype
        minitorch.float64
        """
        return self._convert_floats(np.float64)

    def half(self):
        return self._convert_floats(np.float16)

    def type(self, dst_type):
        return self.to(dst_type)

    def cpu(self):
        return self

    def cuda(self, device=None):
        """Raises DeviceError: minitorch has no CUDA device."""
        cpu_device("cuda" if device is None else device if isinstance(device, str) else f"cuda:{int(device)}")

    # ----- state_dict -----

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict name -> detached tensor (sharing memory), in PyTorch's key order.

        >>> list(mt.nn.Sequential(mt.nn.Linear(2, 2), mt.nn.BatchNorm1d(2)).state_dict())
        ['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked']
        """
        if args:  # PyTorch's old positional form state_dict(destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs,
                              assign=False):
        """Copies this module's own entries (not its children's) in place, or with `assign` takes the
        loaded tensors themselves (a parameter keeps its requires_grad); collects problems."""
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in list(self._parameters.items()) + list(persistent_buffers.items()) if v is not None}
        for name, target in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            array = np.asarray(value)
            if array.shape != target.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {Size(array.shape)!r} from checkpoint, "
                    f"the shape in current model is {Size(target.shape)!r}."
                )
                continue
            if assign:
                self._assign_loaded(name, target, value)
                continue
            with no_grad():
                target.copy_(array)
        if strict:
            children = set(self._modules)
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                name = key[len(prefix):].split(".", 1)[0]
                if name not in local_state and name not in children:
                    unexpected_keys.append(key)

    def _assign_loaded(self, name, target, value):
        value = value if isinstance(value, Tensor) else Tensor._from_data(value)
        if name in self._parameters:
            if not isinstance(value, Parameter):
                value = Parameter(value, requires_grad=target.requires_grad)
            elif value.requires_grad != target.requires_grad:
                value.requires_grad_(target.requires_grad)
            self._parameters[name] = value
        else:
            self._buffers[name] = value

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies values into the parameters and buffers in place (with `assign=True`, takes the
        state_dict's tensors themselves instead, as PyTorch).

        Missing or unexpected keys raise RuntimeError when `strict`; shape
        mismatches always do. Returns (missing_keys, unexpected_keys).

        >>> source, target = mt.nn.Linear(2, 2), mt.nn.Linear(2, 2)
        >>> target.load_state_dict(source.state_dict())
        IncompatibleKeys(missing_keys=[], unexpected_keys=[])
        >>> bool((target.weight == source.weight).all())
        True
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []

        def load(module, prefix):
            module._load_from_state_dict(state_dict, prefix, True, missing_keys, unexpected_keys, error_msgs,
                                         assign=assign)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self, "")
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(error_msgs))
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ----- repr -----

    def extra_repr(self):
        """The layer's settings shown inside its repr, e.g. 'in_features=784, out_features=256, bias=True'."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append(f"({name}): " + _indent(repr(module), 2))
        if not self._modules:
            return f"{self._get_name()}({extra})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _indent(text, spaces):
    """Indents every line of a child's repr but the first, as PyTorch's _addindent."""
    lines = text.split("\n")
    return "\n".join(lines[:1] + [" " * spaces + line for line in lines[1:]])


ALWAYS = object()  # an option options_repr shows whatever its value


def options_repr(head, show=str, **options):
    """A layer's extra_repr as PyTorch writes it: `head`, then `name=value` for each option, in the order
    given, whose value differs from its default (`options`: name=(value, default); a default of ALWAYS
    shows the option always), each value written by `show` (str, or repr as EmbeddingBag's).

    >>> options_repr("3, 4", padding_idx=(None, None), norm_type=(1.0, 2), sparse=(True, False))
    '3, 4, norm_type=1.0, sparse=True'
    """
    return ", ".join([head] + [f"{name}={show(value)}" for name, (value, default) in options.items()
                               if default is ALWAYS or value != default])
