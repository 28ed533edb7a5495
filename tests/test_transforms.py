"""minitorch.datasets.transforms against torchvision's math (written with torch ops: torchvision's
CPU wheel does not match this torch build, and the project does not depend on it)."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.datasets import MNIST, write_idx
from minitorch.datasets import transforms as T

torch = pytest.importorskip("torch")


def torchvision_to_tensor(pic):
    """torchvision.transforms.functional.to_tensor for a numpy array (its source, line for line)."""
    if pic.ndim == 2:
        pic = pic[:, :, None]
    img = torch.from_numpy(pic.transpose((2, 0, 1))).contiguous()
    return img.to(dtype=torch.get_default_dtype()).div(255) if img.dtype == torch.uint8 else img


def torchvision_normalize(tensor, mean, std):
    """torchvision.transforms.functional.normalize (tensor path): sub_ then div_ by (C, 1, 1) tensors."""
    tensor = tensor.clone()
    mean = torch.as_tensor(mean, dtype=tensor.dtype).view(-1, 1, 1)
    std = torch.as_tensor(std, dtype=tensor.dtype).view(-1, 1, 1)
    return tensor.sub_(mean).div_(std)


IMAGES = [np.random.default_rng(0).integers(0, 256, (28, 28), dtype=np.uint8),
          np.random.default_rng(1).integers(0, 256, (5, 7, 3), dtype=np.uint8)]


@pytest.mark.parametrize("image", IMAGES, ids=["grey", "rgb"])
def test_to_tensor_then_normalize_equals_torchvision_bit_for_bit(image):
    channels = 1 if image.ndim == 2 else image.shape[2]
    mean, std = (0.1307, 0.2, 0.3)[:channels], (0.3081, 0.25, 0.5)[:channels]
    mine = T.Compose([T.ToTensor(), T.Normalize(mean, std)])(image)
    theirs = torchvision_normalize(torchvision_to_tensor(image), mean, std)
    assert mine.dtype == mt.float32 and mine.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    tensor = T.ToTensor()(image)
    np.testing.assert_array_equal(tensor.numpy(), torchvision_to_tensor(image).numpy())
    assert float(tensor.min()) >= 0 and float(tensor.max()) <= 1


def test_float_arrays_pass_unscaled_and_other_inputs_are_refused():
    image = np.full((2, 3), 7.5)
    out = T.ToTensor()(image)
    assert out.dtype == mt.float64 and out.shape == (1, 2, 3) and out.numpy().max() == 7.5
    with pytest.raises(TypeError):
        T.ToTensor()(mt.zeros(1, 2, 2))
    with pytest.raises(ValueError):
        T.ToTensor()(np.zeros(4, np.uint8))
    with pytest.raises(TypeError):
        T.Normalize((0.5,), (0.5,))(np.zeros((1, 2, 2), np.float32))
    with pytest.raises(TypeError):
        T.Normalize((0.5,), (0.5,))(mt.zeros(1, 2, 2, dtype=mt.int64))
    with pytest.raises(ValueError, match="division by zero"):
        T.Normalize((0.5,), (0.0,))(mt.zeros(1, 2, 2))
    with pytest.raises(TypeError):
        T.Lambda(3)


def test_normalize_is_differentiable_and_in_place_when_asked():
    x = mt.ones(2, 3, 3, requires_grad=True)
    T.Normalize((0.5, 0.1), (0.25, 2.0))(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[:, 0, 0], [4.0, 0.5])
    y = mt.ones(1, 2, 2)
    assert T.Normalize((0.5,), (0.5,), inplace=True)(y) is y and y.tolist() == [[[1.0, 1.0], [1.0, 1.0]]]


def test_mnist_with_torchvision_transform_gives_torchvision_tensors(tmp_path):
    images = np.random.default_rng(2).integers(0, 256, (4, 28, 28), dtype=np.uint8)
    write_idx(tmp_path / "train-images-idx3-ubyte", images)
    write_idx(tmp_path / "train-labels-idx1-ubyte", np.array([3, 1, 4, 1], np.uint8))
    transform = T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))])
    data = MNIST(tmp_path, transform=transform, target_transform=lambda y: y * 10)
    x, y = data[2]
    np.testing.assert_array_equal(x.numpy(), torchvision_normalize(torchvision_to_tensor(images[2]),
                                                                   (0.1307,), (0.3081,)).numpy())
    assert y == 40
    batch, labels = next(iter(mt.utils.data.DataLoader(data, batch_size=4)))
    assert batch.shape == (4, 1, 28, 28) and labels.tolist() == [30, 10, 40, 10]
    assert abs(float(T.ToTensor()(MNIST(tmp_path)[0][0]).max()) - images[0].max() / 255) < 1e-7  # scaled once


@pytest.mark.parametrize("image", [IMAGES[1], mt.from_numpy(IMAGES[1].transpose(2, 0, 1).copy())],
                         ids=["array", "tensor"])
def test_random_crop_is_a_window_of_the_padded_image_and_repeats_under_a_seed(image):
    crop = T.RandomCrop((4, 6), padding=2)
    _ = mt.manual_seed(3)
    first = crop(image)
    _ = mt.manual_seed(3)
    again = crop(image)
    assert type(first) is type(image)
    first, again = np.asarray(first), np.asarray(again)
    np.testing.assert_array_equal(first, again)
    is_tensor = isinstance(image, mt.Tensor)
    padded = np.pad(np.asarray(image), [(0, 0), (2, 2), (2, 2)] if is_tensor else [(2, 2), (2, 2), (0, 0)])
    h, w = (1, 2) if is_tensor else (0, 1)
    windows = [np.take(np.take(padded, range(i, i + 4), h), range(j, j + 6), w)
               for i in range(padded.shape[h] - 3) for j in range(padded.shape[w] - 5)]
    assert any(np.array_equal(first, window) for window in windows)
    seen = {tuple(np.asarray(crop(image)).ravel()[:8]) for _ in range(30)}
    assert len(seen) > 1
    assert T.RandomCrop(10, pad_if_needed=True)(IMAGES[1]).shape == (10, 10, 3)
    with pytest.raises(ValueError):
        T.RandomCrop(10)(IMAGES[1])


def test_flips_and_center_crop():
    image = np.arange(12, dtype=np.uint8).reshape(3, 4)
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(image), image[:, ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(1.0)(image), image[::-1])
    assert T.RandomHorizontalFlip(0.0)(image) is image
    tensor = mt.arange(6.0).reshape(1, 2, 3)
    assert T.RandomHorizontalFlip(1.0)(tensor).tolist() == torch.arange(6.0).reshape(1, 2, 3).flip(-1).tolist()
    _ = mt.manual_seed(0)
    flips = sum(T.RandomHorizontalFlip()(image)[0, 0] == 3 for _ in range(2000))
    assert 900 < flips < 1100
    np.testing.assert_array_equal(T.CenterCrop((1, 2))(image), image[1:2, 1:3])


def test_rotation_turns_counter_clockwise_about_the_centre():
    image = np.zeros((5, 5), np.uint8)
    image[2, 4] = 200  # right of centre
    np.testing.assert_array_equal(T.RandomRotation((0, 0))(image), image)
    up = T.RandomRotation((90, 90))(image)
    assert up[0, 2] == 200 and up.sum() == 200
    assert T.RandomRotation((180, 180))(image)[2, 0] == 200
    assert T.RandomRotation((-90, -90))(image)[4, 2] == 200
    tensor = mt.from_numpy(np.stack([image, image * 0 + 1]))  # two channels turn alike; outside is fill
    turned = T.RandomRotation((90, 90), fill=0)(tensor)
    assert isinstance(turned, mt.Tensor) and turned.numpy()[0, 0, 2] == 200 and turned.numpy()[1].min() == 1
    _ = mt.manual_seed(0)
    angles = {T.RandomRotation(30)(image).tobytes() for _ in range(10)}
    assert len(angles) > 1
    with pytest.raises(ValueError):
        T.RandomRotation(10, expand=True)
