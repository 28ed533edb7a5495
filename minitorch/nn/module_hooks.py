"""The machinery behind Module's hooks: the handle that removes one (and tells its module), and a forward
call's full backward hooks, as PyTorch's torch.utils.hooks.BackwardHook.

A module's backward hooks are tensor gradients seen through an identity op, BackwardHookFunction,
wrapped around the forward's inputs and outputs: its backward has all their gradients at once.
"""
import itertools
import weakref

from ..autograd.custom import Function
from ..engine.hooks import RemovableHandle
from ..tensor import Tensor

_hook_ids = itertools.count()


class ModuleHookHandle(RemovableHandle):
    """A RemovableHandle that also tells the module when its last hook is gone."""

    def __init__(self, module, hooks):
        super().__init__(hooks, next(_hook_ids))
        self._module = weakref.ref(module)

    def remove(self):
        super().remove()
        module = self._module()
        if module is not None:
            module._hooks_with_kwargs.discard(self.id)
            module._hooks_always_called.discard(self.id)
            module._hooks_changed()


class BackwardHookFunction(Function):
    """The identity, as one op over several tensors: its backward sees all their gradients at once."""

    @staticmethod
    def forward(ctx, on_backward, *tensors):
        ctx.on_backward = on_backward
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_backward(grads))


class BackwardHook:
    """One forward call's backward hooks, as torch.utils.hooks.BackwardHook.

    The outputs pass through BackwardHookFunction: its backward has the
    gradients of the outputs (grad_output), runs the backward pre-hooks and
    keeps them. The inputs that require grad pass through another one: its
    backward has the gradients of the inputs (grad_input) and runs the full
    backward hooks. When no input requires grad, those run on the output side
    with grad_input all None.
    """

    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_index = None  # positions of the wrapped inputs, None when none requires grad

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a._requires_grad]
        if not index:
            return args
        self.input_index = index
        wrapped = BackwardHookFunction.apply(self._on_input_grads, *[args[i] for i in index])
        args = list(args)
        for i, tensor in zip(index, wrapped):
            args[i] = tensor
        return tuple(args)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outputs = [result] if single else list(result) if isinstance(result, (tuple, list)) else None
        if outputs is None:
            return result  # PyTorch also sees only tensors and tuples of them
        index = [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o._requires_grad]
        if not index:
            return result
        self.n_outputs, self.output_index = len(outputs), index
        wrapped = BackwardHookFunction.apply(self._on_output_grads, *[outputs[i] for i in index])
        for i, tensor in zip(index, wrapped):
            outputs[i] = tensor
        if single:
            return outputs[0]
        return type(result)(outputs)

    @staticmethod
    def _pack(index, grads, size):
        packed = [None] * size
        for i, g in zip(index, grads):
            packed[i] = g
        return tuple(packed)

    @staticmethod
    def _replaced(grads, hooks, call, what):
        """`grads` after each hook in turn: `call(hook, grads)` may return their replacement (a tensor or a tuple
        of one per gradient)."""
        for hook in hooks:
            result = call(hook, grads)
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(result) != len(grads):
                    raise RuntimeError(f"{what} returned an invalid number of grad_{'output' if 'pre' in what else 'input'}, "
                                       f"got {len(result)}, but expected {len(grads)}")
                grads = result
        return grads

    def _on_output_grads(self, grads):
        module = self.module
        grad_outputs = self._replaced(self._pack(self.output_index, grads, self.n_outputs),
                                      list(module._backward_pre_hooks.values()), lambda hook, g: hook(module, g),
                                      "Backward pre hook")
        self.grad_outputs = grad_outputs
        if self.input_index is None:
            grad_inputs = (None,) * self.n_inputs
            for hook in list(module._backward_hooks.values()):
                result = hook(module, grad_inputs, grad_outputs)
                if result is not None and not all(g is None for g in result):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always return None "
                                       "or None for all gradients.")
            self.grad_outputs = None
        return [grad_outputs[i] for i in self.output_index]

    def _on_input_grads(self, grads):
        module = self.module
        grad_inputs = self._pack(self.input_index, grads, self.n_inputs)
        grad_outputs = self.grad_outputs
        if grad_outputs is None:  # the gradient reached the inputs without passing through the outputs
            grad_outputs = (None,) * getattr(self, "n_outputs", 1)
        grad_inputs = self._replaced(grad_inputs, list(module._backward_hooks.values()),
                                     lambda hook, g: hook(module, g, grad_outputs), "Backward hook")
        self.grad_outputs = None
        return [grad_inputs[i] for i in self.input_index]
