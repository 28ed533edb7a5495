"""pytorch/examples super_resolution (model.py and main.py): an efficient sub-pixel CNN (Shi et al., 2016).

Source: https://github.com/pytorch/examples (super_resolution/model.py, super_resolution/main.py),
BSD-3-Clause licence, Copyright (c) 2017 PyTorch contributors. Shrunk: 8 and 4 channels instead of 64 and
32, synthetic 16x16 images and their 8x8 2x2 averages instead of BSDS300 crops, no checkpoint files
(the example saves the whole pickled model). The code is the example's: Conv2d layers with tuple
arguments, nn.PixelShuffle, init.orthogonal_ with init.calculate_gain('relu'), MSELoss, Adam, the
PSNR of the test loop computed with math.log10 of mse.item().
"""
import argparse
from math import log10

import numpy as np
import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, 4, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(4, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


def synthetic_pairs(count, seed, upscale_factor=2):
    """(low-resolution, high-resolution) pairs: smooth random 16x16 images and their block averages."""
    rng = np.random.default_rng(seed)
    rows, cols = np.indices((16, 16)) / 16.0
    high = np.empty((count, 1, 16, 16), np.float32)
    for image in high:
        a, b, c = rng.uniform(1, 4, 3)
        image[0] = 0.5 + 0.5 * np.sin(a * rows + b * cols + c)
    size = 16 // upscale_factor
    low = high.reshape(count, 1, size, upscale_factor, size, upscale_factor).mean(axis=(3, 5))
    return low.astype(np.float32), high


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='PyTorch Super Res Example')
    parser.add_argument('--upscale_factor', type=int, default=2, help="super resolution upscale factor")
    parser.add_argument('--batchSize', type=int, default=8, help='training batch size')
    parser.add_argument('--testBatchSize', type=int, default=8, help='testing batch size')
    parser.add_argument('--nEpochs', type=int, default=3, help='number of epochs to train for')
    parser.add_argument('--lr', type=float, default=0.01, help='Learning Rate. Default=0.01')
    parser.add_argument('--seed', type=int, default=123, help='random seed to use. Default=123')
    return parser.parse_args(argv)


def main(argv=None, start=None):
    opt = parse_args(argv)
    torch.manual_seed(opt.seed)
    device = torch.device("cpu")

    print('===> Loading datasets')
    train_set = TensorDataset(*map(torch.from_numpy, synthetic_pairs(32, 0, opt.upscale_factor)))
    test_set = TensorDataset(*map(torch.from_numpy, synthetic_pairs(8, 1, opt.upscale_factor)))
    training_data_loader = DataLoader(dataset=train_set, batch_size=opt.batchSize, shuffle=False)
    testing_data_loader = DataLoader(dataset=test_set, batch_size=opt.testBatchSize, shuffle=False)

    print('===> Building model')
    model = Net(upscale_factor=opt.upscale_factor).to(device)
    if start is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in start.items()})
    criterion = nn.MSELoss()

    optimizer = optim.Adam(model.parameters(), lr=opt.lr)

    def train(epoch):
        epoch_loss = 0
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0].to(device), batch[1].to(device)

            optimizer.zero_grad()
            loss = criterion(model(input), target)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()

            print("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(epoch, iteration, len(training_data_loader), loss.item()))

        print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))
        return epoch_loss / len(training_data_loader)

    def test():
        avg_psnr = 0
        with torch.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0].to(device), batch[1].to(device)

                prediction = model(input)
                mse = criterion(prediction, target)
                psnr = 10 * log10(1 / mse.item())
                avg_psnr += psnr
        print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))
        return avg_psnr / len(testing_data_loader)

    history = []
    for epoch in range(1, opt.nEpochs + 1):
        history.append((train(epoch), test()))
    return model, history
