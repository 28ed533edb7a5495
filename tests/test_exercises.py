"""minitorch.exercises: the reference solutions pass, wrong ones fail with the hint that names their mistake,
and the command line writes stubs (never solutions), checks them and trains the MLP on them."""
import ast
import contextlib
import functools
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import exercise_solutions as solutions
import interrupting
import minitorch as mt
from minitorch.engine.registry import OPS
from minitorch.engine.state import switches
from minitorch.exercises import EXERCISES, check, cli
from minitorch.exercises.student_file import render

SOLUTIONS = Path(solutions.__file__)


def _only(name, function):
    """The verdict on one exercise, with `function` as the student's."""
    exercise = next(e for e in EXERCISES if e.name == name)
    return check({exercise.function: function}, [name])[name]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = cli.main(argv, out=out)
    return status, out.getvalue(), err.getvalue()


# ----- the reference solutions -----

def test_every_reference_solution_passes_and_the_op_table_is_restored():
    before = {e.op: OPS[e.op].grad for e in EXERCISES if e.op}
    verdicts = check(solutions)
    assert {name: v.status for name, v in verdicts.items()} == {e.name: "PASS" for e in EXERCISES}, verdicts
    assert {e.op: OPS[e.op].grad for e in EXERCISES if e.op} == before
    assert switches.reverse_pass is None


# ----- wrong gradients, and the hints that name their mistake -----

def _numpy_tanh(op, grad):
    z = np.asarray(op.outputs[0].detach())
    return mt.tensor(np.asarray(grad.detach()) * (1 - z * z))


WRONG = {
    "wrong sign": ("exp", lambda op, grad: -grad * op.outputs[0], r"^wrong sign: the gradient of input 0"),
    "no un-broadcast": ("add", lambda op, grad: (grad, grad),
                        r"^forgot to un-broadcast: the gradient of input 1 of x \(2, 3\) \+ y \(3,\) has shape "
                        r"\(2, 3\), the input \(3,\): sum over axes \(0,\)"),
    "wrong shape": ("reshape", lambda op, grad: grad, r"^wrong shape: the gradient of input 0 .* has shape \(6, 4\), "
                                                      r"the input \(2, 3, 4\)"),
    "transposed": ("matmul", lambda op, grad: (grad @ op.inputs[1].transpose(-1, -2), op.inputs[0] @ grad),
                   r"^raised ShapeError|^wrong shape"),
    "raw numpy": ("tanh", _numpy_tanh, r"^not differentiable twice: .*raw numpy"),
    "a factor": ("mean", solutions.sum_grad, r"^off by a factor: the gradient of input 0 .* is 4 times the right one"),
    "values": ("log", lambda op, grad: grad * op.inputs[0], r"^wrong values: the gradient of input 0 .* at index"),
    "unkept input": ("exp", lambda op, grad: grad * mt.exp(op.inputs[0]),
                     r"^read op.inputs, which Exp does not keep: this op keeps its output: use op.outputs\[0\]$"),
    "unkept output": ("log", lambda op, grad: grad / op.outputs[0].exp(),
                      r"^read op.outputs, which Log does not keep: this op keeps its inputs: use op.inputs$"),
    "sys.exit": ("log", lambda op, grad: sys.exit(0), r"^raised SystemExit: 0; a gradient must return its result"),
    "one gradient for two inputs": ("mul", lambda op, grad: grad * op.inputs[1],
                                    r"returned 1 gradients for 2 inputs .*: return one gradient per input"),
    "float32": ("relu", lambda op, grad: (grad * (op.outputs[0] > 0).to(grad.dtype)).float(),
                r"is minitorch.float32, the input float64"),
    "numpy array": ("exp", lambda op, grad: np.asarray(grad.detach()) * np.asarray(op.outputs[0].detach()),
                    r"^returned a ndarray for input 0"),
    "wrong arguments": ("log", lambda op: op.inputs[0], r"^raised TypeError: .*positional argument"),
    "second order through a side output": (
        "cross_entropy", lambda op, grad_loss, grad_backprop: (grad_loss.unsqueeze(1) * op.outputs[1], None),
        r"^second derivatives wrong .*other outputs"),
}


@pytest.mark.parametrize("mistake", WRONG)
def test_a_wrong_gradient_fails_with_the_hint_that_names_its_mistake(mistake):
    name, function, hint = WRONG[mistake]
    verdict = _only(name, function)
    assert verdict.status == "FAIL" and re.search(hint, verdict.message), verdict.message


def _numpy_sum(old, new):
    return mt.tensor(np.asarray(old.detach()) + np.asarray(new.detach()))


@pytest.mark.parametrize("function, hint", [
    (solutions.compute_gradient, None),
    (functools.partial(solutions.compute_gradient, accumulate=lambda old, new: new), r"x used twice.*accumulate"),
    (functools.partial(solutions.compute_gradient, unbroadcast=False),
     r"^forgot to un-broadcast: the gradient of source 1 of broadcasting.* has shape \(2, 3\)"),
    (functools.partial(solutions.compute_gradient, accumulate=_numpy_sum), r"^not differentiable twice"),
    (lambda tape, targets, sources, output_gradients: [], r"returned 0 gradients for 4 sources on a chain"),
    (lambda tape, targets, sources, output_gradients: [None] * len(sources), r"no gradient"),
])
def test_the_reverse_pass_checker(function, hint):
    verdict = _only("backward", function)
    if hint is None:
        assert verdict.status == "PASS", verdict.message
    else:
        assert verdict.status == "FAIL" and re.search(hint, verdict.message), verdict.message
    assert switches.reverse_pass is None


def test_a_stub_is_todo_and_an_exception_names_the_student_s_line(tmp_path):
    assert _only("exp", lambda op, grad: (_ for _ in ()).throw(NotImplementedError("exp_grad"))).status == "TODO"
    path = tmp_path / "gradients.py"
    path.write_text("import minitorch as mt\n\n\ndef log_grad(op, grad):\n    return grad / op.inputs[0].nonsense\n")
    status, out, _ = _run(["check", str(tmp_path), "log", "--no-train"])
    assert status == 1
    assert re.search(r"log +FAIL  raised AttributeError: .*nonsense.* \(gradients.py, line 5\)", out), out


# ----- the command line -----

def test_start_writes_stubs_and_never_a_solution(tmp_path):
    status, out, _ = _run(["start", str(tmp_path / "work")])
    assert status == 0 and "gradients.py" in out
    text = (tmp_path / "work" / "gradients.py").read_text()
    assert text == render(tmp_path / "work")
    tree = ast.parse(text)
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert [f.name for f in functions] == ["sum_to_shape"] + [e.function for e in EXERCISES]
    for function in functions:  # a docstring and `raise NotImplementedError(...)`, nothing else
        docstring, body = function.body
        assert isinstance(docstring.value, ast.Constant) and isinstance(body, ast.Raise), function.name
        assert body.exc.func.id == "NotImplementedError"


def test_check_of_fresh_stubs_says_todo_for_each(tmp_path):
    _run(["start", str(tmp_path)])
    status, out, _ = _run(["check", str(tmp_path), "--no-train"])
    assert status == 1
    rows = re.findall(r"^  (\w+) +(TODO|PASS|FAIL)  (.*)$", out, re.M)
    assert [(name, status) for name, status, _ in rows] == [(e.name, "TODO") for e in EXERCISES]
    assert rows[0][2] == "not written yet (add_grad raises NotImplementedError)"
    assert out.rstrip().endswith("0 of 16 pass")


@pytest.mark.parametrize("argv, message", [
    (["check", "{dir}", "softmax"], r"unknown exercise 'softmax' \(choose from add, mul, "),
    (["check", "{dir}/missing"], r"no directory .*missing: run `python -m minitorch.exercises start "),
    (["check", "{dir}/empty"], r"no .*empty/gradients.py: run `python -m minitorch.exercises start "),
    (["start", "{dir}/taken"], r"taken/gradients.py exists: your work would be lost \(pass --force"),
    (["start", "{dir}/a-file"], r"a-file is a file, not a directory"),
    (["check", "{dir}/broken"], r"broken/gradients.py:3: SyntaxError: "),
    (["check", "{dir}/raising"], r"raising/gradients.py:2: ZeroDivisionError: division by zero"),
    (["frobnicate"], r"invalid choice: 'frobnicate'"),
    ([], r"give a command: start DIR, check DIR \[NAME ...\], list \(--help says more\)$"),
    (["check", "{dir}/empty", "--timeout", "0"], r"--timeout: a positive number of seconds, got '0'"),
    (["check", "{dir}/exits"], r"exits/gradients.py:3: SystemExit: 0$"),
])
def test_command_line_mistakes_are_one_line_and_status_2(tmp_path, argv, message):
    (tmp_path / "empty").mkdir()
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "gradients.py").write_text("# work in progress\n")
    (tmp_path / "a-file").write_text("")
    for name, text in (("broken", "import minitorch\n\ndef add_grad(op, grad)\n"), ("raising", "x = 1\ny = 1 / 0\n"),
                       ("exits", "import sys\n\nsys.exit(0)\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "gradients.py").write_text(text)
    status, out, err = _run([arg.replace("{dir}", str(tmp_path)) for arg in argv])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("python -m minitorch.exercises: error: "), err
    assert re.search(message, err), err
    assert (tmp_path / "taken" / "gradients.py").read_text() == "# work in progress\n"


def test_start_force_overwrites_and_list_names_every_exercise(tmp_path):
    (tmp_path / "gradients.py").write_text("old")
    assert _run(["start", str(tmp_path), "--force"])[0] == 0
    assert "raise NotImplementedError" in (tmp_path / "gradients.py").read_text()
    status, out, _ = _run(["list"])
    assert status == 0 and [line.split()[0] for line in out.splitlines() if line.startswith("  ")] == \
        [e.name for e in EXERCISES]


def test_check_of_the_solutions_passes_all_and_trains_the_mlp_on_them(tmp_path):
    shutil.copy(SOLUTIONS, tmp_path / "gradients.py")
    status, out, _ = _run(["check", str(tmp_path)])
    assert status == 0 and "16 of 16 pass" in out, out
    builtin = re.search(r"minitorch's gradients +test accuracy ([\d.]+)", out)
    yours = re.search(r"your gradients +test accuracy ([\d.]+) .*yours: add, matmul, relu, sum, cross_entropy, backward\)",
                      out)
    assert builtin and yours, out
    assert float(builtin.group(1)) > 0.6 and abs(float(yours.group(1)) - float(builtin.group(1))) <= 0.005


def test_check_of_one_exercise_trains_with_what_passed(tmp_path):
    (tmp_path / "gradients.py").write_text(SOLUTIONS.read_text())
    status, out, _ = _run(["check", str(tmp_path), "relu"])
    assert status == 0
    assert re.findall(r"^  (\w+) +(?:PASS|FAIL|TODO)", out, re.M) == ["relu"] and "1 of 1 pass" in out
    assert re.search(r"your gradients +test accuracy [\d.]+ .*yours: relu\)", out), out


def test_options_may_come_before_the_exercise_names(tmp_path):
    shutil.copy(SOLUTIONS, tmp_path / "gradients.py")
    status, out, _ = _run(["check", str(tmp_path), "--no-train", "mul", "--timeout", "60", "exp"])
    assert status == 0 and re.findall(r"^  (\w+) +PASS", out, re.M) == ["mul", "exp"] and "training" not in out, out


def test_an_error_in_a_file_given_by_a_relative_path_names_its_line(tmp_path, monkeypatch):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "gradients.py").write_text("import minitorch\nimport no_such_module_anywhere\n")
    monkeypatch.chdir(tmp_path)
    status, _, err = _run(["check", "work"])
    assert status == 2 and err.startswith(f"{cli.PROG}: error: work/gradients.py:2: ModuleNotFoundError: "), err


# ----- the student's code cannot stop `check`: each exercise in a worker process, with a time limit -----

def _command(*args, **options):
    """`python -m minitorch.exercises ARGS` as a subprocess, itself limited to 300 s: a hang fails the test."""
    return subprocess.run([sys.executable, "-m", "minitorch.exercises", *map(str, args)], capture_output=True,
                          text=True, timeout=300, **options)


MISBEHAVING = """\
import os
import sys

import minitorch as mt


def mul_grad(op, grad):
    sys.exit(0)


def exp_grad(op, grad):
    os._exit(3)


def log_grad(op, grad):
    while True:
        pass


def relu_grad(op, grad):
    return grad * (op.outputs[0] > 0).to(grad.dtype)
"""


def test_a_gradient_that_exits_or_never_returns_fails_and_the_others_still_run(tmp_path):
    (tmp_path / "gradients.py").write_text(MISBEHAVING)
    result = _command("check", tmp_path, "--no-train", "--timeout", "3", "relu", "log", "exp", "mul")
    assert result.returncode == 1, result.stderr
    rows = dict(re.findall(r"^  (\w+) +(\w+  .*)$", result.stdout, re.M))
    assert rows == {
        "mul": "FAIL  raised SystemExit: 0 (gradients.py, line 8); a gradient must return its result, not end the "
               "program",
        "exp": "FAIL  ended the checking process (exit status 3): a gradient must return its result",
        "log": "FAIL  did not finish in 3 s (a loop that never ends?)",
        "relu": rows["relu"],
    } and rows["relu"].startswith("PASS"), result.stdout
    assert result.stdout.rstrip().endswith("1 of 4 pass") and result.stderr == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("command", [["check"], ["start", "--force"]])
def test_a_fifo_for_the_student_file_is_one_line_and_status_2(tmp_path, command):
    os.mkfifo(tmp_path / "gradients.py")  # read or written, a FIFO waits for its other end: forever
    result = _command(command[0], tmp_path, *command[1:])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"{cli.PROG}: error: {tmp_path / 'gradients.py'} is not a regular file\n"


def test_a_file_whose_import_never_ends_is_one_line_and_status_2(tmp_path):
    (tmp_path / "gradients.py").write_text("import minitorch\n\nwhile True:\n    pass\n")
    result = _command("check", tmp_path, "--timeout", "2")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (f"{cli.PROG}: error: {tmp_path / 'gradients.py'}: did not finish loading in 2 s (a loop "
                             "at its top level that never ends?)\n")


@pytest.mark.slow  # waits out the training run's time limit
def test_a_training_run_that_never_ends_is_stopped(tmp_path):
    # relu_grad passes on the checker's small cases and loops on the MLP's batches of 128
    (tmp_path / "gradients.py").write_text(SOLUTIONS.read_text() + textwrap.dedent("""
        _right_relu_grad = relu_grad


        def relu_grad(op, grad):
            while grad.shape[0] > 100:
                pass
            return _right_relu_grad(op, grad)
    """))
    result = _command("check", tmp_path, "relu", "--timeout", "1")
    assert result.returncode == 1, result.stderr
    assert "1 of 1 pass" in result.stdout
    assert re.search(r"your gradients +did not finish the epoch in \d+ s \(--timeout plus 10 times minitorch's; "
                     r"yours: relu\)", result.stdout), result.stdout


def _checking_an_endless_loop(folder):
    """`check` started on MISBEHAVING's log_grad, once its worker has loaded the file (and soon loops)."""
    (folder / "gradients.py").write_text(MISBEHAVING)
    command = interrupting.start([sys.executable, "-m", "minitorch.exercises", "check", str(folder), "log"])
    if not command.stdout.readline().startswith("checking "):
        command.kill()
        pytest.fail(f"check did not start: {command.communicate()}")
    return command


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="process groups, SIGINT and /proc: Linux")
def test_ctrl_c_is_one_line_status_130_and_ends_the_worker(tmp_path):
    command = _checking_an_endless_loop(tmp_path)
    try:
        time.sleep(0.5)  # the worker is in log_grad's loop
        interrupting.ctrl_c(command)
        out, err = command.communicate(timeout=60)
    finally:
        command.kill()
    assert command.returncode == 130 and err == f"{cli.PROG}: interrupted\n", (out, err)
    assert interrupting.gone_within(command.pid, 10), "the worker process outlived the command"


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="process groups and /proc: Linux")
def test_a_worker_in_an_endless_loop_ends_when_check_is_killed(tmp_path):
    command = _checking_an_endless_loop(tmp_path)
    command.kill()  # SIGKILL: no cleanup runs in the command
    command.wait()
    # The worker was in log_grad's loop: it notices, and ends.
    assert interrupting.gone_within(command.pid, 10), "the worker outlived a killed check"
