"""Computations whose results hold NaN or inf without PyTorch printing a warning (issue 12).

Each case is `fn(L)` for L = minitorch or torch: the same code on both libraries.
Used by tests/test_odd_inputs.py.
"""
inf, nan = float("inf"), float("nan")


def _t(L, data, dtype="float32"):
    return L.tensor(data, dtype=getattr(L, dtype))


def _grad(L, fn, data):
    x = L.tensor(data, requires_grad=True)
    fn(L, x).sum().backward()
    return x.grad


CASES = {
    "1 / 0": lambda L: _t(L, [1.0, -1.0]) / _t(L, [0.0, 0.0]),
    "0 / 0": lambda L: _t(L, [0.0]) / _t(L, [0.0]),
    "x / 0.0": lambda L: _t(L, [1.0]) / 0.0,
    "1 / x": lambda L: 1.0 / _t(L, [0.0]),
    "integer 1 / 0": lambda L: _t(L, [1], "int64") / _t(L, [0], "int64"),
    "log 0 and -1": lambda L: L.log(_t(L, [0.0, -1.0])),
    "sqrt -1": lambda L: L.sqrt(_t(L, [-1.0])),
    "exp overflow": lambda L: L.exp(_t(L, [100.0, 1000.0])),
    "0 ** -1": lambda L: _t(L, [0.0]) ** -1,
    "(-1) ** 0.5": lambda L: _t(L, [-1.0]) ** 0.5,
    "pow overflow": lambda L: _t(L, [1e20]) ** 3,
    "mul overflow": lambda L: _t(L, [1e30]) * _t(L, [1e30]),
    "add overflow": lambda L: _t(L, [3e38]) + _t(L, [3e38]),
    "inf * 0": lambda L: _t(L, [inf]) * _t(L, [0.0]),
    "inf - inf": lambda L: _t(L, [inf]) - _t(L, [inf]),
    "float16 overflow": lambda L: _t(L, [1e4], "float16") * _t(L, [1e4], "float16"),
    "sin and cos of inf": lambda L: L.sin(_t(L, [inf])) + L.cos(_t(L, [inf])),
    "softmax of a row of -inf": lambda L: L.softmax(_t(L, [[-inf, -inf], [0.0, 1.0]]), dim=1),
    "log_softmax of a row of -inf": lambda L: L.log_softmax(_t(L, [[-inf, -inf]]), dim=1),
    "softmax with inf": lambda L: L.softmax(_t(L, [[inf, 1.0]]), dim=1),
    "mean of nothing": lambda L: L.mean(_t(L, [])),
    "mean of inf and -inf": lambda L: L.mean(_t(L, [inf, -inf])),
    "sum overflow": lambda L: L.sum(_t(L, [3e38, 3e38])),
    "prod overflow": lambda L: L.prod(_t(L, [1e30, 1e30])),
    "matmul with inf": lambda L: _t(L, [[inf, 0.0]]) @ _t(L, [[0.0], [1.0]]),
    "cast to float16 overflows": lambda L: _t(L, [1e6]).to(L.float16),
    "nan to int64": lambda L: _t(L, [nan, 1.0]).to(L.int64)[1:],
    "mse of inf": lambda L: L.nn.functional.mse_loss(_t(L, [inf]), _t(L, [inf])),
    "gradient of log at 0": lambda L: _grad(L, lambda L, x: L.log(x), [0.0]),
    "gradient of sqrt at 0": lambda L: _grad(L, lambda L, x: L.sqrt(x), [0.0]),
    "gradient of x ** 0.5 at 0": lambda L: _grad(L, lambda L, x: x ** 0.5, [0.0]),
    "gradient of 1 / x at 0": lambda L: _grad(L, lambda L, x: 1.0 / x, [0.0]),
    "gradient of exp overflow": lambda L: _grad(L, lambda L, x: L.exp(x), [1000.0]),
    "gradient of mse of inf": lambda L: _grad(L, lambda L, x: L.nn.functional.mse_loss(x, _t(L, [inf])), [inf]),
    "gradient of logsumexp of -inf": lambda L: _grad(L, lambda L, x: L.logsumexp(x, dim=0), [-inf, -inf]),
}
