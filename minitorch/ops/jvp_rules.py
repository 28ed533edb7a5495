"""Forward-mode rules (JVPs) for the common ops, keyed by op name.

The forward twin of the gradient registry (HIPS autograd's `defjvp`,
PyTorch's `result:` lines in derivatives.yaml). A rule receives the op's
input and output Tensors, its attrs and one tangent per input (None where
the input has none, i.e. a zero tangent) and returns the output tangent(s).
Rules are written with minitorch ops, so the tangents are differentiable
again (reverse-over-forward, forward-over-forward).

An op without a rule still works in forward mode: the ForwardAccumulator
falls back to transposing the op's backward function (seed 001,
ForwardpropFromTape), which costs a few extra ops. Rules here are the fast
path for the ops a training step actually runs.
"""
from ..autograd.execute import execute
from .registry import JVPS


def jvp(*op_names):
    def register(fn):
        for name in op_names:
            JVPS[name] = fn
        return fn

    return register


def _fit(tangent, output):
    """A tangent of a broadcast input, broadcast to the output's shape."""
    if tangent._data.shape != output._data.shape:
        tangent = execute("BroadcastTo", (tangent,), {"shape": output._data.shape})
    if tangent._data.dtype != output._data.dtype:
        tangent = execute("Cast", (tangent,), {"dtype": output._data.dtype})
    return tangent


def _zeros_for_missing(inputs, tangents):
    return tuple(zeros_like(x) if t is None else t for x, t in zip(inputs, tangents))


# ----- linear ops: the tangent goes through the op itself -----

def _linear(op_name):
    def rule(inputs, outputs, attrs, tangents):
        return execute(op_name, (tangents[0],), attrs)

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is linear: its tangent is {op_name} of the input's tangent."
    return rule


for _name in ("Reshape", "Transpose", "BroadcastTo", "StridedSlice", "StridedSliceGrad", "GatherNd", "ScatterNd",
              "Identity", "Sum", "Mean", "Neg", "Cast"):
    JVPS[_name] = _linear(_name)


def _linear_nary(op_name):
    def rule(inputs, outputs, attrs, tangents):
        return execute(op_name, _zeros_for_missing(inputs, tangents), attrs)

    rule.__name__ = f"_{op_name.lower()}_jvp"
    rule.__doc__ = f"{op_name} is linear in all inputs (missing tangents are zeros)."
    return rule


for _name in ("ConcatV2", "Pack", "AddN"):
    JVPS[_name] = _linear_nary(_name)


# ----- arithmetic -----

@jvp("Add")
def _add_jvp(inputs, outputs, attrs, tangents):
    """d(x + y) = dx + dy."""
    ta, tb = tangents
    if tb is None:
        return _fit(ta, outputs[0])
    if ta is None:
        return _fit(tb, outputs[0])
    return ta + tb


@jvp("Sub")
def _sub_jvp(inputs, outputs, attrs, tangents):
    """d(x - y) = dx - dy."""
    ta, tb = tangents
    if tb is None:
        return _fit(ta, outputs[0])
    if ta is None:
        return _fit(-tb, outputs[0])
    return ta - tb


@jvp("Mul")
def _mul_jvp(inputs, outputs, attrs, tangents):
    """d(xy) = dx y + x dy."""
    (x, y), (tx, ty) = inputs, tangents
    terms = [tx * y if tx is not None else None, x * ty if ty is not None else None]
    return _sum_terms(terms, outputs[0])


@jvp("RealDiv")
def _div_jvp(inputs, outputs, attrs, tangents):
    """d(x / y) = (dx - (x / y) dy) / y."""
    (x, y), (tx, ty) = inputs, tangents
    numerator = _sum_terms([tx, -(outputs[0] * ty) if ty is not None else None], outputs[0])
    return numerator / y


def _sum_terms(terms, output):
    present = [t for t in terms if t is not None]
    total = present[0] if len(present) == 1 else present[0] + present[1]
    return _fit(total, output)


@jvp("MatMul")
def _matmul_jvp(inputs, outputs, attrs, tangents):
    """d(AB) = dA B + A dB."""
    (a, b), (ta, tb) = inputs, tangents
    terms = [
        execute("MatMul", (ta, b), attrs) if ta is not None else None,
        execute("MatMul", (a, tb), attrs) if tb is not None else None,
    ]
    return _sum_terms(terms, outputs[0])


@jvp("SelectV2")
def _select_jvp(inputs, outputs, attrs, tangents):
    """The tangent is picked like the value."""
    condition, x, y = inputs
    _, tx, ty = _zeros_for_missing(inputs, tangents)
    return execute("SelectV2", (condition, _fit(tx, outputs[0]), _fit(ty, outputs[0])))


# ----- elementwise functions -----

@jvp("Exp")
def _exp_jvp(inputs, outputs, attrs, tangents):
    """d e^x = e^x dx."""
    return tangents[0] * outputs[0]


@jvp("Log")
def _log_jvp(inputs, outputs, attrs, tangents):
    """d log x = dx / x."""
    return tangents[0] / inputs[0]


@jvp("Sqrt")
def _sqrt_jvp(inputs, outputs, attrs, tangents):
    """d sqrt(x) = dx / (2 sqrt(x))."""
    return tangents[0] / (outputs[0] * 2)


@jvp("Sin")
def _sin_jvp(inputs, outputs, attrs, tangents):
    return tangents[0] * cos(inputs[0])


@jvp("Cos")
def _cos_jvp(inputs, outputs, attrs, tangents):
    return -(tangents[0] * sin(inputs[0]))


@jvp("Tanh")
def _tanh_jvp(inputs, outputs, attrs, tangents):
    """d tanh x = (1 - tanh^2 x) dx, TanhGrad's formula."""
    return execute("TanhGrad", (outputs[0], tangents[0]))


@jvp("Sigmoid")
def _sigmoid_jvp(inputs, outputs, attrs, tangents):
    """d s(x) = s (1 - s) dx, SigmoidGrad's formula."""
    return execute("SigmoidGrad", (outputs[0], tangents[0]))


@jvp("Relu")
def _relu_jvp(inputs, outputs, attrs, tangents):
    """d relu(x) = [x > 0] dx, ReluGrad's formula."""
    return execute("ReluGrad", (tangents[0], outputs[0]))


@jvp("ReluGrad")
def _relu_grad_jvp(inputs, outputs, attrs, tangents):
    """ReluGrad(g, y) is linear in g; its mask is flat in y."""
    if tangents[0] is None:
        return None
    return _fit(execute("ReluGrad", (tangents[0], inputs[1])), outputs[0])


@jvp("Abs")
def _abs_jvp(inputs, outputs, attrs, tangents):
    return tangents[0] * sign(inputs[0])


# ----- reductions over an axis -----

@jvp("Softmax")
def _softmax_jvp(inputs, outputs, attrs, tangents):
    """dy = y (dx - sum(y dx))."""
    y, t = outputs[0], tangents[0]
    return y * (t - execute("Sum", (y * t,), {"axis": attrs["axis"], "keepdims": True}))


@jvp("LogSoftmax")
def _log_softmax_jvp(inputs, outputs, attrs, tangents):
    """dy = dx - sum(softmax(x) dx), softmax(x) = exp(y)."""
    y, t = outputs[0], tangents[0]
    return t - execute("Sum", (exp(y) * t,), {"axis": attrs["axis"], "keepdims": True})


@jvp("LogSumExp")
def _logsumexp_jvp(inputs, outputs, attrs, tangents):
    """d logsumexp(x) = sum(softmax(x) dx)."""
    x, t = inputs[0], tangents[0]
    out = outputs[0]
    kept = out if attrs["keepdims"] else execute("Reshape", (out,), {"shape": _kept_shape(x.shape, attrs["axis"])})
    return execute("Sum", (exp(x - kept) * t,), {"axis": attrs["axis"], "keepdims": attrs["keepdims"]})


def _kept_shape(shape, axis):
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else n for i, n in enumerate(shape))


from ..creation import zeros_like  # noqa: E402
from .math_ops import cos, exp, sign, sin  # noqa: E402
