"""Train a small convolutional network with BatchNorm on Fashion-MNIST.

    python -m minitorch.examples.cnn
    python -m minitorch.examples.cnn --dataset fashion-mnist
    python -m minitorch.examples.cnn --plot cnn.png --save cnn.safetensors
    python -m minitorch.examples.cnn --resume cnn.safetensors --epochs 8
    python -m minitorch.examples.cnn --help

The first trains on the Fashion-MNIST subset shipped with minitorch (no
files, no network), the second on the full 60,000 / 10,000 images, the
fourth extends the 5-epoch run saved by the third to 8 epochs.

Two conv-BatchNorm-ReLU-maxpool blocks (28x28 -> 14x14 -> 7x7), then a
two-layer classifier. The model, the optimizer and the schedule are written
as in PyTorch; the loop, the plot and the command line are in
training.py (checkpoints in checkpoint.py, the progress display in
progress.py).
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
