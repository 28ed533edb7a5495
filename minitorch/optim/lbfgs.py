"""L-BFGS: a quasi-Newton method that rebuilds an inverse-Hessian estimate from its last few steps.

A port of PyTorch's torch/optim/lbfgs.py (itself a port of torch7's optim/lbfgs.lua
and lswolfe.lua), on flat numpy arrays. `step(closure)` runs up to `max_iter`
iterations, each re-evaluating the loss and gradients through `closure`:

    d = -H g                     H: the two-loop recursion over the last history_size pairs
                                 (s = step taken, y = change of gradient), scaled by y.s / y.y
    t = lr (the first iteration: min(1, 1 / |g|_1) * lr)
    p = p + t d                  or, with line_search_fn="strong_wolfe", the t that a
                                 bracketing-and-zoom search finds to satisfy the strong
                                 Wolfe conditions (c1 = 1e-4, c2 = 0.9)

and stops early when the gradient is below `tolerance_grad`, when the step or the
loss change is below `tolerance_change`, or after `max_eval` closure calls. All
parameters form one vector, so there is a single param group. The state lives
under the first parameter, as in PyTorch; the scalars are kept in the
parameters' precision, as PyTorch's 0-d tensors are.
"""
import numpy as np

from ..autograd import enable_grad
from ..engine.versions import bump
from ..tensor import Tensor
from .optimizer import Optimizer, check_non_negative


class LBFGS(Optimizer):
    """L-BFGS with PyTorch's defaults, stopping rules and strong-Wolfe line search; `step` needs a closure.

    >>> w = mt.nn.Parameter(mt.tensor([3.0, -1.0], dtype=mt.float64))
    >>> optimizer = mt.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     optimizer.zero_grad()
    ...     loss = ((w - mt.tensor([1.0, 2.0], dtype=mt.float64)) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = optimizer.step(closure)
    >>> [round(v, 6) for v in w.tolist()]
    [1.0, 2.0]
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        check_non_negative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def add_param_group(self, param_group):
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(param_group)

    # ----- the parameters as one flat vector -----

    def _gather_flat_grad(self):
        return np.concatenate([self._gradient(p).reshape(-1) if p.grad is not None else np.zeros(p._data.size,
                                                                                                 p._data.dtype)
                               for p in self._params])

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            size = p._data.size
            p._data += step_size * update[offset:offset + size].reshape(p._data.shape)
            bump(p)
            offset += size

    def _clone_param(self):
        return [p._data.copy() for p in self._params]

    def _set_param(self, arrays):
        for p, array in zip(self._params, arrays):
            np.copyto(p._data, array)
            bump(p)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ----- the step -----

    def step(self, closure):
        """Runs up to `max_iter` L-BFGS iterations, calling `closure()` (with gradients on) for each evaluation.

        Returns the loss of the first evaluation, as PyTorch does.

        >>> w = mt.nn.Parameter(mt.tensor([0.0]))
        >>> optimizer = mt.optim.LBFGS([w], max_iter=5)
        >>> def closure():
        ...     optimizer.zero_grad()
        ...     loss = ((w - 2) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> optimizer.step(closure).item()
        4.0
        """
        group = self.param_groups[0]
        lr, max_iter, max_eval = float(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")

        def evaluate():
            with enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        memory = _Memory.from_state(state, history_size)
        d, t = _as_array(state.get("d")), _scalar(state.get("t"))
        prev_flat_grad, prev_loss = _as_array(state.get("prev_flat_grad")), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            if state["n_iter"] == 1:
                d = np.negative(flat_grad)
                memory.clear()
            else:
                memory.remember(flat_grad - prev_flat_grad, d * t)
                d = memory.direction(flat_grad)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss

            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break  # not a descent direction (any more)

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = self._clone_param()
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    lambda x, step, direction: self._directional_evaluate(evaluate, x, step, direction),
                    x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # No re-evaluation after the last iteration: in a stochastic setting it would be wasted.
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break  # no progress

        state["d"] = Tensor._make(d)
        state["t"] = _stored(t)
        memory.store(state)
        state["prev_flat_grad"] = Tensor._make(prev_flat_grad)
        state["prev_loss"] = prev_loss
        return orig_loss


class _Memory:
    """The last `history_size` (y, s) pairs, 1 / y.s for each, and the initial Hessian scale (PyTorch's names)."""

    def __init__(self, history_size, old_dirs, old_stps, ro, H_diag, al):
        self.history_size = history_size
        self.old_dirs, self.old_stps, self.ro, self.H_diag, self.al = old_dirs, old_stps, ro, H_diag, al

    @classmethod
    def from_state(cls, state, history_size):
        arrays = lambda key: [_as_array(v) for v in state.get(key) or []]  # noqa: E731
        scalars = lambda key: [_scalar(v) for v in state.get(key) or []]  # noqa: E731
        al = scalars("al") if "al" in state else None
        return cls(history_size, arrays("old_dirs"), arrays("old_stps"), scalars("ro"),
                   _scalar(state.get("H_diag")), al)

    def clear(self):
        self.old_dirs, self.old_stps, self.ro, self.H_diag = [], [], [], 1

    def remember(self, y, s):
        ys = y.dot(s)
        if ys > 1e-10:
            if len(self.old_dirs) == self.history_size:
                self.old_dirs.pop(0)
                self.old_stps.pop(0)
                self.ro.pop(0)
            self.old_dirs.append(y)
            self.old_stps.append(s)
            self.ro.append(1.0 / ys)
            self.H_diag = ys / y.dot(y)

    def direction(self, flat_grad):
        """-H g by the two-loop recursion (Nocedal and Wright, Algorithm 7.4)."""
        if self.al is None:
            self.al = [None] * self.history_size
        al = self.al
        q = np.negative(flat_grad)
        for i in range(len(self.old_dirs) - 1, -1, -1):
            al[i] = self.old_stps[i].dot(q) * self.ro[i]
            q += -al[i] * self.old_dirs[i]
        r = q * self.H_diag
        for i in range(len(self.old_dirs)):
            be_i = self.old_dirs[i].dot(r) * self.ro[i]
            r += (al[i] - be_i) * self.old_stps[i]
        return r

    def store(self, state):
        state["old_dirs"] = [Tensor._make(v) for v in self.old_dirs]
        state["old_stps"] = [Tensor._make(v) for v in self.old_stps]
        state["ro"] = [_stored(v) for v in self.ro]
        state["H_diag"] = _stored(self.H_diag)
        if self.al is not None:
            state["al"] = [None if v is None else _stored(v) for v in self.al]


def _as_array(value):
    return None if value is None else np.asarray(value._data if isinstance(value, Tensor) else value)


def _scalar(value):
    """A state scalar as a number: numpy scalars keep their precision (a 0-d tensor in PyTorch)."""
    if isinstance(value, Tensor):
        return value._data[()]
    return value


def _stored(value):
    """A numpy scalar becomes a 0-d Tensor in the state (a Python number stays), as PyTorch's state holds them."""
    return Tensor._make(np.asarray(value)) if isinstance(value, np.generic) else value


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to `bounds` (torch7's polyinterp)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step t along d meeting the strong Wolfe conditions: bracket an interval, then zoom (torch7's lswolfe).

    Returns (f(t), g(t), t, number of evaluations).
    """
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)

    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f, bracket_g = [t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        # Extrapolate: the minimiser of the cubic, between 1.01 t and 10 t.
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # Zoom: shrink the bracket until a point meets the conditions.
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # A trial point too close to an end of the bracket twice in a row (or past it) is moved
        # to 10% of the bracket's length from that end.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False

        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1

        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            # Not enough decrease, or not below the low end: the new point is the high end.
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                # The old high end becomes the low end.
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new

    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals
