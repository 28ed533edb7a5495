"""execute: the single path every Tensor op runs through.

Look up the op's row in the op table, run its numpy kernel, wrap the results
as Tensors, and hand everything to `record_gradient` (record.py). Shape ops,
indexing and the gradient functions themselves all come this way, so any
tape sees all. (TensorFlow: TFE_Py_FastPathExecute, then RecordGradient.)
"""
import warnings

import numpy as np

from ..errors import ShapeError
from ..tensor import Tensor
from . import anomaly
from .record import record_gradient
from .registry import OPS, VIEW
from .state import active_accumulators, active_tapes, switches, thread_state
from .versions import mark_view, share_storage

# Kernels are numpy, and numpy prints a RuntimeWarning for 1/0, 0/0, exp(1000),
# inf - inf, ... where PyTorch prints nothing (the values, inf and nan, are the
# same). Ignored for warnings raised from minitorch's own frames only, so that
# user code's numpy keeps its warnings. One filter, set when the module that runs
# the kernels loads: not np.errstate around every kernel, which on numpy 2.4 costs
# about 1.4 us a call, more than a small np.multiply itself.
warnings.filterwarnings(
    "ignore", message=r"(divide by zero|invalid value|overflow|underflow) encountered", category=RuntimeWarning,
    module=r"minitorch\.",
)

_NO_ATTRS = {}
_make = Tensor._make


def execute(op_name, inputs, attrs=_NO_ATTRS):
    """Runs op `op_name` on the Tensors `inputs`; returns a Tensor or a tuple of Tensors."""
    row = OPS[op_name]
    # Most ops read one or two tensors: spelled out, not a comprehension, which is
    # a call of its own in CPython 3.11 and about 7% of a small op without a tape.
    count = len(inputs)
    if count == 2:
        arrays = (inputs[0]._data, inputs[1]._data)
    elif count == 1:
        arrays = (inputs[0]._data,)
    else:
        arrays = [t._data for t in inputs]
    try:
        result = row.kernel(*arrays, **attrs) if attrs else row.kernel(*arrays)
    except (ValueError, IndexError) as error:
        raise _explain(op_name, arrays, error) from None
    if type(result) is tuple:
        results = tuple(_make(r if type(r) is np.ndarray else np.asarray(r)) for r in result)
        if switches.check_anomalies:
            anomaly.check_forward(op_name, results)
        if (active_tapes or active_accumulators) and thread_state.recording:
            record_gradient(op_name, inputs, attrs, results)
        return results
    output = _make(result if type(result) is np.ndarray else np.asarray(result))
    if row.view is not None and result.base is not None:  # numpy made a view: one storage, one version
        if row.view is VIEW:
            mark_view(output, inputs[0], op_name, attrs)
        else:
            share_storage(output, inputs[0])
    if switches.check_anomalies:
        anomaly.check_forward(op_name, (output,))
    if (active_tapes or active_accumulators) and thread_state.recording:  # record_gradient's early exit, without a call
        record_gradient(op_name, inputs, attrs, (output,))
    return output


def _explain(op_name, arrays, error):
    """Turns a numpy complaint into one that names the op and the shapes."""
    message = str(error)
    if message.startswith(op_name + ":"):
        return error  # the kernel already explained itself
    shapes = " and ".join(str(tuple(a.shape)) for a in arrays)
    if isinstance(error, IndexError):
        return IndexError(f"{op_name}: {message} (tensor shape {shapes})")
    if "broadcast" in message or "mismatch" in message or "shape" in message or "size" in message:
        return ShapeError(f"{op_name}: cannot combine shapes {shapes}: {message}")
    return ValueError(f"{op_name} on shapes {shapes}: {message}")
