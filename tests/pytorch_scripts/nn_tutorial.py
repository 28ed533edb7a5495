"""pytorch/tutorials "What is torch.nn really?" (beginner_source/nn_tutorial.py), by Jeremy Howard.

Source: https://github.com/pytorch/tutorials (beginner_source/nn_tutorial.py), BSD-3-Clause licence,
Copyright (c) 2017-2022 PyTorch contributors. Shrunk: 8x8 synthetic digits (five classes) instead of
MNIST loaded from a pickle, and each stage of the tutorial is a function, so that a test can run it
from given weights and batches. The code is the tutorial's, stage by stage: logistic regression from
scratch (x @ weights + bias, a hand-written log_softmax and nll with input[range(n), target], updates
under torch.no_grad() with weights -= weights.grad * lr), then nn.Module with nn.Parameter, nn.Linear,
optim.SGD, TensorDataset and DataLoader, the loss_batch/fit/get_data helpers, and the CNN built as an
nn.Sequential with a Lambda module, view, AdaptiveAvgPool2d and WrappedDataLoader.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch import optim
from torch.utils.data import DataLoader, TensorDataset

SIDE, CLASSES = 8, 5


def load_data(count=256, valid=64, seed=0):
    """The tutorial's map(torch.tensor, (x_train, y_train, x_valid, y_valid)) of flattened digits."""
    rng = np.random.default_rng(seed)

    def digits(n):
        labels = rng.integers(0, CLASSES, n)
        images = rng.normal(0.0, 0.3, (n, SIDE, SIDE))
        for image, label in zip(images, labels):
            image[label + 1, 1:-1] += 1.5
        return images.reshape(n, SIDE * SIDE).astype(np.float32), labels

    x_train, y_train = digits(count)
    x_valid, y_valid = digits(valid)
    x_train, y_train, x_valid, y_valid = map(
        torch.tensor, (x_train, y_train, x_valid, y_valid)
    )
    return x_train, y_train, x_valid, y_valid


# ----- Neural net from scratch (no torch.nn) -----

def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


def from_scratch(x_train, y_train, weights=None, bs=64, lr=0.5, epochs=2):
    n = x_train.shape[0]
    if weights is None:
        weights = torch.randn(SIDE * SIDE, CLASSES) / math.sqrt(SIDE * SIDE)
        weights.requires_grad_()
    bias = torch.zeros(CLASSES, requires_grad=True)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    loss_func = nll
    losses = []
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            #         set_trace()
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)
            losses.append(loss.item())

            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    return weights, bias, losses


# ----- Using torch.nn.functional, nn.Module, nn.Linear, optim, Dataset, DataLoader -----

class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(SIDE * SIDE, CLASSES) / math.sqrt(SIDE * SIDE))
        self.bias = nn.Parameter(torch.zeros(CLASSES))

    def forward(self, xb):
        return xb @ self.weights + self.bias


class Mnist_Logistic_Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(SIDE * SIDE, CLASSES)

    def forward(self, xb):
        return self.lin(xb)


loss_func = F.cross_entropy


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)

    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()

    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    history = []
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)

        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)

        print(epoch, val_loss)
        history.append(val_loss)
    return history


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


def get_model(lr=0.5):
    model = Mnist_Logistic_Linear()
    return model, optim.SGD(model.parameters(), lr=lr)


# ----- Switch to CNN -----

class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x, y):
    return x.view(-1, 1, SIDE, SIDE), y


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(8, 8, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(8, CLASSES, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )


def train_cnn(x_train, y_train, x_valid, y_valid, start=None, shuffle=True, bs=32, lr=0.1, epochs=2):
    train_ds = TensorDataset(x_train, y_train)
    valid_ds = TensorDataset(x_valid, y_valid)
    train_dl = DataLoader(train_ds, batch_size=bs, shuffle=shuffle)
    valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
    train_dl = WrappedDataLoader(train_dl, preprocess)
    valid_dl = WrappedDataLoader(valid_dl, preprocess)
    model = cnn()
    if start is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in start.items()})
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    history = fit(epochs, model, loss_func, opt, train_dl, valid_dl)
    return model, history
