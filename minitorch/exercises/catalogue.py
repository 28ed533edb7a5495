"""The exercises: which op each one is, what its stub says, and the cases it is checked on.

An op exercise names a row of the op table (engine/registry.py: OPS[op].grad
is the gradient the engine calls) and the student's function that replaces it;
its cases are small programs that run the op once on float64 inputs. The
reverse-pass exercise replaces compute_gradient (engine/backprop.py) itself;
its cases are in reverse_pass.py.
"""
import dataclasses
import math

import minitorch as mt
from minitorch.nn import functional as F
from minitorch.ops.batch_norm_ops import fused_batch_norm
from minitorch.ops.loss_ops import sparse_softmax_cross_entropy_with_logits


@dataclasses.dataclass(frozen=True)
class Case:
    """One check of an op exercise: `inputs` are (kind, shape) specs, `run(*tensors)` returns the op's first output."""

    label: str
    inputs: tuple
    run: object

    def arrays(self, rng):
        """Fresh float64 inputs (int64 for labels) for this case."""
        return [_sample(kind, shape, rng) for kind, shape in self.inputs]


def _sample(kind, shape, rng):
    if kind == "any":
        return rng.standard_normal(shape)
    if kind == "positive":
        return rng.uniform(0.5, 2.0, shape)
    if kind == "away from 0":  # no kink within reach of finite differences
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 1.5, shape)
    if kind == "distinct":  # no ties inside a pooling window
        return rng.permutation(int(math.prod(shape))).reshape(shape) * 0.05 + rng.uniform(0, 0.01, shape)
    if kind.startswith("labels"):
        return rng.integers(0, int(kind.split()[1]), shape)
    raise ValueError(f"unknown input kind {kind!r}")


@dataclasses.dataclass(frozen=True)
class Exercise:
    """`name` on the command line, `function` in the student's file, `op` its op-table row (None: the reverse pass)."""

    name: str
    function: str
    op: object
    group: str
    signature: str
    doc: str
    cases: tuple = ()


GROUPS = {
    "elementwise": "1. elementwise ops and broadcasting",
    "shapes": "2. reductions and shapes",
    "layers": "3. a linear layer and its loss",
    "cnn": "4. convolutional layers",
    "reverse pass": "5. the reverse pass",
}

_ADD = """z = x + y, with broadcasting: dz/dx = 1 and dz/dy = 1.

grad is dL/dz, of z's (broadcast) shape. Return (dL/dx, dL/dy), each of its
input's shape (op.input_shapes): where an input was broadcast, a leading axis
it lacked or an axis of size 1 stretched to n, sum grad over that axis.
Write that once in sum_to_shape below; mul, matmul and your reverse pass
need it too. (minitorch's own gradients may return the broadcast shape and
let the tape sum it back, engine/backprop.py: match_input.) Add keeps
nothing: its gradient needs no values."""

_MUL = """z = x * y, with broadcasting: dz/dx = y and dz/dy = x.

op.inputs is (x, y): Mul keeps its inputs. Return (dL/dx, dL/dy), each of
its input's shape. op.needs_input_grad says which are wanted; you may
return None for the others."""

_EXP = """z = exp(x): dz/dx = exp(x) = z.

The op table keeps Exp's output, not its input: op.outputs[0] is z, and
op.inputs is not available (reading it raises)."""

_LOG = """z = log(x): dz/dx = 1 / x. op.inputs[0] is x."""

_TANH = """z = tanh(x): dz/dx = 1 - tanh(x)^2 = 1 - z^2. Only the output is kept: op.outputs[0] is z."""

_RELU = """z = relu(x) = max(x, 0): dz/dx = 1 where x > 0, else 0.

Only the output is kept (op.outputs[0] is z; z > 0 exactly where x > 0). A
comparison gives a bool tensor: .to(grad.dtype), or mt.where(z > 0, grad, 0 * grad)."""

_SUM = """z = x.sum(axis, keepdims): every x that went into a sum gets that sum's gradient.

op.attrs["axis"] is a tuple of axes, or None for all; op.attrs["keepdims"]
a bool. op.input_shapes[0] is x's shape. Put the summed axes back as size 1
(grad.reshape), then stretch to x's shape (.expand(*shape), or multiply by
mt.ones(shape, dtype=grad.dtype))."""

_MEAN = """z = x.mean(axis, keepdims): as sum, divided by how many values each mean averaged.

op.attrs as for sum."""

_RESHAPE = """z = x.reshape(shape): the same values in another shape; the gradient takes x's shape back.

op.input_shapes[0] is x's shape."""

_TRANSPOSE = """z = x.permute(*perm): axis i of z is axis perm[i] of x.

op.attrs["perm"] is perm. The gradient goes through the inverse permutation:
the axis that went to place i comes back from it."""

_MATMUL = """C = A @ B, batched: dA = dC @ B^T, dB = A^T @ dC (^T: the last two axes swapped).

op.inputs is (A, B); op.attrs may hold transpose_a / transpose_b (True:
that operand is used transposed; nn.Linear runs x @ W^T with
transpose_b=True): work out dA and dB for C = op(A) op(B). Leading (batch)
axes broadcast: sum each gradient back to its input's shape. Use mt.matmul
and .transpose(-1, -2)."""

_CROSS_ENTROPY = """loss_i = logsumexp(logits_i) - logits_i[label_i]: dloss_i/dlogits_i = softmax(logits_i) - one_hot(label_i).

op.inputs is (logits (N, C), labels (N,) int64); op.outputs is (loss (N,),
backprop (N, C) = softmax - one_hot, computed by the forward pass). grad_loss
is dL/dloss (N,); grad_backprop is None unless something used backprop.
Return (dL/dlogits, None): labels get no gradient. Recomputing softmax from
the logits (mt.softmax(logits, 1)) keeps your gradient differentiable twice;
op.outputs[1] is cheaper, but then a second derivative also sends you
grad_backprop, which you would have to handle. One-hot rows:
labels.unsqueeze(1) == mt.arange(C)."""

_MAX_POOL = """values = max over each window of x (N, C, H, W): the gradient of each window goes to its maximum.

op.outputs is (values (N, C, Ho, Wo), argmax (N, C, Ho, Wo) int64): argmax
is the flat index h * W + w of each window's maximum in its (n, c) plane.
op.input_shapes[0] is x's shape. Windows may overlap (stride < kernel): an
element that is the maximum of several windows gets their gradients added.
grad_argmax is None (indices have no gradient). Return dL/dx. One way, with
minitorch ops only: compare argmax with mt.arange(H * W) to get, per
window, a one-hot row over the plane; weight it by the window's gradient;
sum over the windows."""

_CONV2D = """y = conv2d(x, w, b): y[n, o, p, q] = b[o] + sum over c, i, j of w[o, c, i, j] * x_padded[n, c, p*s + i, q*s + j].

op.inputs is (x (N, C, H, W), w (O, C, kH, kW)) or (x, w, b (O,)).
op.attrs: stride (s, s), padding ((top, bottom), (left, right)), dilation
(d, d), groups 1. With dilation, i above reads i*d: the checks use d = 1,
but your dw below is itself a convolution with dilation s, and a second
derivative runs your gradient on it, so handle d too. Return (dx, dw) or
(dx, dw, db). Each is a sum over what used it:
  db[o]          = sum of grad[:, o]
  dw[o, c, i, j] = sum over n, p, q of grad[n, o, p, q] * x_padded[n, c, p*s + i*d, q*s + j*d]:
                   a convolution of x (channels as the batch) with grad (as the filters),
                   F.conv2d(x_padded.transpose(0, 1), grad.transpose(0, 1), stride=d, dilation=s),
                   cut to (kH, kW) and transposed back
  dx             = the "full" convolution of grad, with s - 1 zeros put between its rows and
                   columns, by w flipped in space with its channel axes swapped
                   (w[:, :, ::-1, ::-1].transpose(0, 1)), padding d*(k - 1) and dilation d:
                   the gradient of x_padded (rows the windows never reached get 0); cut the
                   padding off
mt.cat, mt.zeros, indexing and F.conv2d are all differentiable."""

_BATCH_NORM = """Training-mode batch norm over (N, C, *): per channel c, with m values per channel,
mean and var (biased) over every axis but 1, x_hat = (x - mean) / sqrt(var + eps),
y = scale * x_hat + offset.

op.inputs is (x, scale (C,), offset (C,)); op.attrs["eps"]; op.outputs is
(y, batch mean, batch var, saved mean, saved inv std). Return (dx, dscale, doffset):
  doffset = sum of grad_y,  dscale = sum of grad_y * x_hat  (per channel)
  dx = scale / sqrt(var + eps) / m * (m * grad_y - doffset - x_hat * dscale)
The four statistics' gradients are None unless something used the
statistics: recompute mean and var from x with minitorch ops and ignore them
(op.outputs[3:] are the saved ones, but a second derivative would then send
you their gradients too)."""

_COMPUTE_GRADIENT = """The reverse pass: the gradients of `targets` with respect to `sources` (minitorch's own is
engine/backprop.py: compute_gradient). Return one gradient per source, in order (None for a
source the targets do not depend on).

targets: the tensors the pass starts from; output_gradients: one Tensor per target, the
gradient it starts with (ones for a loss). The tape, by id (engine/tape.py), read only:
  tape.tensor_tape.get(t._id)   the id of the op that made tensor t; -1 for a watched leaf;
                                None for a tensor the tape never saw (a constant)
  tape.op_tape[op_id]           that op's entry:
      entry.op_type                        "Mul", "MatMul", ...
      entry.input_ids, entry.input_info    the inputs' ids and (shape, numpy dtype)
      entry.output_ids, entry.output_info  the outputs' ids and (shape, numpy dtype)
      entry.backward_function(needs, output_grads)
          the op's gradient: needs has one bool per input (True for inputs on the tape),
          output_grads one Tensor per output; returns one gradient (or None) per input,
          possibly of the broadcast shape
Steps:
  1. the ops between the targets and the sources, in topological order (an op after every
     op that made its inputs): a depth-first walk from the targets' ids; op ids grow in
     recording order, which is also a topological order;
  2. each target's gradient starts as its output gradient;
  3. for each op, last first: sum the gradients its outputs received (an output nothing
     sent a gradient to gets mt.zeros of its shape and dtype); call its backward function;
  4. sum each input gradient back to its input's shape (sum_to_shape) and add it to what
     that input already received: a tensor used twice gets two gradients.
Use minitorch ops throughout: then a pass with create_graph=True is recorded and can be
differentiated again."""


def _exercise(name, op, group, signature, doc, cases=()):
    return Exercise(name, f"{name}_grad", op, group, signature, doc, tuple(cases))


def _sce(logits, labels):
    return sparse_softmax_cross_entropy_with_logits(logits, labels)[0]


def _batch_norm(x, scale, offset):
    return fused_batch_norm(x, scale, offset)[0]


EXERCISES = (
    _exercise("add", "Add", "elementwise", "op, grad", _ADD, [
        Case("x (2, 3) + y (3,)", (("any", (2, 3)), ("any", (3,))), lambda x, y: x + y),
        Case("x (2, 1) + y (1, 3)", (("any", (2, 1)), ("any", (1, 3))), lambda x, y: x + y),
    ]),
    _exercise("mul", "Mul", "elementwise", "op, grad", _MUL, [
        Case("x (2, 3) * y (3,)", (("any", (2, 3)), ("any", (3,))), lambda x, y: x * y),
        Case("x (4, 1) * y (2, 1, 3)", (("any", (4, 1)), ("any", (2, 1, 3))), lambda x, y: x * y),
    ]),
    _exercise("exp", "Exp", "elementwise", "op, grad", _EXP, [Case("exp(x), x (2, 3)", (("any", (2, 3)),), mt.exp)]),
    _exercise("log", "Log", "elementwise", "op, grad", _LOG, [Case("log(x), x (2, 3)", (("positive", (2, 3)),), mt.log)]),
    _exercise("tanh", "Tanh", "elementwise", "op, grad", _TANH, [Case("tanh(x), x (2, 3)", (("any", (2, 3)),), mt.tanh)]),
    _exercise("relu", "Relu", "elementwise", "op, grad", _RELU,
              [Case("relu(x), x (3, 4)", (("away from 0", (3, 4)),), mt.relu)]),
    _exercise("sum", "Sum", "shapes", "op, grad", _SUM, [
        Case("x (2, 3, 4).sum(dim=1)", (("any", (2, 3, 4)),), lambda x: x.sum(dim=1)),
        Case("x (2, 3, 4).sum()", (("any", (2, 3, 4)),), lambda x: x.sum()),
        Case("x (2, 3, 4).sum(dim=(0, 2), keepdim=True)", (("any", (2, 3, 4)),), lambda x: x.sum(dim=(0, 2), keepdim=True)),
    ]),
    _exercise("mean", "Mean", "shapes", "op, grad", _MEAN, [
        Case("x (2, 3, 4).mean(dim=2)", (("any", (2, 3, 4)),), lambda x: x.mean(dim=2)),
        Case("x (2, 3, 4).mean()", (("any", (2, 3, 4)),), lambda x: x.mean()),
    ]),
    _exercise("reshape", "Reshape", "shapes", "op, grad", _RESHAPE, [
        Case("x (2, 3, 4).reshape(6, 4)", (("any", (2, 3, 4)),), lambda x: x.reshape(6, 4)),
    ]),
    _exercise("transpose", "Transpose", "shapes", "op, grad", _TRANSPOSE, [
        Case("x (2, 3, 4).permute(2, 0, 1)", (("any", (2, 3, 4)),), lambda x: x.permute(2, 0, 1)),
        Case("x (2, 3).transpose(0, 1)", (("any", (2, 3)),), lambda x: x.transpose(0, 1)),
    ]),
    _exercise("matmul", "MatMul", "layers", "op, grad", _MATMUL, [
        Case("A (3, 4) @ B (4, 2)", (("any", (3, 4)), ("any", (4, 2))), lambda a, b: a @ b),
        Case("F.linear(x (3, 4), W (2, 4)) = x @ W^T", (("any", (3, 4)), ("any", (2, 4))), F.linear),
        Case("A (2, 3, 4) @ B (4, 5), batched", (("any", (2, 3, 4)), ("any", (4, 5))), lambda a, b: a @ b),
    ]),
    _exercise("cross_entropy", "SparseSoftmaxCrossEntropyWithLogits", "layers", "op, grad_loss, grad_backprop",
              _CROSS_ENTROPY, [
                  Case("per-row cross-entropy of logits (4, 5) with labels (4,)", (("any", (4, 5)), ("labels 5", (4,))), _sce),
              ]),
    _exercise("conv2d", "Conv2D", "cnn", "op, grad", _CONV2D, [
        Case("conv2d(x (2, 2, 5, 5), w (3, 2, 3, 3), b (3,), padding=1)",
             (("any", (2, 2, 5, 5)), ("any", (3, 2, 3, 3)), ("any", (3,))), lambda x, w, b: F.conv2d(x, w, b, padding=1)),
        Case("conv2d(x (1, 2, 6, 6), w (3, 2, 3, 3), stride=2)", (("any", (1, 2, 6, 6)), ("any", (3, 2, 3, 3))),
             lambda x, w: F.conv2d(x, w, stride=2)),
    ]),
    _exercise("max_pool", "MaxPool", "cnn", "op, grad, grad_argmax", _MAX_POOL, [
        Case("max_pool2d(x (2, 2, 4, 4), 2)", (("distinct", (2, 2, 4, 4)),), lambda x: F.max_pool2d(x, 2)),
        Case("max_pool2d(x (1, 2, 5, 5), 3, stride=1), overlapping", (("distinct", (1, 2, 5, 5)),),
             lambda x: F.max_pool2d(x, 3, stride=1)),
    ]),
    _exercise("batch_norm", "FusedBatchNorm", "cnn", "op, grad_y, grad_mean, grad_var, grad_saved_mean, grad_saved_inv_std",
              _BATCH_NORM, [
                  Case("batch norm of x (4, 3, 2, 2)", (("any", (4, 3, 2, 2)), ("positive", (3,)), ("any", (3,))), _batch_norm),
                  Case("batch norm of x (5, 3)", (("any", (5, 3)), ("positive", (3,)), ("any", (3,))), _batch_norm),
              ]),
    Exercise("backward", "compute_gradient", None, "reverse pass", "tape, targets, sources, output_gradients",
             _COMPUTE_GRADIENT),
)

BY_NAME = {exercise.name: exercise for exercise in EXERCISES}
