"""Gradient-check cases, one module per op family; every module defines CASES.

Each case names the op it exercises, a function of Tensors, and a maker of
float64 numpy inputs. tests/test_op_gradients.py checks every registered op
has a case here (or is marked not differentiable), so a new op without a
check fails the suite.
"""
import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class OpCase:
    op: str  # the registered op name the case must execute
    fn: Callable  # Tensors -> Tensor (or tuple)
    make_inputs: Callable  # numpy Generator -> list of float64 arrays (differentiable) or other values
    second_order: bool = True  # smooth enough for a gradgradcheck
    name: str = ""
    constants: tuple = field(default_factory=tuple)  # indices of inputs that must not require grad
    eps: float = 1e-6  # finite-difference step; larger for cases that pass through float32
    forward_mode: bool = True  # False for an op whose forward mode raises by design (tests/test_jvp_rules.py skips it)

    def id(self):
        return f"{self.op}-{self.name}" if self.name else self.op


def all_cases():
    cases = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(module.CASES)
    return cases
