"""PyTorch twins of the two training examples, trained with the same recipe on the same arrays.

    python bench/twin_accuracy.py mlp                          # embedded set, the example's default epochs
    python bench/twin_accuracy.py cnn --dataset fashion-mnist  # full Fashion-MNIST, 5 epochs
    python bench/twin_accuracy.py mlp --dataset fashion-mnist --lr 3e-3 --epochs 10

The twin is the same architecture written in torch.nn. It starts from the
minitorch model's initial weights (the state_dict is copied over, so both
start from the same point with the same --seed), sees the same standardised
arrays in the same shuffled order (the minitorch DataLoader's index order is
replayed), and uses the same Adam + OneCycleLR recipe and batch size. What is
left to differ is floating-point rounding. Prints the per-epoch test accuracy
and the seconds of each epoch's training pass alone (the test pass is timed
apart), with --threads for every thread pool (default 2: this machine has 2
cores). bench/bench_cnn_epoch.py times these epochs against the example's.

Needs PyTorch; minitorch itself never imports it.
"""
import harness  # first: it pins the thread pools before numpy and torch load  # noqa: I001

import argparse
import os
import sys
import time
from pathlib import Path

THREADS = int(harness.argument_value(sys.argv, "--threads") or 2)
os.environ.update({name: str(THREADS) for name in harness.THREAD_VARIABLES})

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import minitorch as mt  # noqa: E402
from minitorch.examples import cnn, mlp, training  # noqa: E402
from minitorch.examples.cli import DATASETS  # noqa: E402
from minitorch.utils.data import DataLoader, TensorDataset  # noqa: E402


class TorchMLP(nn.Module):
    """minitorch.examples.mlp.MLP in torch.nn, with the same state_dict keys."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1, self.fc2, self.fc3 = nn.Linear(784, 256), nn.Linear(256, 128), nn.Linear(128, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(self.flatten(x))))))


class TorchCNN(nn.Module):
    """minitorch.examples.cnn.CNN in torch.nn, with the same state_dict keys."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


EXAMPLES = {"mlp": (mlp.MLP, TorchMLP, mlp.RECIPE), "cnn": (cnn.CNN, TorchCNN, cnn.RECIPE)}


def copy_initial_weights(minitorch_model, torch_model):
    """The minitorch model's state_dict into the twin's: same keys, same shapes (strict loading checks both)."""
    state = {key: torch.from_numpy(np.array(value)) for key, value in minitorch_model.state_dict().items()}
    torch_model.load_state_dict(state, strict=True)


class Twin:
    """The twin of an example, ready to train: same initial weights, same shuffled order, same recipe."""

    def __init__(self, example, dataset="embedded", data_dir=None, epochs=None, batch_size=None, lr=None, seed=0,
                 limit=None):
        build_minitorch, build_torch, recipe = EXAMPLES[example]
        self.epochs = epochs or (recipe.epochs_embedded if dataset == "embedded" else recipe.epochs_full)
        self.batch_size = batch_size or recipe.batch_size
        self.lr = lr or recipe.max_lr
        train_x, train_y, test_x, test_y = training.load_arrays(dataset, data_dir)
        train_x, train_y = train_x[:limit], train_y[:limit]
        train_x, test_x, self.mean, self.std = training.standardise(train_x, test_x)
        # Same seeding as training.run: the initial weights and the shuffling order match the example's.
        mt.manual_seed(seed)
        self.order_loader = DataLoader(TensorDataset(np.arange(len(train_x))), batch_size=self.batch_size,
                                       shuffle=True, generator=np.random.default_rng(seed))
        self.model = build_torch()
        copy_initial_weights(build_minitorch(), self.model)
        self.train_x, self.train_y = torch.from_numpy(train_x), torch.from_numpy(train_y)
        self.test_x, self.test_y = torch.from_numpy(test_x), torch.from_numpy(test_y)
        self.loss_fn = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.lr)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, max_lr=self.lr, epochs=self.epochs,
                                                             steps_per_epoch=len(self.order_loader))

    def train_epoch(self):
        """One training pass, as the example's train_one_epoch: returns (mean loss, accuracy)."""
        self.model.train()
        total_loss, correct = 0.0, 0
        for (indices,) in self.order_loader:
            index = torch.from_numpy(indices.numpy())
            labels = self.train_y[index]
            logits = self.model(self.train_x[index])
            loss = self.loss_fn(logits, labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            total_loss += loss.item() * len(index)
            correct += int((logits.argmax(dim=1) == labels).sum().item())
        return total_loss / len(self.train_x), correct / len(self.train_x)

    def test_accuracy(self):
        return evaluate(self.model, self.test_x, self.test_y)


def evaluate(model, images, labels, batch=1000):
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(images), batch):
            correct += (model(images[start:start + batch]).argmax(1) == labels[start:start + batch]).sum().item()
    return correct / len(images)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("example", choices=sorted(EXAMPLES))
    parser.add_argument("--dataset", choices=DATASETS, default="embedded")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    twin = Twin(args.example, args.dataset, args.data_dir, args.epochs, args.batch_size, args.lr, args.seed, args.limit)
    print(f"PyTorch {torch.__version__} twin of {args.example}: {args.dataset}, {len(twin.train_x)} train / "
          f"{len(twin.test_x)} test, mean {twin.mean:.4f} std {twin.std:.4f}, Adam + OneCycleLR(max_lr={twin.lr:g}), "
          f"batch {twin.batch_size}, {twin.epochs} epochs, seed {args.seed}, {torch.get_num_threads()} threads")
    accuracies, times = [], []
    for epoch in range(1, twin.epochs + 1):
        start = time.perf_counter()
        train_loss, train_acc = twin.train_epoch()
        times.append(time.perf_counter() - start)
        start = time.perf_counter()
        accuracies.append(twin.test_accuracy())
        print(f"epoch {epoch:>2}/{twin.epochs}  train loss {train_loss:.4f}  train acc {train_acc:.4f}  "
              f"test acc {accuracies[-1]:.4f}  (training {times[-1]:.1f} s, test {time.perf_counter() - start:.1f} s)",
              flush=True)
    print(f"twin {args.example} {args.dataset}: final test accuracy {accuracies[-1]:.4f} "
          f"(best {max(accuracies):.4f}), median {np.median(times):.1f} s/epoch of training")

if __name__ == "__main__":
    main()
