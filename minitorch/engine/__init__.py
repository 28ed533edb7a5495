"""The autodiff engine, internal: users reach it through minitorch.autograd and Tensor.

Floors, each importing only from those below it:
    state.py, registry.py, tape.py, hooks.py, trace.py, anomaly.py, autograd_tape.py   (then tensor.py)
    execute.py -> record.py -> tape.py -> backprop.py, and forwardprop.py
"""
