"""The PyTorch door: `requires_grad`, `.backward()`, `.grad`, `autograd.grad`.

There is no second engine behind it. It is one more tape, AUTOGRAD_TAPE:
persistent, living as long as the program, joining the global tape set the
first time any tensor requires grad, and watching every tensor with
`requires_grad=True` that an op reads (`watch_accessed_variables`, as a
TensorFlow tape watches variables). Outputs it records require grad
themselves. `backward()` runs compute_gradient on it and accumulates into
each leaf's `.grad` as soon as that leaf's gradient is complete, running the
leaf's post-accumulate-grad hooks there (hooks.py); without `retain_graph`
the pass consumes the entries it ran, so a second backward through them
raises. Dropped tensors free their entries through delete_trace, like on
any tape.
"""
from . import hooks, tape_set
from .backprop import compute_gradient
from .tape import Tape


class AutogradTape(Tape):
    marks_outputs = True
    leaves_when_empty = True

    def __init__(self):
        super().__init__(persistent=True, watch_accessed_variables=True)
        self.active = False

    def should_record(self, inputs):
        tensor_tape = self.tensor_tape
        for t in inputs:  # it watches whatever requires grad: one flag to test
            if t._requires_grad or t._id in tensor_tape:
                # Paused on this thread while a GradientTape computes a gradient: like
                # PyTorch without create_graph, gradients do not require grad themselves.
                return not tape_set.thread_state.autograd_tape_paused
        return False

    def activate(self):
        if not self.active:
            self.active = True
            tape_set.active_tapes.insert(0, self)

    def leave(self):
        # Nothing left that requires grad: leave the tape set, so that plain
        # numpy-like work pays only record_gradient's early exit.
        if self.active:
            self.active = False
            tape_set.pop_tape(self)


AUTOGRAD_TAPE = AutogradTape()


def watch(tensor):
    """A tensor now requires grad: the autograd tape watches it from here on."""
    AUTOGRAD_TAPE.activate()
    AUTOGRAD_TAPE.watch(tensor)


def producer_name(tensor):
    op_id = AUTOGRAD_TAPE.tensor_tape.get(tensor._id)
    if op_id is None or op_id == -1:
        return None
    entry = AUTOGRAD_TAPE.op_tape.get(op_id)
    return entry.op_type if entry is not None else "Freed"


def _as_list(tensors):
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
            grad = as_tensor(grad, like=out)
            if grad.shape != out.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {grad.shape} and output[{i}] has a shape of {out.shape}."
                )
        grads.append(grad)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into `.grad` of the leaves they depend on (`tensor.backward()` for several).

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> mt.autograd.backward([(x * x).sum(), x.sum()])
    >>> x.grad
    tensor([3., 5.])
    """
    targets = _as_list(tensors)
    grads = _output_gradients(targets, _as_list(grad_tensors), implicit_ok=True)
    if retain_graph is None:
        retain_graph = create_graph
    recording = tape_set.enable_grad() if create_graph else tape_set.no_grad()
    assigned = set()  # ids of the gradient objects already given to a leaf in this pass
    with recording, hooks.backward_pass():
        if inputs is not None:
            inputs = _as_list(inputs)
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
    if not create_graph:
        grad = grad.detach() if grad._requires_grad else grad
        if id(grad) in assigned:  # the same gradient object reached two leaves
            grad = Tensor._from_array(grad._data.copy())
        assigned.add(id(grad))
    if leaf.grad is None:
        leaf.grad = grad
    else:
        leaf.grad = leaf.grad + grad
    if hooks.post_accumulate_hooks:
        hooks.run_post_accumulate(leaf)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (nothing is accumulated into `.grad`).

    `create_graph=True` makes the result differentiable again (higher derivatives).

    >>> x = mt.tensor([1.0, 2.0], requires_grad=True)
    >>> (g,) = mt.autograd.grad((x ** 3).sum(), x, create_graph=True)
    >>> g
    tensor([3., 12.], grad_fn=<MulBackward>)
    >>> mt.autograd.grad(g.sum(), x)
    (tensor([6., 12.]),)
    """
    targets = _as_list(outputs)
    sources = _as_list(inputs)
    for i, source in enumerate(sources):
        if not source._requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
    grads = _output_gradients(targets, _as_list(grad_outputs), implicit_ok=True)
    if retain_graph is None:
        retain_graph = create_graph
    recording = tape_set.enable_grad() if create_graph else tape_set.no_grad()
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


from ..creation import zeros_like  # noqa: E402
from ..tensor import Tensor, as_tensor  # noqa: E402
