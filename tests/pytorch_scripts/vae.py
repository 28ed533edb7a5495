"""pytorch/examples vae/main.py: a variational autoencoder (Kingma & Welling) on small images.

Source: https://github.com/pytorch/examples (vae/main.py), BSD-3-Clause licence, Copyright (c) 2017
PyTorch contributors. Shrunk: 8x8 synthetic images (blobs in [0, 1]) instead of MNIST's 28x28, layers of
32 and 4 units instead of 400 and 20, no image files written; the model can start from given weights. The
code is the example's: encode/reparameterize/decode with torch.randn_like, loss_function with
F.binary_cross_entropy(reduction='sum') plus the KL term, train and test loops over DataLoaders.
"""
import argparse

import numpy as np
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

PIXELS, HIDDEN, LATENT = 64, 32, 4


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='VAE MNIST Example')
    parser.add_argument('--batch-size', type=int, default=16, metavar='N',
                        help='input batch size for training (default: 16)')
    parser.add_argument('--epochs', type=int, default=3, metavar='N',
                        help='number of epochs to train (default: 3)')
    parser.add_argument('--seed', type=int, default=1, metavar='S',
                        help='random seed (default: 1)')
    parser.add_argument('--log-interval', type=int, default=10, metavar='N',
                        help='how many batches to wait before logging training status')
    return parser.parse_args(argv)


def synthetic_images(count, seed):
    """Blurry blobs in [0, 1]: a bright square at one of four places, plus noise."""
    rng = np.random.default_rng(seed)
    images = rng.uniform(0.0, 0.2, (count, 1, 8, 8))
    for image, place in zip(images, rng.integers(0, 4, count)):
        row, col = divmod(int(place), 2)
        image[0, row * 4:row * 4 + 4, col * 4:col * 4 + 4] += 0.7
    return images.astype(np.float32), rng.integers(0, 4, count)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()

        self.fc1 = nn.Linear(PIXELS, HIDDEN)
        self.fc21 = nn.Linear(HIDDEN, LATENT)
        self.fc22 = nn.Linear(HIDDEN, LATENT)
        self.fc3 = nn.Linear(LATENT, HIDDEN)
        self.fc4 = nn.Linear(HIDDEN, PIXELS)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5*logvar)
        eps = torch.randn_like(std)
        return mu + eps*std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, PIXELS))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, PIXELS), reduction='sum')

    # see Appendix B from VAE paper:
    # Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    # https://arxiv.org/abs/1312.6114
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return BCE + KLD


def train(args, model, optimizer, train_loader, epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader),
                loss.item() / len(data)))

    average = train_loss / len(train_loader.dataset)
    print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, average))
    return average


def test(model, test_loader):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()

    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))
    return test_loss


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    images, labels = synthetic_images(128, 0)
    test_images, test_labels = synthetic_images(32, 1)
    train_loader = DataLoader(TensorDataset(torch.from_numpy(images), torch.from_numpy(labels)),
                              batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(torch.from_numpy(test_images), torch.from_numpy(test_labels)),
                             batch_size=args.batch_size, shuffle=False)

    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    history = []
    for epoch in range(1, args.epochs + 1):
        history.append((train(args, model, optimizer, train_loader, epoch), test(model, test_loader)))
        with torch.no_grad():
            sample = torch.randn(8, LATENT)
            sample = model.decode(sample)
    return model, history, sample
