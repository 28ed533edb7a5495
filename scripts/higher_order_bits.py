"""Higher-order results of this tree against another minitorch tree's, bit for bit (float64).

    python scripts/higher_order_bits.py OLD_DIR      # OLD_DIR holds a `minitorch` package, e.g. from
                                                     # `git archive <commit> minitorch | tar -x -C OLD_DIR`

Runs one battery of computations in a fresh process per tree and prints, per
result, whether the two are bitwise equal, or their largest difference: a
Hessian of a function whose input is read many times, a Jacobian, a gradient
penalty through an MLP (create_graph=True), a third derivative from three
nested GradientTapes, a Hessian-vector product through a convolution, and a
first-order gradient of a tensor read four times. A reverse pass that adds a
tensor's gradient parts in another order changes the last bits of some of
them; nothing else should.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

BATTERY = r'''
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import minitorch as mt
import minitorch.nn.functional as F
out = {}
rng = np.random.default_rng(0)
def t(a, rg=True): return mt.tensor(np.asarray(a, np.float64), requires_grad=rg)
x = t(rng.standard_normal(4))
def f(x): return (x * x * x).sum() + (x.sin() * x).sum() + (x @ x) * x.sum() + x.exp().mean() * x[0]
out["hessian"] = mt.autograd.functional.hessian(f, x).numpy()
out["jacobian"] = mt.autograd.functional.jacobian(lambda x: x * x.sin() + x.cumsum(0) * x, x).numpy()
mt.manual_seed(0)
model = mt.nn.Sequential(mt.nn.Linear(5, 8), mt.nn.Tanh(), mt.nn.Linear(8, 8), mt.nn.Sigmoid(), mt.nn.Linear(8, 1)).double()
inp = t(rng.standard_normal((6, 5)))
(gx,) = mt.autograd.grad(model(inp).sum(), inp, create_graph=True)
((gx * gx).sum() + (gx.norm(dim=1) - 1).pow(2).mean()).backward()
for i, p in enumerate(model.parameters()):
    out[f"penalty, parameter {i}"] = p.grad.numpy().copy() if p.grad is not None else np.zeros(0)
v = t(rng.standard_normal(3), rg=False)
with mt.GradientTape(persistent=True) as t3:
    t3.watch(v)
    with mt.GradientTape(persistent=True) as t2:
        t2.watch(v)
        with mt.GradientTape() as t1:
            t1.watch(v)
            e = (mt.tanh(v) ** 3 * v + v.exp() * v.sin()).sum() + (v * v).sum() * v.sum()
        g1 = t1.gradient(e, v)
        s1 = (g1 * g1 * v).sum()
    s2 = (t2.gradient(s1, v) * v.cos()).sum()
out["third derivative"] = t3.gradient(s2, v).numpy()
xx = t(rng.standard_normal((2, 1, 6, 6)), rg=False)
conv = mt.nn.Conv2d(1, 3, 3).double()
w0 = conv.weight.detach().clone()
vec = t(rng.standard_normal(w0.shape), rg=False)
_, hv = mt.autograd.functional.hvp(lambda w: (F.conv2d(xx, w, conv.bias).relu() ** 2).sum() + (w * w * w).sum(), w0, vec)
out["hvp through a convolution"] = hv.numpy()
w = t(rng.standard_normal(3))
((w * 2).sum() + (w.exp() * w).sum() + (w @ w) + w.tanh().sum() * w[1]).backward()
out["gradient of a tensor read 4 times"] = w.grad.numpy()
np.savez(sys.argv[2], **out)
'''


def results_of(tree, scratch, label):
    path = os.path.join(scratch, label + ".npz")
    subprocess.run([sys.executable, "-c", BATTERY, tree, path], check=True)
    return np.load(path)


def main():
    if len(sys.argv) != 2 or not os.path.isdir(os.path.join(sys.argv[1], "minitorch")):
        sys.exit("usage: python scripts/higher_order_bits.py OLD_DIR  (a directory holding a minitorch package)")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with tempfile.TemporaryDirectory() as scratch:
        old, new = results_of(sys.argv[1], scratch, "old"), results_of(here, scratch, "new")
        for name in old.files:
            a, b = old[name], new[name]
            same = a.shape == b.shape and a.tobytes() == b.tobytes()
            print(f"{name:36s} {'bitwise equal' if same else f'differs, at most {np.max(np.abs(a - b)):.3g}'}")


if __name__ == "__main__":
    main()
