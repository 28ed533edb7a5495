"""Recurrent layers, as torch.nn: RNN, LSTM, GRU and their one-step cells.

The parameters have PyTorch's names, shapes, order and initialisation
(weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, then _reverse, then
the next layer; U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))), so a
state_dict loads from PyTorch as it is. A step is written as ATen's cells
(aten/src/ATen/native/RNN.cpp) compute it:

    RNN   h' = tanh((h W_hh^T + b_hh) + (x W_ih^T + b_ih))            (or relu)
    LSTM  i, f, g, o = chunks of (h W_hh^T + b_hh) + (x W_ih^T + b_ih)
          c' = sigmoid(f) c + sigmoid(i) tanh(g),  h' = sigmoid(o) tanh(c')   [h' W_hr^T with proj_size]
    GRU   r, z, n: r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), n = tanh(x_n + r h_n)
          h' = (h - n) z + n

with existing ops only, so gradients of any order come for free. The
input projections x W_ih^T + b_ih of all time steps are one matmul before
the loop, cut into steps by one Unpack op; the loop does the h W_hh^T of
each step. Variable lengths
(PackedSequence) keep each sequence's state fixed after its end, and run the
reverse direction over each sequence's own steps, backwards.
"""
import math
import numbers
import warnings

import numpy as np

from .. import creation
from ..creation import from_numpy
from ..ops import activation_ops, array_ops, comparison_ops, product_ops, trigonometric_ops
from ..ops.sequence_ops import unpack
from . import functional as F, init
from .module import Module, options_repr
from .parameter import Parameter
from .utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _chunks(gates, count):
    """The gates (..., count * H) as `count` tensors (..., H), by one Unpack."""
    return unpack(gates.reshape(*gates.shape[:-1], count, gates.shape[-1] // count), axis=-2)


def _rnn_step(mode, projected_input, h, c, w_hh, b_hh, w_hr):
    """One step of a cell from the input's projection x W_ih^T + b_ih: (h', c') (c' None but for LSTM)."""
    hidden = product_ops.matmul(h, w_hh, transpose_b=True)
    if b_hh is not None:
        hidden = hidden + b_hh
    if mode == "GRU":
        x_r, x_z, x_n = _chunks(projected_input, 3)
        h_r, h_z, h_n = _chunks(hidden, 3)
        reset = activation_ops.sigmoid(h_r + x_r)
        update = activation_ops.sigmoid(h_z + x_z)
        new = trigonometric_ops.tanh(x_n + h_n * reset)
        return (h - new) * update + new, None
    gates = hidden + projected_input
    if mode == "RNN_TANH":
        return trigonometric_ops.tanh(gates), None
    if mode == "RNN_RELU":
        return activation_ops.relu(gates), None
    in_gate, forget_gate, cell_gate, out_gate = _chunks(gates, 4)
    c = activation_ops.sigmoid(forget_gate) * c + activation_ops.sigmoid(in_gate) * trigonometric_ops.tanh(cell_gate)
    h = activation_ops.sigmoid(out_gate) * trigonometric_ops.tanh(c)
    if w_hr is not None:
        h = product_ops.matmul(h, w_hr, transpose_b=True)
    return h, c


def _project(x, w_ih, b_ih):
    projected = product_ops.matmul(x, w_ih, transpose_b=True)
    return projected if b_ih is None else projected + b_ih


def _time_reversal(steps, lengths, batch):
    """Index (T, N) reversing each sequence within its own length (the padding stays in place)."""
    t = np.arange(steps)[:, None]
    if lengths is None:
        return np.broadcast_to(steps - 1 - t, (steps, batch))
    return np.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)


def _run_direction(mode, x, h, c, weights, lengths, reverse):
    """One layer in one direction over x (T, N, I): outputs (T, N, H_out), last h, last c."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    steps, batch = x.shape[0], x.shape[1]
    if reverse:
        order = from_numpy(_time_reversal(steps, lengths, batch))
        columns = from_numpy(np.broadcast_to(np.arange(batch), (steps, batch)))
        x = x[order, columns]
    outputs = []
    for t, projected in enumerate(unpack(_project(x, w_ih, b_ih))):  # Unpack: one Pack in the reverse pass
        new_h, new_c = _rnn_step(mode, projected, h, c, w_hh, b_hh, w_hr)
        if lengths is None:
            h, c = new_h, new_c
            outputs.append(h)
            continue
        running = from_numpy((t < lengths)[:, None])
        h = comparison_ops.where(running, new_h, h)
        if c is not None:
            c = comparison_ops.where(running, new_c, c)
        outputs.append(comparison_ops.where(running, new_h, 0.0))
    output = array_ops.stack(outputs)
    if reverse:
        output = output[order, columns]
    return output, h, c


class RNNBase(Module):
    """What RNN, LSTM and GRU share: parameters, checks, layers and directions, packed sequences."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                          f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool), ("input_size", input_size, int),
                                  ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(self._directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * self._directions
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, real_hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{'_reverse' if direction else ''}"
                    setattr(self, name, Parameter(creation.empty(*shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _directions(self):
        return 2 if self.bidirectional else 1

    def reset_parameters(self):
        """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def flatten_parameters(self):
        """Nothing to do: PyTorch uses it to pack the weights for cuDNN (minitorch runs on the CPU)."""

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction (PyTorch's all_weights)."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self, layer, direction):
        suffix = f"_l{layer}{'_reverse' if direction else ''}"
        return tuple(getattr(self, kind + suffix, None) for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def extra_repr(self):
        return options_repr(f"{self.input_size}, {self.hidden_size}", proj_size=(self.proj_size, 0),
                            num_layers=(self.num_layers, 1), bias=(self.bias, True), batch_first=(self.batch_first, False),
                            dropout=(self.dropout, 0), bidirectional=(self.bidirectional, False))

    # ----- forward -----

    def _state_sizes(self):
        """(size of h, size of c): proj_size for h with projections."""
        return (self.proj_size or self.hidden_size), self.hidden_size

    @staticmethod
    def _check_state(state, expected, which):
        if tuple(state.shape) != expected:
            raise RuntimeError(f"Expected hidden{which} size {expected}, got {list(state.shape)}")

    def forward(self, input, hx=None):
        """(output, h_n), or (output, (h_n, c_n)) for LSTM; input (L, N, H_in), (N, L, H_in) with batch_first,
        (L, H_in) unbatched, or a PackedSequence (then output is one too)."""
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        lengths = sorted_indices = None
        if isinstance(input, PackedSequence):
            # Run in the packed (longest first) order; hx and h_n are in the caller's batch order, as PyTorch.
            x, sorted_lengths = pad_packed_sequence(PackedSequence(input.data, input.batch_sizes))
            lengths, batched, sorted_indices = np.asarray(sorted_lengths), True, input.sorted_indices
            if hx is not None and sorted_indices is not None:
                hx = tuple(state[:, sorted_indices] for state in hx) if self.mode == "LSTM" else hx[:, sorted_indices]
        else:
            if input.ndim not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
            batched = input.ndim == 3
            x = input.unsqueeze(1) if not batched else input.transpose(0, 1) if self.batch_first else input
        if x.dtype != self.weight_ih_l0.dtype:
            raise ValueError(f"RNN input dtype ({x.dtype}) does not match weight dtype ({self.weight_ih_l0.dtype}). "
                             f"Convert input: input.to({self.weight_ih_l0.dtype}), or convert model: model.to({x.dtype})")
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {x.shape[-1]}")
        if x.shape[0] == 0:
            raise ValueError(f"{name}: the input has no time steps (shape {tuple(input.shape)})")
        h0, c0 = self._initial_states(hx, x, batched)
        output, h_n, c_n = self._layers(x, h0, c0, lengths)
        if lengths is not None:
            repacked = pack_padded_sequence(output, lengths)
            output = PackedSequence(repacked.data, repacked.batch_sizes, input.sorted_indices, input.unsorted_indices)
            if input.unsorted_indices is not None:
                h_n = h_n[:, input.unsorted_indices]
                c_n = None if c_n is None else c_n[:, input.unsorted_indices]
        elif not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = None if c_n is None else c_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, (h_n if c_n is None else (h_n, c_n))

    def _initial_states(self, hx, x, batched):
        """h0 (and c0 for LSTM), (layers * directions, N, size), checked as PyTorch checks them."""
        batch = x.shape[1]
        h_size, c_size = self._state_sizes()
        stacked = self.num_layers * self._directions
        lstm = self.mode == "LSTM"
        if hx is None:
            zeros = lambda size: creation.zeros(stacked, batch, size, dtype=x.dtype)  # noqa: E731
            return zeros(h_size), (zeros(c_size) if lstm else None)
        states = list(hx) if lstm else [hx]
        for k, state in enumerate(states):
            if batched and state.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, {'hx and cx' if lstm else 'hx'} should also be 3-D but got "
                                   f"{state.ndim}-D tensor")
            if not batched and state.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, {'hx and cx' if lstm else 'hx'} should also be 2-D but got "
                                   f"{state.ndim}-D tensor")
            states[k] = state if batched else state.unsqueeze(1)
        self._check_state(states[0], (stacked, batch, h_size), "[0]" if lstm else "")
        if not lstm:
            return states[0], None
        self._check_state(states[1], (stacked, batch, c_size), "[1]")
        return states[0], states[1]

    def _layers(self, x, h0, c0, lengths):
        last_h, last_c = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions):
                k = layer * self._directions + direction
                output, h, c = _run_direction(self.mode, x, h0[k], None if c0 is None else c0[k],
                                              self._weights(layer, direction), lengths, reverse=direction == 1)
                outputs.append(output)
                last_h.append(h)
                last_c.append(c)
            x = outputs[0] if len(outputs) == 1 else array_ops.cat(outputs, dim=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        c_n = None if c0 is None else array_ops.stack(last_c)
        return x, array_ops.stack(last_h), c_n


class RNN(RNNBase):
    """A multi-layer Elman RNN, h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).

    >>> rnn = mt.nn.RNN(10, 20, num_layers=2)
    >>> output, h_n = rnn(mt.randn(5, 3, 10))
    >>> tuple(output.shape), tuple(h_n.shape)
    ((5, 3, 20), (2, 3, 20))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """A multi-layer long short-term memory network; forward returns (output, (h_n, c_n)).

    >>> lstm = mt.nn.LSTM(10, 20, batch_first=True, bidirectional=True, proj_size=5)
    >>> output, (h_n, c_n) = lstm(mt.randn(3, 7, 10))
    >>> tuple(output.shape), tuple(h_n.shape), tuple(c_n.shape)
    ((3, 7, 10), (2, 3, 5), (2, 3, 20))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit network.

    >>> gru = mt.nn.GRU(4, 6, num_layers=2, dropout=0.1)
    >>> output, h_n = gru(mt.randn(5, 4))        # unbatched (L, H_in)
    >>> tuple(output.shape), tuple(h_n.shape)
    ((5, 6), (2, 6))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """What RNNCell, LSTMCell and GRUCell share: weight_ih, weight_hh, bias_ih, bias_hh, PyTorch's initialisation."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(creation.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(creation.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Every parameter ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        return options_repr(f"{self.input_size}, {self.hidden_size}", bias=(self.bias, True),
                            nonlinearity=(getattr(self, "nonlinearity", "tanh"), "tanh"))

    def _batched(self, input, states):
        """input as (N, H_in) and the states as (N, H) (zeros when None); whether the input had a batch."""
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        for k, state in enumerate(states):
            if state is not None and state.ndim not in (1, 2):
                which = f"hx[{k}]" if len(states) > 1 else "hidden"
                raise ValueError(f"{name}: Expected {which} to be 1D or 2D, got {state.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        zeros = creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
        states = [zeros if s is None else (s if batched else s.unsqueeze(0)) for s in states]
        return input, states, batched

    def _step(self, mode, input, h, c=None):
        return _rnn_step(mode, _project(input, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu).

    >>> cell = mt.nn.RNNCell(10, 20)
    >>> tuple(cell(mt.randn(3, 10)).shape)
    (3, 20)
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched(input, [hx])
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h, _ = self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, h)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: returns (h', c').

    >>> cell = mt.nn.LSTMCell(10, 20)
    >>> h, c = cell(mt.randn(3, 10))
    >>> tuple(h.shape), tuple(c.shape)
    ((3, 20), (3, 20))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h, c), batched = self._batched(input, [None, None] if hx is None else list(hx))
        h, c = self._step("LSTM", input, h, c)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a GRU.

    >>> cell = mt.nn.GRUCell(10, 20)
    >>> tuple(cell(mt.randn(10)).shape)
    (20,)
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched(input, [hx])
        h, _ = self._step("GRU", input, h)
        return h if batched else h.squeeze(0)
