"""pytorch/examples mnist_rnn/main.py: an LSTM reads an image row by row and classifies it.

Source: https://github.com/pytorch/examples (mnist_rnn/main.py), BSD-3-Clause licence, Copyright (c) 2017
PyTorch contributors. Shrunk: 12x12 synthetic digits instead of MNIST's 28x28 (so the LSTM reads 12 rows
of 12), 16 hidden units, five classes, a few epochs; the data is made in memory. The code is the example's:
nn.LSTM(batch_first=True) whose last output goes through BatchNorm1d, Dropout2d, two Linear layers and
log_softmax, F.nll_loss, Adadelta with StepLR, model.train()/model.eval(), the test loop's
reduction='sum' and argmax(dim=1, keepdim=True) with pred.eq(target.view_as(pred)).
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

ROWS, HIDDEN, CLASSES = 12, 16, 5


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=ROWS, hidden_size=HIDDEN, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(HIDDEN)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(HIDDEN, 32)
        self.fc2 = nn.Linear(32, CLASSES)

    def forward(self, input):
        # Shape of input is (batch_size,1, 12, 12)
        # converting shape of input to (batch_size, 12, 12)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, ROWS, ROWS)
        output, hidden = self.rnn(input)

        # RNN output shape is (batch, seq_len, hidden_size) with batch_first
        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def synthetic_digits(count, seed):
    """12x12 'digits': class k is a bright horizontal bar at rows 2k..2k+1, plus noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, count)
    images = rng.normal(0.0, 0.3, (count, 1, ROWS, ROWS))
    for image, label in zip(images, labels):
        image[0, 2 * label:2 * label + 2, 1:-1] += 2.0
    return images.astype(np.float32), labels.astype(np.int64)


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
    return losses


def test(args, model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)

    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))
    return test_loss, correct


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example using RNN')
    parser.add_argument('--batch-size', type=int, default=32, metavar='N',
                        help='input batch size for training (default: 32)')
    parser.add_argument('--epochs', type=int, default=3, metavar='N',
                        help='number of epochs to train (default: 3)')
    parser.add_argument('--lr', type=float, default=0.1, metavar='LR',
                        help='learning rate (default: 0.1)')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M',
                        help='learning rate step gamma (default: 0.7)')
    parser.add_argument('--seed', type=int, default=1, metavar='S',
                        help='random seed (default: 1)')
    parser.add_argument('--log-interval', type=int, default=10, metavar='N',
                        help='how many batches to wait before logging training status')
    return parser.parse_args(argv)


def main(argv=None, start=None, dropout=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    images, labels = synthetic_digits(160, 0)
    test_images, test_labels = synthetic_digits(64, 1)
    train_loader = DataLoader(TensorDataset(torch.from_numpy(images), torch.from_numpy(labels)),
                              batch_size=args.batch_size, shuffle=start is None)
    test_loader = DataLoader(TensorDataset(torch.from_numpy(test_images), torch.from_numpy(test_labels)),
                             batch_size=args.batch_size)

    model = Net().to(device)
    if start is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in start.items()})
    if dropout is not None:
        model.dropout1.p = model.dropout2.p = dropout
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    losses, tests = [], []
    for epoch in range(1, args.epochs + 1):
        losses += train(args, model, device, train_loader, optimizer, epoch)
        tests.append(test(args, model, device, test_loader))
        scheduler.step()
    return model, losses, tests
