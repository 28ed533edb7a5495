"""Module system: registration, iteration order, state_dict/load_state_dict, modes, dtype, repr, containers."""
from collections import OrderedDict

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
        self.head = nn.Linear(8, 3)
        self.scale = nn.Parameter(mt.ones(1))
        self.register_buffer("step", mt.zeros(1))
        self.register_buffer("cache", mt.zeros(2), persistent=False)

    def forward(self, x):
        return self.head(self.features(x)) * self.scale


# ----- Parameter -----

def test_parameter_is_a_leaf_tensor_that_requires_grad():
    p = nn.Parameter(mt.tensor([1.0, 2.0]))
    assert isinstance(p, mt.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor([1., 2.]")
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 4.0])


def test_parameter_without_grad_and_shared_memory():
    data = mt.zeros(3)
    p = nn.Parameter(data, requires_grad=False)
    assert not p.requires_grad
    with mt.no_grad():
        data.fill_(5.0)
    assert p.tolist() == [5.0, 5.0, 5.0]


def test_gradient_tape_watches_parameters_automatically():
    layer = nn.Linear(3, 2)
    x = mt.randn(4, 3)
    with mt.GradientTape() as tape:
        loss = layer(x).sum()
    grads = tape.gradient(loss, [layer.weight, layer.bias])
    np.testing.assert_allclose(grads[0].numpy(), np.tile(x.numpy().sum(0), (2, 1)), rtol=1e-5)
    np.testing.assert_allclose(grads[1].numpy(), [4.0, 4.0])


# ----- registration and iteration -----

def test_attribute_assignment_registers_in_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale", "features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias", "head.weight", "head.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == [
        "step", "cache", "features.1.running_mean", "features.1.running_var", "features.1.num_batches_tracked",
    ]
    assert [n for n, _ in net.named_children()] == ["features", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "features", "features.0", "features.1", "features.2", "head"]
    assert len(list(net.parameters())) == 7 and len(list(net.parameters(recurse=False))) == 1
    assert net.head is net._modules["head"] and net.scale is net._parameters["scale"]


def test_shared_module_and_parameter_are_listed_once():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, shared)
    assert len(list(model.parameters())) == 2
    assert [n for n, _ in model.named_modules()] == ["", "0"]


def test_reassignment_and_delattr():
    net = Net()
    net.head = None
    assert net._modules["head"] is None and list(net.state_dict()).count("head.weight") == 0
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'head'"):
        net.head = 3
    with pytest.raises(TypeError, match="parameter 'scale'"):
        net.scale = mt.ones(1)
    net.step = mt.ones(1) * 7  # a plain tensor replaces a buffer's value
    assert net.step.item() == 7 and "step" in net._buffers
    del net.scale
    assert "scale" not in dict(net.named_parameters())
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'scale'"):
        net.scale


def test_register_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match="be empty or contain"):
        m.register_buffer("a.b", mt.zeros(1))
    with pytest.raises(TypeError, match="minitorch.nn.Parameter or None required"):
        m.register_parameter("w", mt.zeros(1))
    m.plain = 3
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", mt.zeros(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(mt.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_forward_must_be_defined():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(mt.zeros(1))


# ----- state_dict -----

def test_state_dict_keys_shapes_and_order_match_pytorch():
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(16, 10, bias=False),
        nn.LayerNorm(10), nn.Embedding(5, 2),
    )
    # What torch.nn gives for the same model (PyTorch's _save_to_state_dict order).
    expected = [
        ("0.weight", (4, 1, 3, 3)), ("0.bias", (4,)),
        ("1.weight", (4,)), ("1.bias", (4,)), ("1.running_mean", (4,)), ("1.running_var", (4,)),
        ("1.num_batches_tracked", ()),
        ("4.weight", (10, 16)), ("5.weight", (10,)), ("5.bias", (10,)), ("6.weight", (5, 2)),
    ]
    state = model.state_dict()
    assert isinstance(state, OrderedDict)
    assert [(k, tuple(v.shape)) for k, v in state.items()] == expected
    assert state["1.num_batches_tracked"].dtype == mt.int64
    assert not any(v.requires_grad for v in state.values())


def test_state_dict_skips_non_persistent_and_none_buffers_and_shares_memory():
    net = Net()
    state = net.state_dict()
    assert "cache" not in state and "step" in state
    assert "running_mean" not in nn.BatchNorm1d(3, track_running_stats=False).state_dict()
    with mt.no_grad():
        net.head.bias.fill_(3.0)
    assert state["head.bias"].tolist() == [3.0, 3.0, 3.0]
    assert net.state_dict(keep_vars=True)["head.bias"] is net.head.bias


def test_load_state_dict_copies_in_place():
    source, target = Net(), Net()
    weight_object = target.head.weight
    result = target.load_state_dict(source.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target.head.weight is weight_object
    for (k, a), (_, b) in zip(source.state_dict().items(), target.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)


def test_load_state_dict_reports_missing_and_unexpected_keys():
    net = Net()
    state = net.state_dict()
    del state["head.bias"]
    state["head.extra"] = mt.zeros(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(state)
    message = str(info.value)
    assert message.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "head.bias".' in message
    assert 'Unexpected key(s) in state_dict: "head.extra".' in message
    result = net.load_state_dict(state, strict=False)
    assert result.missing_keys == ["head.bias"] and result.unexpected_keys == ["head.extra"]


def test_load_state_dict_shape_mismatch_raises_even_when_not_strict():
    net = Net()
    state = net.state_dict()
    state["head.weight"] = mt.zeros(2, 8)
    for strict in (True, False):
        with pytest.raises(RuntimeError, match=r"size mismatch for head.weight: copying a param with shape "
                                               r"minitorch.Size\(\[2, 8\]\) from checkpoint, the shape in current model is "
                                               r"minitorch.Size\(\[3, 8\]\)"):
            net.load_state_dict(state, strict=strict)


# ----- modes, gradients, dtype -----

def test_train_eval_propagate():
    net = Net()
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_zero_grad_and_requires_grad():
    net = Net()
    net(mt.randn(5, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_double_converts_in_place_and_keeps_integer_buffers():
    net = Net()
    weight = net.head.weight
    net.double()
    assert net.head.weight is weight and weight.dtype == mt.float64
    assert net.features[1].running_mean.dtype == mt.float64
    assert net.features[1].num_batches_tracked.dtype == mt.int64
    assert net.to(mt.float32) is net and weight.dtype == mt.float32
    with pytest.raises(TypeError, match="floating point"):
        net.to(mt.int64)


def test_apply_visits_children_first():
    visited = []
    net = Net()
    net.apply(lambda m: visited.append(type(m).__name__))
    assert visited == ["Linear", "BatchNorm1d", "ReLU", "Sequential", "Linear", "Net"]


def test_repr_is_pytorch_like():
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Sequential(nn.Dropout(0.2)))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=784, out_features=256, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Dropout(p=0.2, inplace=False)\n"
        "  )\n"
        ")"
    )



def test_module_list_repr_folds_runs_of_equal_children_as_pytorch():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 3), nn.ReLU(),
                            nn.Sequential(nn.Tanh()), nn.Sequential(nn.Tanh()), nn.ReLU()])
    assert repr(layers) == (
        "ModuleList(\n"
        "  (0-1): 2 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (2): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (3): ReLU()\n"
        "  (4-5): 2 x Sequential(\n"
        "    (0): Tanh()\n"
        "  )\n"
        "  (6): ReLU()\n"
        ")"
    )
    assert repr(nn.ModuleList()) == "ModuleList()"
    # only ModuleList folds: Sequential prints every child
    assert repr(nn.Sequential(nn.ReLU(), nn.ReLU())) == "Sequential(\n  (0): ReLU()\n  (1): ReLU()\n)"


# ----- containers -----

def test_sequential_indexing_and_ordered_dict():
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c and list(seq) == [a, b, c]
    assert list(seq[1:]) == [b, c] and isinstance(seq[1:], nn.Sequential)
    with pytest.raises(IndexError):
        seq[3]
    named = nn.Sequential(OrderedDict([("fc", a), ("act", b)]))
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"]
    named.append(c)
    assert list(named.state_dict())[-2:] == ["2.weight", "2.bias"]
    x = mt.randn(4, 2)
    np.testing.assert_allclose(seq(x).detach().numpy(), c(b(a(x))).detach().numpy())
    del seq[0]
    assert [n for n, _ in seq.named_children()] == ["0", "1"] and seq[0] is b


def test_module_list_and_dict_register_children():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 1))
    assert len(layers) == 4 and len(list(layers.parameters())) == 8
    assert list(layers.state_dict())[:2] == ["0.weight", "0.bias"]
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    heads = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.Identity()})
    assert list(heads.keys()) == ["a", "b"] and list(heads.state_dict()) == ["a.weight", "a.bias"]
    assert "a" in heads and isinstance(heads["b"], nn.Identity)
