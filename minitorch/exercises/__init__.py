"""Exercises: write the gradients, and the reverse pass, yourself; minitorch tells you whether they are right.

    python -m minitorch.exercises start DIR         writes DIR/gradients.py: a stub per exercise
    python -m minitorch.exercises check DIR [NAME]  checks them all (or one), then trains the MLP on them
    python -m minitorch.exercises list              the exercises, by group

Sixteen exercises in five groups (docs/exercises.md, docs/tutorial.md):
the gradients of Add (with broadcasting), Mul, Exp, Log, Tanh, Relu; Sum,
Mean, Reshape, Transpose; MatMul and softmax cross-entropy; Conv2D, MaxPool
and batch norm; and the reverse pass itself (compute_gradient).

`check` loads the student's file, puts each of its gradient functions in its
op's row of the op table (engine/registry.py: OPS[op].grad) for its own
process only, and the student's compute_gradient in place of minitorch's
through the engine's one seam for it (engine/backprop.py:
reverse_pass_replaced). Each exercise gets PASS, FAIL with a hint (wrong
shape, wrong sign, forgot to un-broadcast, off by a factor, not
differentiable twice because it used raw numpy, ...) or TODO. The reference
solutions are in the test suite, not here.

    catalogue.py       the exercises: op, stub text, cases
    student_file.py    writing and loading DIR/gradients.py
    checks.py          an op's gradient against finite differences (first and second order) and minitorch's
    reverse_pass.py    a reverse pass against minitorch's, on small programs
    training.py        one epoch of the MLP example on the student's gradients
    cli.py             the command line
"""
from .catalogue import BY_NAME, EXERCISES, GROUPS
from .checks import FAIL, PASS, TODO, Verdict, check_op, gradients_in_table
from .reverse_pass import check_pass
from .training import MLP_EXERCISES, one_epoch

__all__ = ["EXERCISES", "GROUPS", "Verdict", "check", "check_op", "check_pass", "gradients_in_table", "one_epoch"]


def check(functions, names=None, path=None):
    """{exercise name: Verdict} for the exercises `names` (all by default), the student's `functions`
    being a module or a dict {function name: function}.

    >>> verdicts = check({"log_grad": lambda op, grad: grad / op.inputs[0]}, ["log", "exp"])
    >>> [(name, v.status) for name, v in verdicts.items()]
    [('exp', 'TODO'), ('log', 'PASS')]
    """
    lookup = functions if isinstance(functions, dict) else vars(functions)
    verdicts = {}
    for exercise in EXERCISES:
        if names is not None and exercise.name not in names:
            continue
        function = lookup.get(exercise.function)
        if function is None:
            verdicts[exercise.name] = Verdict(TODO, f"no function {exercise.function} in the file")
        elif exercise.op is None:
            verdicts[exercise.name] = check_pass(function, path)
        else:
            verdicts[exercise.name] = check_op(exercise, function, path)
    return verdicts


def passing_functions(functions, verdicts):
    """The student's functions that passed, as ({op name: gradient}, reverse pass or None)."""
    lookup = functions if isinstance(functions, dict) else vars(functions)
    gradients, reverse_pass = {}, None
    for name, verdict in verdicts.items():
        if verdict.status != PASS:
            continue
        exercise = BY_NAME[name]
        if exercise.op is None:
            reverse_pass = lookup[exercise.function]
        else:
            gradients[exercise.op] = lookup[exercise.function]
    return gradients, reverse_pass
