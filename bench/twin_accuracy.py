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
and seconds per epoch (torch.set_num_threads(2): this machine has 2 cores).

Needs PyTorch; minitorch itself never imports it.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import minitorch as mt  # noqa: E402
from minitorch.examples import cnn, mlp, training  # noqa: E402
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
    parser.add_argument("--dataset", choices=training.DATASETS, default="embedded")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    build_minitorch, build_torch, recipe = EXAMPLES[args.example]
    epochs = args.epochs or (recipe.epochs_embedded if args.dataset == "embedded" else recipe.epochs_full)
    batch_size = args.batch_size or recipe.batch_size
    lr = args.lr or recipe.max_lr
    torch.set_num_threads(args.threads)

    train_x, train_y, test_x, test_y = training.load_arrays(args.dataset, args.data_dir)
    train_x, train_y = train_x[: args.limit], train_y[: args.limit]
    train_x, test_x, mean, std = training.standardise(train_x, test_x)
    # Same seeding as training.run: the initial weights and the shuffling order match the example's.
    mt.manual_seed(args.seed)
    order_loader = DataLoader(TensorDataset(np.arange(len(train_x))), batch_size=batch_size, shuffle=True,
                              generator=np.random.default_rng(args.seed))
    model = build_torch()
    copy_initial_weights(build_minitorch(), model)

    train_x, train_y = torch.from_numpy(train_x), torch.from_numpy(train_y)
    test_x, test_y = torch.from_numpy(test_x), torch.from_numpy(test_y)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, epochs=epochs,
                                                    steps_per_epoch=len(order_loader))
    print(f"PyTorch {torch.__version__} twin of {args.example}: {args.dataset}, {len(train_x)} train / "
          f"{len(test_x)} test, mean {mean:.4f} std {std:.4f}, Adam + OneCycleLR(max_lr={lr:g}), batch {batch_size}, "
          f"{epochs} epochs, seed {args.seed}, {torch.get_num_threads()} threads")
    accuracies, times = [], []
    for epoch in range(1, epochs + 1):
        start = time.perf_counter()
        model.train()
        total_loss = 0.0
        for (indices,) in order_loader:
            index = torch.from_numpy(indices.numpy())
            logits = model(train_x[index])
            loss = loss_fn(logits, train_y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            total_loss += loss.item() * len(index)
        accuracies.append(evaluate(model, test_x, test_y))
        times.append(time.perf_counter() - start)
        print(f"epoch {epoch:>2}/{epochs}  train loss {total_loss / len(train_x):.4f}  "
              f"test acc {accuracies[-1]:.4f}  ({times[-1]:.1f} s)", flush=True)
    print(f"twin {args.example} {args.dataset}: final test accuracy {accuracies[-1]:.4f} "
          f"(best {max(accuracies):.4f}), median {np.median(times):.1f} s/epoch")


if __name__ == "__main__":
    main()
