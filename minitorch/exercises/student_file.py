"""The student's file: written by `start` with a stub per exercise, read back by `check`.

The file is plain Python that the student edits; `check` runs it (it is the
student's own code, as a test runner runs the tests it is given) as a
module of its own, never as part of minitorch.
"""
import importlib.util
import sys
import textwrap

from .catalogue import EXERCISES, GROUPS

FILE_NAME = "gradients.py"

HEADER = '''"""Your gradients, and your reverse pass: minitorch's exercises.

Check them with

    python -m minitorch.exercises check {directory}          (all of them)
    python -m minitorch.exercises check {directory} mul      (one)

Each *_grad function is the gradient of one op of minitorch's op table
(minitorch/engine/registry.py); `check` puts yours in the table's row, for
its own process only, and compares it with finite differences and with
minitorch's gradient. A gradient function gets
    op     what the tape kept of the op: op.inputs, op.outputs (only what the op
           table says the gradient reads), op.attrs (the op's settings, e.g. axis),
           op.input_shapes, op.needs_input_grad (one bool per input)
    grad   dL/d(output), the gradient arriving at the op's output (one argument per output)
and returns dL/d(input) for each input, each of that input's shape, in a tuple
(a single one needs no tuple), or None for an input whose gradient is not wanted.

Write them with minitorch operations (mt.*, tensor methods and operators), not
numpy: then a tape records your gradient as it runs, and it can be differentiated
again (check tests second derivatives too). Do not call minitorch's own
gradient ops (TanhGrad, ReluGrad, MaxPoolGrad, Conv2DBackpropInput, ...): the
point is to write them. The last exercise, compute_gradient, is the reverse pass
itself. `check` ends by training the MLP example for one epoch on your gradients.
"""
import minitorch as mt

F = mt.nn.functional


def sum_to_shape(grad, shape):
    """grad summed back to `shape`, which broadcasts to grad's shape: over the leading axes `shape` lacks,
    and over the axes where `shape` has 1 and grad more. (Not checked on its own: add, mul, matmul and
    compute_gradient can use it.)"""
    raise NotImplementedError("sum_to_shape")
'''


def stub(exercise):
    """The stub of one exercise: its signature, its docstring, a body that raises NotImplementedError.

    >>> from minitorch.exercises.catalogue import BY_NAME
    >>> print(stub(BY_NAME["log"]))
    def log_grad(op, grad):
        \"\"\"z = log(x): dz/dx = 1 / x. op.inputs[0] is x.\"\"\"
        raise NotImplementedError("log_grad")
    """
    doc = textwrap.indent(exercise.doc, "    ").lstrip()
    closing = '\n    """' if "\n" in exercise.doc else '"""'
    return (f"def {exercise.function}({exercise.signature}):\n"
            f'    """{doc}{closing}\n'
            f'    raise NotImplementedError("{exercise.function}")')


def render(directory):
    """The whole student file, its stubs grouped as in the tutorial.

    >>> text = render("work")
    >>> text.count("raise NotImplementedError"), "check work mul" in text
    (17, True)
    """
    parts = [HEADER.format(directory=directory)]
    for group, title in GROUPS.items():
        parts.append(f"\n# ----- {title} -----\n")
        parts += ["\n" + stub(e) + "\n" for e in EXERCISES if e.group == group]
    return "\n".join(parts).rstrip() + "\n"


class StudentFileError(Exception):
    """The student's file cannot be loaded (missing, or it raises on import): one line for the command line."""


def require(path):
    """StudentFileError unless `path` is a regular file: the student's file is written by `start`."""
    if path.exists() and not path.is_file():  # a folder, or a FIFO, which reading would wait on forever
        raise StudentFileError(f"{path} is not a regular file")
    if not path.is_file():
        raise StudentFileError(f"no {path}: run `python -m minitorch.exercises start {path.parent}` first")


def load(path):
    """The student's file as a module (a fresh one at each call); its `__file__` is the name its frames carry."""
    require(path)
    spec = importlib.util.spec_from_file_location(f"minitorch_exercises_student_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        raise StudentFileError(f"{path}:{error.lineno}: SyntaxError: {error.msg}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the student's module-level code failed (sys.exit too): say where, in one line
        raise StudentFileError(f"{path}:{_line_in(error, spec.origin)}: {type(error).__name__}: {error}") from None
    finally:
        sys.modules.pop(spec.name, None)
    return module


def _line_in(error, filename):
    """The line of `filename` (as its frames name it: importlib makes it absolute) where `error` was raised, or '?'."""
    line, tb = "?", error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
