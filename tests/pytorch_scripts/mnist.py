"""The shape of pytorch/examples mnist/main.py, on small synthetic digits.

argparse options, device selection, DataLoader over a TensorDataset with a
seeded generator, a Net(nn.Module) with conv2d, dropout, max_pool2d and
log_softmax, Adadelta with StepLR, F.nll_loss (reduction='sum' in the test
loop), .to(device), and torch.save(model.state_dict(), path) loaded back.
The images are 12x12 numpy-made "digits" (a class-dependent bright bar plus
noise) so that a run takes seconds.
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(256, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def synthetic_digits(count, seed):
    """count (1, 12, 12) float32 images in [0, 1] and their int64 labels: digit k lights row k + 1."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=count)
    images = rng.uniform(0.0, 0.3, size=(count, 1, 12, 12)).astype(np.float32)
    images[np.arange(count), 0, labels + 1, 2:10] += 0.7
    return images, labels.astype(np.int64)


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
            if args.dry_run:
                break
    return losses


def test(model, device, test_loader):
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
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--batch-size', type=int, default=32, metavar='N',
                        help='input batch size for training (default: 32)')
    parser.add_argument('--test-batch-size', type=int, default=100, metavar='N',
                        help='input batch size for testing (default: 100)')
    parser.add_argument('--epochs', type=int, default=3, metavar='N',
                        help='number of epochs to train (default: 3)')
    parser.add_argument('--lr', type=float, default=1.0, metavar='LR',
                        help='learning rate (default: 1.0)')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M',
                        help='Learning rate step gamma (default: 0.7)')
    parser.add_argument('--no-cuda', action='store_true', default=False,
                        help='disables CUDA training')
    parser.add_argument('--no-mps', action='store_true', default=False,
                        help='disables macOS GPU training')
    parser.add_argument('--dry-run', action='store_true', default=False,
                        help='quickly check a single pass')
    parser.add_argument('--seed', type=int, default=1, metavar='S',
                        help='random seed (default: 1)')
    parser.add_argument('--log-interval', type=int, default=5, metavar='N',
                        help='how many batches to wait before logging training status')
    parser.add_argument('--save-model', metavar='PATH', default=None,
                        help='save the trained model to PATH')
    parser.add_argument('--checkpoint', metavar='PATH', default=None,
                        help='save a resumable checkpoint to PATH after every epoch')
    parser.add_argument('--resume', metavar='PATH', default=None,
                        help='resume training from the checkpoint at PATH')
    parser.add_argument('--train-size', type=int, default=512)
    parser.add_argument('--test-size', type=int, default=200)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    use_mps = not args.no_mps and torch.backends.mps.is_available()

    torch.manual_seed(args.seed)

    if use_cuda:
        device = torch.device("cuda")
    elif use_mps:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")

    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': args.test_batch_size}
    if use_cuda:
        cuda_kwargs = {'num_workers': 1,
                       'pin_memory': True}
        train_kwargs.update(cuda_kwargs)
        test_kwargs.update(cuda_kwargs)

    train_images, train_labels = synthetic_digits(args.train_size, seed=args.seed)
    test_images, test_labels = synthetic_digits(args.test_size, seed=args.seed + 1)
    dataset1 = TensorDataset(torch.from_numpy(train_images), torch.from_numpy(train_labels))
    dataset2 = TensorDataset(torch.from_numpy(test_images), torch.from_numpy(test_labels))
    g = torch.Generator()
    g.manual_seed(args.seed)
    train_loader = DataLoader(dataset1, shuffle=True, generator=g, **train_kwargs)
    test_loader = DataLoader(dataset2, **test_kwargs)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    history = []
    start_epoch = 1
    if args.resume:
        checkpoint = torch.load(args.resume, map_location=device, weights_only=True)
        model.load_state_dict(checkpoint['model_state_dict'])
        optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
        scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
        g.set_state(checkpoint['generator_state'])
        torch.set_rng_state(checkpoint['rng_state'])
        start_epoch = checkpoint['epoch'] + 1
        history = [tuple(row) for row in checkpoint['history'].tolist()]
    for epoch in range(start_epoch, args.epochs + 1):
        losses = train(args, model, device, train_loader, optimizer, epoch)
        test_loss, correct = test(model, device, test_loader)
        history.append((sum(losses) / len(losses), test_loss, correct))
        scheduler.step()
        if args.checkpoint:
            torch.save({
                'epoch': epoch,
                'model_state_dict': model.state_dict(),
                'optimizer_state_dict': optimizer.state_dict(),
                'scheduler_state_dict': scheduler.state_dict(),
                'generator_state': g.get_state(),
                'rng_state': torch.get_rng_state(),
                'history': torch.tensor(history, dtype=torch.float64),
            }, args.checkpoint)

    if args.save_model:
        torch.save(model.state_dict(), args.save_model)
        reloaded = Net().to(device)
        reloaded.load_state_dict(torch.load(args.save_model, weights_only=True))
        reloaded.eval()
        test(reloaded, device, test_loader)
    return model, history


if __name__ == '__main__':
    main()
