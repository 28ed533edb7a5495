"""Fit y = sin(x) with a third-order polynomial, trained by hand.

Three variants, as in PyTorch's tutorial "Learning PyTorch with Examples":
tensors with requires_grad and a manual update under torch.no_grad(); the
same with nn.Sequential, model.zero_grad() and a loop over model.parameters();
and a custom autograd.Function (the Legendre polynomial P3).
Each function takes optional initial values so that a caller can start two
runs from the same point; without them it draws them as the tutorial does.
"""
import math

import torch


def fit_with_tensors(initial=None, steps=2000, learning_rate=1e-6):
    dtype = torch.float
    device = torch.device("cpu")

    x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = torch.sin(x)

    if initial is None:
        a = torch.randn((), device=device, dtype=dtype, requires_grad=True)
        b = torch.randn((), device=device, dtype=dtype, requires_grad=True)
        c = torch.randn((), device=device, dtype=dtype, requires_grad=True)
        d = torch.randn((), device=device, dtype=dtype, requires_grad=True)
    else:
        a, b, c, d = (torch.tensor(v, device=device, dtype=dtype, requires_grad=True) for v in initial)

    losses = []
    for t in range(steps):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3

        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        if t % 500 == 499:
            print(t, loss.item())

        loss.backward()

        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad

            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None

    print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')
    return losses, [a.item(), b.item(), c.item(), d.item()]


def fit_with_sequential(initial_state=None, steps=2000, learning_rate=1e-6):
    x = torch.linspace(-math.pi, math.pi, 2000)
    y = torch.sin(x)

    p = torch.tensor([1, 2, 3])
    xx = x.unsqueeze(-1).pow(p)

    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1)
    )
    if initial_state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in initial_state.items()})

    loss_fn = torch.nn.MSELoss(reduction='sum')

    losses = []
    for t in range(steps):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        losses.append(loss.item())
        if t % 500 == 499:
            print(t, loss.item())

        model.zero_grad()
        loss.backward()

        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad

    linear_layer = model[0]
    print(f'Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x'
          f' + {linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3')
    return losses, {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


def fit_with_custom_function(initial=None, steps=2000, learning_rate=5e-6):
    dtype = torch.float
    device = torch.device("cpu")

    x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = torch.sin(x)

    if initial is None:
        initial = [0.0, -1.0, 0.0, 0.3]
    a, b, c, d = (torch.full((), v, device=device, dtype=dtype, requires_grad=True) for v in initial)

    losses = []
    for t in range(steps):
        P3 = LegendrePolynomial3.apply

        y_pred = a + b * P3(c + d * x)

        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        if t % 500 == 499:
            print(t, loss.item())

        loss.backward()

        with torch.no_grad():
            for param in (a, b, c, d):
                param -= learning_rate * param.grad
                param.grad = None

    print(f'Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)')
    return losses, [a.item(), b.item(), c.item(), d.item()]


if __name__ == "__main__":
    torch.manual_seed(0)
    fit_with_tensors()
    fit_with_sequential()
    fit_with_custom_function()
