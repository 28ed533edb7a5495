"""Train a multi-layer perceptron (784-256-128-10, ReLU) on Fashion-MNIST.

    python -m minitorch.examples.mlp
    python -m minitorch.examples.mlp --dataset fashion-mnist
    python -m minitorch.examples.mlp --plot mlp.png --save mlp.safetensors
    python -m minitorch.examples.mlp --resume mlp.safetensors --epochs 15
    python -m minitorch.examples.mlp --help

The first trains on the Fashion-MNIST subset shipped with minitorch (no
files, no network), the second on the full 60,000 / 10,000 images, the
fourth extends the 10-epoch run saved by the third to 15 epochs.

The model, the optimizer and the schedule are written as in PyTorch; the
loop, the plot and the command line are in training.py (checkpoints in
checkpoint.py, the progress display in progress.py).
"""
import minitorch.nn.functional as F
from minitorch import nn

from .training import Recipe, run

# Adam with a OneCycle schedule: >= 0.89 test accuracy on the full Fashion-MNIST in 10 epochs.
RECIPE = Recipe(batch_size=128, max_lr=2e-3, epochs_embedded=10, epochs_full=10)


class MLP(nn.Module):
    def __init__(self, in_features=28 * 28, hidden=(256, 128), num_classes=10):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(in_features, hidden[0])
        self.fc2 = nn.Linear(hidden[0], hidden[1])
        self.fc3 = nn.Linear(hidden[1], num_classes)

    def forward(self, x):
        x = self.flatten(x)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def main(argv=None):
    return run("MLP 784-256-128-10", MLP, RECIPE, argv, prog="python -m minitorch.examples.mlp", description=__doc__)


if __name__ == "__main__":
    main()
