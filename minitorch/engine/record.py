"""record_gradient: the one place where an executed op meets the tapes.

TensorFlow's commit "Record gradient in C" moved `RecordGradient` into one
flat function (tensorflow/python/eager/pywrap_tfe_src.cc); this is ours, in
the same order of steps. Every op ends here (see execute.py). What the tapes
keep of an op is one Entry (entry.py): the op's gradient plus only the
values the op table says it reads (TensorFlow's `_get_backward_fn`), and
the entries that made its inputs.
"""
from . import anomaly, trace
from .entry import Entry
from .registry import OPS
from .state import active_accumulators, active_tapes, lock_tapes, switches, unlock_tapes


def record_gradient(op_name, inputs, attrs, results):
    # 1. execute calls it only while a tape or an accumulator is active and this thread records
    #    (TensorFlow's CouldBackprop / CouldForwardprop); nothing to do for an op without a gradient.
    op_def = OPS[op_name]
    if not op_def.differentiable:
        return

    # Steps 2 to 4 hold the engine lock (state.py): no other thread changes the
    # tape set or the tapes between asking a tape and recording on it.
    lock_tapes()
    try:
        # 2. Which active tapes watch one of the inputs? Over a copy of the set: the lock is
        #    re-entrant, and a garbage collection run here can end a watched tensor whose death makes
        #    the autograd tape leave the set (on this very thread), which would skip the next tape.
        #    A loop, not a comprehension: that is a call of its own in CPython 3.11.
        tapes = []
        for tape in tuple(active_tapes):
            if tape.should_record(inputs):
                tapes.append(tape)
        accumulators = [acc for acc in active_accumulators if acc.should_record(inputs)] if active_accumulators else ()
        if not tapes and not accumulators:
            return

        # 3. One entry: the op table says what it keeps alive (inputs for Mul, outputs for Exp).
        entry = Entry(op_def, attrs, inputs, results)
        if switches.check_anomalies:
            entry.created_at = anomaly.user_stack()

        # 4. Record it on every tape that asked for it (which links its outputs to it).
        for tape in tapes:
            tape.record_operation(entry, inputs, results)
    finally:
        unlock_tapes()

    # 5. Without the lock (they run ops): forward-mode accumulators push tangents through the op.
    for accumulator in accumulators:
        accumulator.accumulate(op_name, inputs, attrs, results, entry)
    if switches.tracing:
        keeps = " and ".join(k for k, v in (("inputs", entry._inputs), ("outputs", entry._saved_outputs)) if v is not None)
        trace.recorded(op_name, inputs, results, tapes, keeps or "nothing")
