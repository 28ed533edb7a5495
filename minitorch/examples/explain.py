"""Backprop, shown: one forward and backward pass of a tiny network, explained.

    python -m minitorch.examples.explain [--out PATH] [--html PATH]

1. Builds a 3 -> 4 -> 1 network (Linear, Tanh, Linear; float64) and a
   squared-error loss on two examples.
2. Prints the trace of the forward pass (each op recorded on the autograd
   tape, what its backward function keeps) and of the backward pass (each
   backward function in the order the ready-op stack runs it, with the
   gradients): mt.autograd.tracing.
3. Writes the captured graph, with every value and gradient and the backward
   order, to a PNG (mt.viz.capture, mt.viz.draw) and prints its listing.
   With --html, also writes a page that steps through the reverse pass, one
   backward function at a time (mt.viz.explore; open it in a browser).
4. Checks the first layer's weight gradient against central finite
   differences in float64, entry by entry, ending in "OK" when they agree.
"""
import numpy as np

import minitorch as mt
from minitorch import nn

from .cli import UsageError, check_figure_path, example_parser


def build(seed=0):
    """(model, inputs, targets): a 3 -> 4 -> 1 float64 network and two examples.

    >>> model, x, target = build()
    >>> model
    Sequential(
      (0): Linear(in_features=3, out_features=4, bias=True)
      (1): Tanh()
      (2): Linear(in_features=4, out_features=1, bias=True)
    )
    """
    mt.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
    x = mt.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=mt.float64)
    target = mt.tensor([[1.0], [-1.0]], dtype=mt.float64)
    return model, x, target


def loss_of(model, x, target):
    """The mean squared error of ``model(x)`` against ``target``.

    >>> model, x, target = build()
    >>> loss_of(model, x, target).item() > 0
    True
    """
    return ((model(x) - target) ** 2).mean()


def finite_difference_gradient(model, x, target, parameter, eps=1e-6):
    """d loss / d parameter, one entry at a time: (loss(p + eps) - loss(p - eps)) / 2 eps.

    >>> model, x, target = build()
    >>> loss_of(model, x, target).backward()
    >>> numeric = finite_difference_gradient(model, x, target, model[2].bias)
    >>> bool(np.allclose(numeric, model[2].bias.grad.numpy(), atol=1e-8))
    True
    """
    grad = np.zeros(parameter.shape)
    original = parameter.detach().clone()
    with mt.no_grad():  # the parameter is nudged in place and restored
        for index in np.ndindex(*parameter.shape):
            parameter[index] = original[index] + eps
            above = loss_of(model, x, target).item()
            parameter[index] = original[index] - eps
            below = loss_of(model, x, target).item()
            parameter[index] = original[index]
            grad[index] = (above - below) / (2 * eps)
    return grad


def main(argv=None):
    """Print the trace, draw the graph to ``--out``, check the gradient; exit status 0 when it agrees.

    >>> main(["--out", "graph.png"])
    Sequential(
    ...
    largest difference ...: OK
    0
    """
    parser = example_parser("python -m minitorch.examples.explain", __doc__)
    parser.add_argument("--out", metavar="PATH", default="explain_graph.png",
                        help="where to write the graph PNG (default: %(default)s)")
    parser.add_argument("--html", metavar="PATH", help="also write a page that steps through the reverse pass")
    args = parser.parse_args(argv)
    try:
        check_figure_path("--out", args.out)  # before the output it would otherwise end
    except UsageError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    model, x, target = build()
    print(model)

    print("\n== the trace: forward ops recorded on the tape, then the backward calls ==")
    with mt.viz.capture("one forward and backward pass") as graph, mt.autograd.tracing():
        loss = loss_of(model, x, target)
        loss.backward()
    print(f"loss = {loss.item():.6f}")

    names = {"x": x, "target": target, "loss": loss}
    names.update({name: p for name, p in model.named_parameters()})
    print("\n== the graph (backward order, every value and gradient) ==")
    print(mt.viz.listing(graph, names=names))
    mt.viz.draw(graph, args.out, names=names)
    print(f"graph drawn to {args.out}")
    if args.html:  # a new forward pass: the captured one's graph was freed by backward()
        print(f"reverse pass, step by step: {mt.viz.explore(loss_of(model, x, target), args.html, names=names)}")

    print("\n== the gradient of 0.weight: backprop vs finite differences (float64) ==")
    weight = model[0].weight
    analytic = weight.grad.numpy()
    numeric = finite_difference_gradient(model, x, target, weight)
    print(f"{'entry':<8}{'backprop':>14}{'finite diff':>14}{'difference':>12}")
    for index in np.ndindex(*analytic.shape):
        print(f"{str(index):<8}{analytic[index]:>14.8f}{numeric[index]:>14.8f}{abs(analytic[index] - numeric[index]):>12.1e}")
    worst = float(np.max(np.abs(analytic - numeric)))
    ok = worst < 1e-7
    print(f"largest difference {worst:.1e}: {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
