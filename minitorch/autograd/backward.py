"""The PyTorch door's functions: `backward()` and `autograd.grad()`.

Both run compute_gradient (engine/backprop.py) on the autograd tape
(engine/autograd_tape.py): `backward` accumulates into each leaf's `.grad` as
soon as that leaf's gradient is complete, running the leaf's
post-accumulate-grad hooks there (engine/hooks.py; DistributedDataParallel
starts its all-reduces from them),
`grad` returns the gradients. Without `retain_graph` the pass consumes the
entries it ran, so a second backward through them raises.
"""
import warnings

from ..creation import zeros_like
from ..engine import hooks
from ..engine.autograd_tape import AUTOGRAD_TAPE
from ..engine.backprop import compute_gradient
from ..engine.state import enable_grad, no_grad
from ..ops.coercion import as_operand
from ..tensor import Tensor


def as_tensor_list(tensors):
    """A tensor, or any iterable of them, as a list (None stays None)."""
    if tensors is None:
        return None
    if isinstance(tensors, Tensor):
        return [tensors]
    return list(tensors)


def _output_gradients(outputs, grad_outputs, implicit_ok):
    grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs or [None] * len(outputs))):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if grad is None:
            if out._data.size != 1 and implicit_ok:
                raise RuntimeError(f"grad can be implicitly created only for scalar outputs (output {i} has shape {out.shape})")
        else:
            grad = as_operand(grad, like=out)
            if grad.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {grad.shape} and output[{i}] has a shape of {out.shape}."
                )
        grads.append(grad)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulates the gradients of `tensors` into `.grad` of the leaves they depend on (`tensor.backward()` for several).
    (`grad_variables` is PyTorch's deprecated name for `grad_tensors`.)

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> mt.autograd.backward([(x * x).sum(), x.sum()])
    >>> x.grad
    tensor([3., 5.])
    """
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to backward(). "
                               "Please only use 'grad_tensors'.")
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.", FutureWarning, stacklevel=2)
        grad_tensors = grad_variables
    targets = as_tensor_list(tensors)
    grads = _output_gradients(targets, as_tensor_list(grad_tensors), implicit_ok=True)
    if retain_graph is None:
        retain_graph = create_graph
    recording = enable_grad() if create_graph else no_grad()
    assigned = set()  # ids of the gradient objects already given to a leaf in this pass
    with recording, hooks.backward_pass():
        if inputs is not None:
            inputs = as_tensor_list(inputs)
            results = compute_gradient(AUTOGRAD_TAPE, targets, inputs, grads, release=not retain_graph)
            for leaf, grad in zip(inputs, results):
                if grad is not None:
                    _accumulate(leaf, grad, create_graph, assigned)
        else:
            # Each leaf's .grad is updated (and its post-accumulate hooks run) the
            # moment its gradient is complete, while the pass goes on.
            def accumulate_leaf(tid, grad):
                ref = AUTOGRAD_TAPE.watched.get(tid)
                leaf = ref() if ref is not None else None
                if leaf is not None and leaf._requires_grad:
                    _accumulate(leaf, grad, create_graph, assigned)

            compute_gradient(AUTOGRAD_TAPE, targets, [], grads, release=not retain_graph, collect_leaves=True,
                             leaf_ready=accumulate_leaf)


def _accumulate(leaf, grad, create_graph, assigned):
    """Adds `grad` into `leaf.grad`, then runs the leaf's post-accumulate-grad hooks."""
    if not create_graph:
        grad = grad.detach() if grad._requires_grad else grad
        data = grad._data
        if id(grad) in assigned or data.base is not None or not data.flags.writeable:
            # .grad is the leaf's own: p.grad.zero_() must not write into a shared or broadcast array
            grad = Tensor._make(data.copy())
        assigned.add(id(grad))
    # The slot, not the checking `grad` setter: the engine's gradients have the leaf's shape and dtype already
    # (a student's reverse pass that forgot to un-broadcast is told so by the exercises' checker).
    if leaf._grad is None:
        leaf._grad = grad
    else:
        leaf._grad = leaf._grad + grad
    if hooks.post_accumulate_hooks:
        hooks.run_post_accumulate(leaf)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True, allow_unused=None,
         is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (nothing is accumulated into `.grad`).

    `create_graph=True` makes the result differentiable again (higher derivatives).

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> (g,) = mt.autograd.grad((x ** 3).sum(), x, create_graph=True)
    >>> g
    tensor([ 3., 12.], grad_fn=<MulBackward0>)
    >>> mt.autograd.grad(g.sum(), x)
    (tensor([ 6., 12.]),)
    """
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", stacklevel=2)
    if is_grads_batched:
        raise NotImplementedError("autograd.grad: is_grads_batched=True (vmap over grad_outputs) is not supported by "
                                  "minitorch; loop over the batch of grad_outputs instead")
    targets = as_tensor_list(outputs)
    sources = as_tensor_list(inputs)
    for i, source in enumerate(sources):
        if not source._requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
    grads = _output_gradients(targets, as_tensor_list(grad_outputs), implicit_ok=True)
    if retain_graph is None:
        retain_graph = create_graph
    recording = enable_grad() if create_graph else no_grad()
    with recording:
        results = compute_gradient(AUTOGRAD_TAPE, targets, sources, grads, release=not retain_graph)
    for i, (source, result) in enumerate(zip(sources, results)):
        if result is None:
            if materialize_grads:
                results[i] = zeros_like(source)
            elif not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (input {i}) appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
    return tuple(results)

