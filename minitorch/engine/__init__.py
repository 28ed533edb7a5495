"""The autodiff engine, internal: users reach it through minitorch.autograd and Tensor.

Floors, each importing only from those below it (an arrow: imports what it points to):
    below tensor.py:  registry.py (the op table), state.py (tapes, switches)
                      <- tape.py, trace.py, hooks.py, anomaly.py
                      <- autograd_tape.py (over tape.py), nodes.py (grad_fn, over hooks.py),
                         versions.py (in-place writes, over anomaly.py)
    tensor.py imports autograd_tape.py alone
    above tensor.py:  entry.py (one recorded op), student_pass.py (a student's reverse pass)
                      <- record.py <- execute.py <- backprop.py <- forwardprop.py
"""
