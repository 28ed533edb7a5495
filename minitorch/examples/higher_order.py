"""Higher-order autodiff, four short demonstrations.

    python -m minitorch.examples.higher_order [--seed N]

1. A Hessian-vector product (nested tapes) checked against finite
   differences of the gradient.
2. Newton's method on a small smooth convex problem, using the full Hessian
   (mt.autograd.functional.hessian): converges in a few steps.
3. One training step of a small MLP critic with a WGAN-GP gradient penalty:
   the penalty is a function of a gradient, so the step differentiates
   through a gradient (create_graph=True).
4. Forward-over-reverse (ForwardAccumulator around a GradientTape) and
   reverse-over-reverse (two nested tapes) HVPs agree.
Each part prints what it shows, ending in "OK" when the check holds.
"""
import numpy as np

import minitorch as mt

from .cli import example_parser


def rosenbrock_like(x):
    """A smooth function with a non-diagonal Hessian.

    >>> round(rosenbrock_like(mt.ones(3, dtype=mt.float64)).item(), 4)
    3.3155
    """
    return ((x[1:] - x[:-1] ** 2) ** 2).sum() * 10 + ((1 - x[:-1]) ** 2).sum() + mt.exp(x * 0.1).sum()


def hvp_nested_tapes(f, x, v):
    """The Hessian of ``f`` at ``x`` times ``v``: the gradient of (gradient . v), with two nested tapes.

    >>> hvp_nested_tapes(lambda x: (x ** 3).sum(), mt.tensor([1.0, 2.0]), mt.tensor([1.0, 1.0])).tolist()  # 6 x v
    [6.0, 12.0]
    """
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x, output_gradients=v)


def gradient(f, x):
    """d f / d x, with one tape.

    >>> gradient(lambda x: (x ** 2).sum(), mt.tensor([1.0, -3.0])).tolist()
    [2.0, -6.0]
    """
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


def part_hvp_vs_finite_differences(rng):
    """[1] The nested-tape HVP agrees with central differences of the gradient.

    >>> part_hvp_vs_finite_differences(np.random.default_rng(0))
    [1] Hessian-vector product vs finite differences of the gradient: relative error ... OK
    True
    """
    x = mt.tensor(rng.standard_normal(5), dtype=mt.float64)
    v = mt.tensor(rng.standard_normal(5), dtype=mt.float64)
    hv = hvp_nested_tapes(rosenbrock_like, x, v).numpy()
    eps = 1e-5
    plus = gradient(rosenbrock_like, x + eps * v).numpy()
    minus = gradient(rosenbrock_like, x - eps * v).numpy()
    numeric = (plus - minus) / (2 * eps)
    error = float(np.max(np.abs(hv - numeric)) / np.max(np.abs(numeric)))
    status = "OK" if error < 1e-6 else "FAILED"
    print(f"[1] Hessian-vector product vs finite differences of the gradient: relative error {error:.1e} {status}")
    return error < 1e-6


def part_newton(rng):
    """[2] Newton's method with the full Hessian converges in a few steps.

    >>> part_newton(np.random.default_rng(0))
    [2] Newton's method: gradient norm per step ...; converged in ... steps OK
    True
    """
    a = rng.standard_normal((4, 4))
    matrix = mt.tensor(a @ a.T + 4 * np.eye(4))
    target = mt.tensor(rng.standard_normal(4))

    def objective(x):
        return 0.5 * (x @ (matrix @ x)) - target @ x + mt.log(mt.exp(x).sum())

    x = mt.zeros(4, dtype=mt.float64)
    norms = []
    for _ in range(8):
        g = gradient(objective, x)
        norms.append(float(np.linalg.norm(g.numpy())))
        if norms[-1] < 1e-12:
            break
        h = mt.autograd.functional.hessian(objective, x)
        x = x - mt.tensor(np.linalg.solve(h.numpy(), g.numpy()))
    steps = len(norms) - 1
    ok = norms[-1] < 1e-10 and steps <= 6
    history = ", ".join(f"{n:.1e}" for n in norms)
    print(f"[2] Newton's method: gradient norm per step {history}; converged in {steps} steps {'OK' if ok else 'FAILED'}")
    return ok


def part_gradient_penalty(rng):
    """[3] A WGAN-GP step: the loss contains a gradient, and its own gradient reaches the critic's weights.

    >>> part_gradient_penalty(np.random.default_rng(0))
    [3] WGAN-GP step on a 2-16-1 critic: ... after one step OK
    True
    """
    def layer(fan_in, fan_out):
        bound = 1 / np.sqrt(fan_in)
        return [mt.tensor(rng.uniform(-bound, bound, (fan_in, fan_out)), dtype=mt.float32, requires_grad=True),
                mt.tensor(rng.uniform(-bound, bound, fan_out), dtype=mt.float32, requires_grad=True)]

    params = layer(2, 16) + layer(16, 1)

    def critic(x):
        h = mt.tanh(x @ params[0] + params[1])
        return (h @ params[2] + params[3]).squeeze(-1)

    real = mt.tensor(rng.standard_normal((32, 2)) + 2, dtype=mt.float32)
    fake = mt.tensor(rng.standard_normal((32, 2)), dtype=mt.float32)

    def losses():
        alpha = mt.tensor(rng.uniform(size=(32, 1)), dtype=mt.float32)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
        (grad_mixed,) = mt.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
        penalty = ((grad_mixed.pow(2).sum(dim=1).sqrt() - 1) ** 2).mean()
        wasserstein = critic(fake).mean() - critic(real).mean()
        return wasserstein + 10 * penalty, penalty

    loss, penalty = losses()
    loss.backward()
    penalty_reaches_weights = all(p.grad is not None for p in params[:3])
    with mt.no_grad():
        for p in params:
            p.sub_(p.grad, alpha=0.05)
            p.grad = None
    after, _ = losses()
    ok = penalty_reaches_weights and after.item() < loss.item()
    print(f"[3] WGAN-GP step on a 2-16-1 critic: gradient penalty {penalty.item():.3f} differentiates through a gradient; "
          f"loss {loss.item():.4f} -> {after.item():.4f} after one step {'OK' if ok else 'FAILED'}")
    return ok


def part_forward_over_reverse(rng):
    """[4] Forward-over-reverse and reverse-over-reverse HVPs agree.

    >>> part_forward_over_reverse(np.random.default_rng(0))
    [4] forward-over-reverse vs reverse-over-reverse HVP: max difference ... OK
    True
    """
    x = mt.tensor(rng.standard_normal(6), dtype=mt.float64)
    v = mt.tensor(rng.standard_normal(6), dtype=mt.float64)
    with mt.ForwardAccumulator(x, v) as acc:
        g = gradient(rosenbrock_like, x)
    forward_over_reverse = acc.jvp(g).numpy()
    reverse_over_reverse = hvp_nested_tapes(rosenbrock_like, x, v).numpy()
    difference = float(np.max(np.abs(forward_over_reverse - reverse_over_reverse)))
    ok = difference < 1e-10 * max(1.0, float(np.max(np.abs(reverse_over_reverse))))
    print(f"[4] forward-over-reverse vs reverse-over-reverse HVP: max difference {difference:.1e} {'OK' if ok else 'FAILED'}")
    return ok


def main(argv=None):
    """Run the four parts; the exit status is 0 when every check holds, 1 otherwise.

    >>> main(["--seed", "1"])
    [1] ... OK
    [2] ... OK
    [3] ... OK
    [4] ... OK
    0
    """
    parser = example_parser("python -m minitorch.examples.higher_order", __doc__)
    parser.add_argument("--seed", type=int, default=0, help="seeds the random problems (default: %(default)s)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    results = [part(rng) for part in (part_hvp_vs_finite_differences, part_newton, part_gradient_penalty,
                                      part_forward_over_reverse)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
