"""The `>>>` examples in the public API's docstrings run and print what they show.

Modules are listed explicitly: these are the ones whose examples are meant to
run (`F` is minitorch.nn.functional, as in PyTorch code). Examples that need files or the network are marked `# doctest: +SKIP`
in the docstring itself.
"""
import doctest
import inspect
import importlib
import os
import pkgutil

import numpy as np
import pytest

import minitorch

# Every module of the package: a new module's examples run without being listed here.
# The distributed modules' examples need an MPI world of 2: tests/test_distributed_collectives.py runs them under mpiexec.
NEEDS_MPI = ("minitorch.distributed", "minitorch.nn.parallel")
MODULES = sorted(info.name for info in pkgutil.walk_packages(minitorch.__path__, "minitorch.")
                 if not info.name.startswith(NEEDS_MPI))
PUBLIC_WITH_EXAMPLES = [
    "minitorch.viz", "minitorch.nn.module", "minitorch.nn.functional", "minitorch.nn.functional.loss",
    "minitorch.nn.utils", "minitorch.nn.init", "minitorch.nn.activation", "minitorch.nn.container",
    "minitorch.nn.dropout", "minitorch.nn.flatten", "minitorch.nn.linear", "minitorch.nn.loss",
    "minitorch.nn.normalization", "minitorch.nn.pooling", "minitorch.optim.sgd", "minitorch.optim.adam",
    "minitorch.optim.lr_scheduler", "minitorch.utils.data", "minitorch.serialization", "minitorch.datasets.mnist",
    "minitorch.datasets.idx", "minitorch.engine.state", "minitorch.tensor", "minitorch.tensor_methods",
    "minitorch.creation", "minitorch.random", "minitorch.dtypes", "minitorch.ops.arithmetic_ops",
    "minitorch.ops.reduction_ops", "minitorch.ops.array_ops", "minitorch.ops.in_place_ops", "minitorch.engine.anomaly",
    "minitorch.engine.trace", "minitorch.autograd.gradient_tape", "minitorch.autograd.functional",
    "minitorch.autograd.gradcheck", "minitorch.autograd.custom", "minitorch.engine.hooks",
    "minitorch.engine.forwardprop", "minitorch.optim.optimizer", "minitorch.optim.adagrad", "minitorch.optim.rmsprop",
    "minitorch.nn.conv", "minitorch.nn.embedding", "minitorch.nn.parameter", "minitorch.datasets.download",
    "minitorch.autograd.backward", "minitorch.autograd.graph", "minitorch.nest", "minitorch.errors",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path):
    module = importlib.import_module(name)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        minitorch.manual_seed(0)
        result = doctest.testmod(module, extraglobs={"mt": minitorch, "np": np, "F": minitorch.nn.functional},
                                 optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    finally:
        os.chdir(cwd)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (output above)"


def test_the_listed_modules_have_examples():
    finder = doctest.DocTestFinder()
    for name in PUBLIC_WITH_EXAMPLES:
        tests = finder.find(importlib.import_module(name), extraglobs={"mt": minitorch})
        assert any(t.examples for t in tests), f"{name} has no >>> example"


def _made_elsewhere():
    """The functions a module holds but a factory of another module made (an op's public function, an in-place
    twin): doctest looks for examples only in functions whose globals are the module's, so none finds theirs."""
    made = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if (inspect.isfunction(value) and value.__globals__.get(value.__name__) is not value
                    and not hasattr(value, "__wrapped__")  # a decorated function: its own module's test runs it
                    and ">>>" in (value.__doc__ or "") and not attribute.startswith("_")):
                made.setdefault(id(value), (f"{name}.{attribute}", value))
    return sorted(made.values(), key=lambda item: item[0])


def test_examples_of_functions_made_by_factories_run(tmp_path):
    made = _made_elsewhere()
    assert len(made) > 100  # exp, tan, erf, lt, ... and the in-place twins
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        for name, function in made:
            minitorch.manual_seed(0)
            for test in finder.find(function, name, globs={"mt": minitorch, "np": np, "F": minitorch.nn.functional}):
                runner.run(test)
    finally:
        os.chdir(cwd)
    assert runner.failures == 0, f"{runner.failures} of {runner.tries} examples failed (output above)"
