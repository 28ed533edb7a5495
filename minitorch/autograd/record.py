"""record_gradient: the one place where an executed op meets the tapes.

Seed 002 moved TensorFlow's `RecordGradient` into one flat C function; this
is ours, in the same order of steps. Every op ends here (see execute.py).
"""
from ..ops.registry import NOT_DIFFERENTIABLE, OPS_WITHOUT_INPUTS, OPS_WITHOUT_OUTPUTS
from . import anomaly, trace
from . import execute as execute_module
from .backward_function import BackwardFunction
from .tape_set import active_accumulators, active_tapes, thread_state


def record_gradient(op_name, inputs, attrs, results):
    # 1. Nothing to do when no tape is active or this thread stopped recording.
    if not (active_tapes or active_accumulators) or not thread_state.recording:
        return
    if op_name in NOT_DIFFERENTIABLE:
        return

    # 2. Which active tapes watch one of the inputs?
    tapes = []
    for tape in active_tapes:
        if tape.should_record(inputs):
            tapes.append(tape)
    accumulators = [acc for acc in active_accumulators if acc.should_record(inputs)] if active_accumulators else ()
    if not tapes and not accumulators:
        return

    # 3. The op tables: keep alive only what the gradient will read.
    op_inputs = None if op_name in OPS_WITHOUT_INPUTS else inputs
    op_outputs = None if op_name in OPS_WITHOUT_OUTPUTS else results

    # 4. The backward function, from the gradient registry by op name.
    input_info = [(t._data.shape, t._data.dtype) for t in inputs]
    backward_function = BackwardFunction(op_name, attrs, input_info, op_inputs, op_outputs)
    if execute_module.check_anomalies:
        backward_function.created_at = anomaly.user_stack()

    # 5. Record the op on every tape that asked for it, then let forward-mode
    #    accumulators push tangents through it.
    for tape in tapes:
        tape.record_operation(op_name, inputs, results, backward_function)
    for accumulator in accumulators:
        accumulator.accumulate(op_name, inputs, attrs, results, backward_function)
    if trace.enabled:
        keeps = " and ".join(k for k, v in (("inputs", op_inputs), ("outputs", op_outputs)) if v is not None)
        trace.recorded(op_name, inputs, results, tapes, keeps or "nothing")
