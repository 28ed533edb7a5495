"""Train a small convolutional network with BatchNorm on Fashion-MNIST.

    python -m minitorch.examples.cnn
    python -m minitorch.examples.cnn --resume cnn.safetensors --epochs 8

The options are mlp.py's: the embedded subset by default, the full data
set with --dataset fashion-mnist, --plot, --save and --resume; the second
line extends a 5-epoch run saved with --save cnn.safetensors to 8 epochs.

Two conv-BatchNorm-ReLU-maxpool blocks (28x28 -> 14x14 -> 7x7), then a
two-layer classifier, written as in PyTorch with its optimizer and schedule
(the loop, the plot and the command line: training.py).
"""
from minitorch import nn

from .training import Recipe, run

# Adam with a OneCycle schedule: >= 0.92 test accuracy on the full Fashion-MNIST in 5 epochs.
RECIPE = Recipe(batch_size=64, max_lr=2e-3, epochs_embedded=5, epochs_full=5)


class CNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


def main(argv=None):
    return run("CNN conv32-conv64-fc128", CNN, RECIPE, argv, prog="python -m minitorch.examples.cnn", description=__doc__)


if __name__ == "__main__":
    main()
