"""nn for sequences against PyTorch: RNN/LSTM/GRU and cells (packed sequences too), sequence packing,
scaled dot-product and multi-head attention, the Transformer family, linear cross-entropy; values and gradients
against PyTorch with the same weights (state_dicts copied), finite differences in float64, reprs and errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import nn

from nn_twins import assert_close, compare_twins, gradchecks, probabilities, same_function, to_torch, twins

torch = pytest.importorskip("torch")
tnn, tF = torch.nn, torch.nn.functional

RNG = np.random.default_rng(1)


def _probabilities(shape):
    return probabilities(RNG, shape)


# ----- recurrent layers -----

RECURRENT = [
    (lambda m: m.RNN(3, 5), (4, 2, 3)),
    (lambda m: m.RNN(3, 5, num_layers=2, nonlinearity="relu", bias=False), (4, 2, 3)),
    (lambda m: m.RNN(3, 5, 2, "tanh", True, True, 0.0, True), (2, 4, 3)),
    (lambda m: m.LSTM(3, 5), (4, 2, 3)),
    (lambda m: m.LSTM(3, 5, num_layers=2, bidirectional=True, batch_first=True), (2, 4, 3)),
    (lambda m: m.LSTM(3, 5, proj_size=2, bidirectional=True), (4, 2, 3)),
    (lambda m: m.LSTM(3, 5, num_layers=3, proj_size=4, bias=False), (4, 2, 3)),
    (lambda m: m.GRU(3, 5), (4, 2, 3)),
    (lambda m: m.GRU(3, 5, num_layers=2, bidirectional=True, batch_first=True), (2, 4, 3)),
    (lambda m: m.GRU(3, 5, bias=False), (4, 3)),
    (lambda m: m.LSTM(3, 5, bidirectional=True), (4, 3)),
]


@pytest.mark.parametrize("make, shape", RECURRENT, ids=lambda v: repr(v(tnn)) if callable(v) else str(v))
def test_recurrent_layers_match_pytorch(make, shape):
    ours, theirs = twins(make)
    assert repr(ours) == repr(theirs)
    compare_twins(ours, theirs, RNG.standard_normal(shape))


@pytest.mark.parametrize("make, shape", [case for case in RECURRENT if len(case[1]) == 3], ids=lambda v: repr(v(tnn)) if callable(v) else str(v))
def test_recurrent_layers_with_initial_states_match_pytorch(make, shape):
    ours, theirs = twins(make)
    directions = 2 if ours.bidirectional else 1
    batch = shape[0] if ours.batch_first else shape[1]
    h0 = RNG.standard_normal((ours.num_layers * directions, batch, ours.proj_size or ours.hidden_size))
    if isinstance(ours, nn.LSTM):
        c0 = RNG.standard_normal((ours.num_layers * directions, batch, ours.hidden_size))
        compare_twins(lambda x, h, c: ours(x, (h, c)), lambda x, h, c: theirs(x, (h, c)), RNG.standard_normal(shape), h0, c0,
                      modules=(ours, theirs))
    else:
        compare_twins(ours, theirs, RNG.standard_normal(shape), h0)


def test_recurrent_dropout_between_layers_in_training_only():
    ours, theirs = twins(lambda m: m.GRU(3, 4, num_layers=3, dropout=0.5))
    x = RNG.standard_normal((5, 2, 3))
    compare_twins(ours.eval(), theirs.eval(), x)
    mt.manual_seed(0)
    a, _ = ours.train()(mt.tensor(x))
    b, _ = ours(mt.tensor(x))
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())  # random masks between layers
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.2)


@pytest.mark.parametrize("make", [lambda m: m.LSTM(3, 4, num_layers=2, bidirectional=True),
                                  lambda m: m.GRU(3, 4, bidirectional=True), lambda m: m.RNN(3, 4)],
                         ids=lambda make: repr(make(tnn)))
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_recurrent_layers_on_packed_sequences_match_pytorch(make, enforce_sorted):
    ours, theirs = twins(make)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    padded = RNG.standard_normal((5, 4, 3))
    lstm = isinstance(ours, nn.LSTM)
    directions = 2 if ours.bidirectional else 1
    h0 = RNG.standard_normal((ours.num_layers * directions, 4, 4))
    states = [h0, RNG.standard_normal(h0.shape)] if lstm else [h0]

    def run(module, rnn_utils, x, *hx):
        packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        output, h_n = module(packed, tuple(hx) if lstm else hx[0])
        assert isinstance(output, rnn_utils.PackedSequence)
        padded_output, out_lengths = rnn_utils.pad_packed_sequence(output, total_length=5)
        assert list(out_lengths.tolist()) == lengths
        return (padded_output, h_n)

    compare_twins(lambda *a: run(ours, nn.utils.rnn, *a), lambda *a: run(theirs, tnn.utils.rnn, *a), padded, *states,
                  modules=(ours, theirs))


CELLS = [lambda m: m.RNNCell(3, 4), lambda m: m.RNNCell(3, 4, bias=False, nonlinearity="relu"), lambda m: m.LSTMCell(3, 4),
         lambda m: m.GRUCell(3, 4), lambda m: m.GRUCell(3, 4, bias=False)]


@pytest.mark.parametrize("make", CELLS, ids=lambda make: repr(make(tnn)))
def test_cells_match_pytorch(make):
    ours, theirs = twins(make)
    assert repr(ours) == repr(theirs)
    compare_twins(ours, theirs, RNG.standard_normal((2, 3)))
    compare_twins(ours, theirs, RNG.standard_normal(3))
    if isinstance(ours, nn.LSTMCell):
        compare_twins(lambda x, h, c: ours(x, (h, c)), lambda x, h, c: theirs(x, (h, c)),
                      RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)), RNG.standard_normal((2, 4)),
                      modules=(ours, theirs))
    else:
        compare_twins(ours, theirs, RNG.standard_normal((2, 3)), RNG.standard_normal((2, 4)))


def test_recurrent_gradients_by_finite_differences():
    for make in (lambda: nn.LSTM(2, 3, proj_size=2, bidirectional=True), lambda: nn.GRU(2, 3, num_layers=2),
                 lambda: nn.RNN(2, 3)):
        module = make().double()
        gradchecks(lambda x: module(x)[0], RNG.standard_normal((3, 2, 2)))
    lengths = [3, 1]
    module = nn.LSTM(2, 3, bidirectional=True).double()
    gradchecks(lambda x: nn.utils.rnn.pad_packed_sequence(module(nn.utils.rnn.pack_padded_sequence(x, lengths))[0])[0],
               RNG.standard_normal((3, 2, 2)), second=False)


def test_recurrent_parameters_initialisation_and_errors():
    lstm = nn.LSTM(3, 16, num_layers=2, bidirectional=True, proj_size=4)
    assert [name for name, _ in lstm.named_parameters()] == [name for name, _ in tnn.LSTM(3, 16, 2, bidirectional=True, proj_size=4).named_parameters()]
    values = np.concatenate([p.detach().numpy().ravel() for p in lstm.parameters()])
    assert np.abs(values).max() <= 0.25 and values.std() > 0.1  # U(-1/sqrt(16), 1/sqrt(16))
    assert len(lstm.all_weights) == 4 and lstm.all_weights[1][0] is lstm.weight_ih_l0_reverse
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        nn.GRU(3, 4)(mt.zeros(2, 1, 5))
    with pytest.raises(RuntimeError, match="Expected hidden\\[0\\] size \\(1, 1, 4\\), got \\[1, 2, 4\\]"):
        nn.LSTM(3, 4)(mt.zeros(2, 1, 3), (mt.zeros(1, 2, 4), mt.zeros(1, 2, 4)))
    with pytest.raises(ValueError, match="RNN input dtype"):
        nn.RNN(3, 4)(mt.zeros(2, 1, 3, dtype=mt.float64))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D"):
        nn.GRU(3, 4)(mt.zeros(3))
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D"):
        nn.LSTMCell(3, 4)(mt.zeros(1, 1, 3))
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=1.5)


def test_recurrent_state_dict_loads_from_pytorch_and_trains():
    theirs = tnn.LSTM(4, 6, num_layers=2, batch_first=True)
    ours = nn.LSTM(4, 6, num_layers=2, batch_first=True)
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x = RNG.standard_normal((3, 5, 4)).astype(np.float32)
    out_m, _ = ours(mt.tensor(x))
    out_t, _ = theirs(torch.tensor(x))
    assert out_m.dtype == mt.float32
    assert_close(out_m, out_t, rtol=1e-5, atol=1e-6)
    optimizer = mt.optim.SGD(ours.parameters(), lr=0.5)
    target = mt.zeros(3, 5, 6)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = F.mse_loss(ours(mt.tensor(x))[0], target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]




# ----- sequence packing (nn.utils.rnn) -----

def test_sequence_padding_and_packing_match_pytorch():
    lengths = [2, 4, 1, 4]
    seqs = [RNG.standard_normal((n, 3)) for n in lengths]
    ours_seqs = [mt.tensor(s, requires_grad=True) for s in seqs]
    theirs_seqs = [torch.tensor(s, requires_grad=True) for s in seqs]
    for batch_first in (False, True):
        for side in ("right", "left"):
            assert_close(nn.utils.rnn.pad_sequence(ours_seqs, batch_first, -1.0, side),
                         tnn.utils.rnn.pad_sequence(theirs_seqs, batch_first, -1.0, side))
    packed_m = nn.utils.rnn.pack_sequence(ours_seqs, enforce_sorted=False)
    packed_t = tnn.utils.rnn.pack_sequence(theirs_seqs, enforce_sorted=False)
    for a, b in zip(packed_m, packed_t):
        assert_close(a, b)
    padded_m, lengths_m = nn.utils.rnn.pad_packed_sequence(packed_m, batch_first=True, padding_value=9.0, total_length=6)
    padded_t, lengths_t = tnn.utils.rnn.pad_packed_sequence(packed_t, batch_first=True, padding_value=9.0, total_length=6)
    assert_close(padded_m, padded_t)
    assert lengths_m.tolist() == lengths_t.tolist() and lengths_m.dtype == mt.int64
    weights = RNG.standard_normal(padded_t.shape)
    (padded_m * mt.tensor(weights)).sum().backward()
    (padded_t * torch.tensor(weights)).sum().backward()
    for a, b in zip(ours_seqs, theirs_seqs):
        assert_close(a.grad, b.grad)
    for a, b in zip(nn.utils.rnn.unpack_sequence(packed_m), tnn.utils.rnn.unpack_sequence(packed_t)):
        assert_close(a, b)
    padded = RNG.standard_normal((4, 3, 2))
    by_batch_first = nn.utils.rnn.pack_padded_sequence(mt.tensor(padded.transpose(1, 0, 2)), [4, 2, 2], batch_first=True)
    by_time = tnn.utils.rnn.pack_padded_sequence(torch.tensor(padded), [4, 2, 2])
    assert_close(by_batch_first.data, by_time.data)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        nn.utils.rnn.pack_padded_sequence(mt.tensor(padded), [2, 4, 2])
    with pytest.raises(RuntimeError, match="has to be greater than 0"):
        nn.utils.rnn.pack_padded_sequence(mt.tensor(padded), [4, 2, 0])
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        nn.utils.rnn.pad_packed_sequence(packed_m, total_length=2)


# ----- attention -----

def _causal_float_mask(length):
    return np.triu(np.full((length, length), -np.inf), 1)


SDPA_CASES = [
    ({}, (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), None),
    ({"is_causal": True}, (2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 5), None),
    ({"scale": 0.3}, (3, 4, 5), (3, 6, 5), (3, 6, 2), "bool"),
    ({"scale": -0.5}, (2, 4, 5), (2, 6, 5), (2, 6, 3), "float"),
    ({"enable_gqa": True}, (2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 3), None),
    ({}, (4, 5), (6, 5), (6, 3), "bool"),
]


@pytest.mark.parametrize("kwargs, q_shape, k_shape, v_shape, mask", SDPA_CASES, ids=lambda v: str(v))
def test_scaled_dot_product_attention_matches_pytorch(kwargs, q_shape, k_shape, v_shape, mask):
    arrays = [RNG.standard_normal(q_shape), RNG.standard_normal(k_shape), RNG.standard_normal(v_shape)]
    length, source = q_shape[-2], k_shape[-2]
    mask_array = None
    if mask == "bool":
        mask_array = RNG.random((length, source)) < 0.7
        mask_array[:, 0] = True  # every query sees something
    elif mask == "float":
        mask_array = RNG.standard_normal((q_shape[0], length, source))

    def ours(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, None if mask_array is None else mt.tensor(mask_array), **kwargs)

    def theirs(q, k, v):
        return tF.scaled_dot_product_attention(q, k, v, None if mask_array is None else torch.tensor(mask_array), **kwargs)

    same_function(ours, theirs, *arrays)
    if not kwargs.get("enable_gqa"):
        gradchecks(ours, *[a[..., :3, :] if a.ndim > 2 else a for a in arrays]) if mask_array is None else None


def test_scaled_dot_product_attention_fully_masked_rows_and_dropout():
    q = mt.randn(1, 3, 4, requires_grad=True)
    mask = mt.tensor([[True, True], [False, False], [True, False]])
    out = F.scaled_dot_product_attention(q, mt.randn(1, 2, 4), mt.randn(1, 2, 4), attn_mask=mask)
    expected = tF.scaled_dot_product_attention(to_torch(q), torch.randn(1, 2, 4), torch.randn(1, 2, 4),
                                               attn_mask=torch.tensor(mask.numpy()))
    assert out[0, 1].tolist() == [0.0] * 4 and expected[0, 1].tolist() == [0.0] * 4  # PyTorch's _safe_softmax
    out.sum().backward()
    assert not np.isnan(q.grad.numpy()).any()
    mt.manual_seed(0)
    values = mt.ones(1, 50, 3)
    dropped = F.scaled_dot_product_attention(mt.zeros(1, 50, 3), mt.zeros(1, 50, 3), values, dropout_p=0.5)
    rows = dropped.numpy()[0, :, 0]  # each row: the kept share of 50 weights of 1/50, times 2
    assert len(np.unique(rows)) > 3 and abs(rows.mean() - 1) < 0.1
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mt.ones(3, 3), is_causal=True)


MHA = [
    (lambda m: m.MultiheadAttention(8, 2), "self", {}),
    (lambda m: m.MultiheadAttention(8, 4, batch_first=True), "self", {"average_attn_weights": False}),
    (lambda m: m.MultiheadAttention(8, 2, kdim=5, vdim=3), "cross", {}),
    (lambda m: m.MultiheadAttention(8, 2, bias=False, add_bias_kv=True, add_zero_attn=True), "cross-same", {}),
    (lambda m: m.MultiheadAttention(8, 2), "self", {"need_weights": False, "mask": "causal"}),
    (lambda m: m.MultiheadAttention(8, 2, batch_first=True), "self", {"mask": "bool", "padding": "bool"}),
    (lambda m: m.MultiheadAttention(8, 2), "self", {"mask": "float3d", "padding": "float"}),
    (lambda m: m.MultiheadAttention(8, 2, add_bias_kv=True), "unbatched", {"mask": "causal"}),
]


@pytest.mark.parametrize("make, form, options", MHA, ids=lambda v: repr(v(tnn)).replace("\n", "") if callable(v) else str(v))
def test_multihead_attention_matches_pytorch(make, form, options):
    ours, theirs = twins(make)
    assert repr(ours) == repr(theirs)
    batch, target, source = 3, 4, 5
    batch_first = ours.batch_first
    def shaped(length, dim):
        if form == "unbatched":
            return RNG.standard_normal((length, dim))
        return RNG.standard_normal((batch, length, dim) if batch_first else (length, batch, dim))
    query = shaped(target, 8)
    if form == "self":
        arrays = [query]
    elif form == "unbatched":
        arrays = [query, shaped(target, 8), shaped(target, 8)]
        source = target
    else:
        arrays = [query, shaped(source, ours.kdim), shaped(source, ours.vdim)]
    if form == "self":
        source = target
    masks = {}
    if options.get("mask") == "causal":
        masks["attn_mask"] = _causal_float_mask(target)
    elif options.get("mask") == "bool":
        masks["attn_mask"] = np.triu(np.ones((target, source), dtype=bool), 1)
    elif options.get("mask") == "float3d":
        masks["attn_mask"] = RNG.standard_normal((batch * 2, target, source))
    if options.get("padding"):
        padding = np.zeros((batch, source), dtype=bool)
        padding[0, -2:] = True
        masks["key_padding_mask"] = padding if options["padding"] == "bool" else np.where(padding, -np.inf, 0.0)
    kwargs = {k: v for k, v in options.items() if k in ("need_weights", "average_attn_weights")}
    if options.get("mask") == "causal" and options.get("need_weights") is False:
        kwargs["is_causal"] = True

    def call(module, lib, *xs):
        if len(xs) == 1:
            xs = (xs[0], xs[0], xs[0])
        extra = {k: lib.tensor(v) for k, v in masks.items()}
        return module(*xs, **extra, **kwargs)

    result = call(ours, mt, *[mt.tensor(a) for a in arrays])
    assert (result[1] is None) == (kwargs.get("need_weights") is False)
    outputs = lambda r: r[0] if r[1] is None else r  # noqa: E731
    compare_twins(lambda *xs: outputs(call(ours, mt, *xs)), lambda *xs: outputs(call(theirs, torch, *xs)), *arrays,
                  modules=(ours, theirs))


def test_multi_head_attention_forward_by_finite_differences_and_errors():
    E = 4
    weights = [RNG.standard_normal((3 * E, E)) * 0.5, RNG.standard_normal(3 * E), RNG.standard_normal((E, E)) * 0.5]

    def attention(x, w_in, b_in, w_out):
        return F.multi_head_attention_forward(x, x, x, E, 2, w_in, b_in, None, None, False, 0.0, w_out, None)[0]

    gradchecks(attention, RNG.standard_normal((3, 2, E)), *weights)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    module = nn.MultiheadAttention(4, 2)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        module(mt.zeros(3, 1, 4), mt.zeros(3, 1, 4), mt.zeros(3, 1, 4), is_causal=True)
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        module(mt.zeros(3, 1, 4), mt.zeros(3, 1, 4), mt.zeros(3, 1, 4), attn_mask=mt.zeros(2, 2))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 4"):
        module(mt.zeros(3, 1, 5), mt.zeros(3, 1, 5), mt.zeros(3, 1, 5))
    assert [n for n, _ in module.named_parameters()] == [n for n, _ in tnn.MultiheadAttention(4, 2).named_parameters()]


# ----- transformer -----

TRANSFORMER_LAYERS = [
    (lambda m: m.TransformerEncoderLayer(8, 2, 16, dropout=0.0), "encoder", {}),
    (lambda m: m.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=True, batch_first=True),
     "encoder", {"src_mask": "causal"}),
    (lambda m: m.TransformerEncoderLayer(8, 4, 16, dropout=0.0, bias=False, layer_norm_eps=1e-3), "encoder",
     {"src_key_padding_mask": "padding"}),
    (lambda m: m.TransformerDecoderLayer(8, 2, 16, dropout=0.0), "decoder", {"tgt_mask": "causal"}),
    (lambda m: m.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True, batch_first=True,
                                         activation=m.functional.silu), "decoder",
     {"memory_key_padding_mask": "padding", "tgt_mask": "causal"}),
]


def _transformer_inputs(module, kind, options):
    batch_first = getattr(module, "batch_first", None)
    if batch_first is None:
        batch_first = (module.self_attn if hasattr(module, "self_attn") else module.layers[0].self_attn).batch_first
    batch, target, source = 3, 4, 5
    shape = lambda length: (batch, length, 8) if batch_first else (length, batch, 8)  # noqa: E731
    arrays = [RNG.standard_normal(shape(target if kind != "encoder" else source))]
    if kind != "encoder":
        arrays.insert(0, RNG.standard_normal(shape(source))) if kind == "transformer" else arrays.append(
            RNG.standard_normal(shape(source)))
    masks = {}
    for name, what in options.items():
        length = source if kind == "encoder" or name.startswith(("src", "memory")) else target
        if what == "causal":
            masks[name] = _causal_float_mask(length)
        elif what == "padding":
            padding = np.zeros((batch, length), dtype=bool)
            padding[1, -2:] = True
            masks[name] = padding
    return arrays, masks


@pytest.mark.parametrize("make, kind, options", TRANSFORMER_LAYERS, ids=lambda v: repr(v(tnn)).split("(")[0] if callable(v) else str(v))
def test_transformer_layers_match_pytorch(make, kind, options):
    ours, theirs = twins(make)
    assert repr(ours) == repr(theirs)
    arrays, masks = _transformer_inputs(ours, kind, options)
    compare_twins(lambda *xs: ours(*xs, **{k: mt.tensor(v) for k, v in masks.items()}),
                  lambda *xs: theirs(*xs, **{k: torch.tensor(v) for k, v in masks.items()}), *arrays,
                  modules=(ours, theirs), rtol=1e-9, atol=1e-11)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # PyTorch's advice about its fast path
@pytest.mark.parametrize("norm_first, batch_first", [(False, False), (True, True)])
def test_transformer_stacks_and_model_match_pytorch(norm_first, batch_first):
    ours, theirs = twins(lambda m: m.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                                 dim_feedforward=16, dropout=0.0, norm_first=norm_first,
                                                 batch_first=batch_first))
    assert repr(ours) == repr(theirs)  # the layer stacks print folded: "(0-1): 2 x TransformerEncoderLayer("
    arrays, masks = _transformer_inputs(ours, "transformer", {"tgt_mask": "causal", "src_key_padding_mask": "padding",
                                                              "memory_key_padding_mask": "padding"})
    compare_twins(lambda *xs: ours(*xs, **{k: mt.tensor(v) for k, v in masks.items()}),
                  lambda *xs: theirs(*xs, **{k: torch.tensor(v) for k, v in masks.items()}), *arrays,
                  modules=(ours, theirs), rtol=1e-9, atol=1e-11)
    encoder_layer = lambda m: m.TransformerEncoderLayer(8, 2, 16, dropout=0.0)  # noqa: E731
    enc_m, enc_t = twins(lambda m: m.TransformerEncoder(encoder_layer(m), 2, m.LayerNorm(8), enable_nested_tensor=False))
    arrays, masks = _transformer_inputs(enc_m, "encoder", {"mask": "causal"})
    compare_twins(lambda x: enc_m(x, mask=mt.tensor(masks["mask"])), lambda x: enc_t(x, mask=torch.tensor(masks["mask"])),
                  *arrays, modules=(enc_m, enc_t), rtol=1e-9, atol=1e-11)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_transformer_initialisation_masks_and_training():
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16)
    layers = model.encoder.layers
    assert layers[0].linear1.weight is not layers[1].linear1.weight  # deep copies
    assert len(model.state_dict()) == len(tnn.Transformer(8, 2, 2, 1, 16).state_dict())
    bound = np.sqrt(6 / (16 + 8))
    assert np.abs(layers[0].linear1.weight.detach().numpy()).max() <= bound  # Xavier-uniform after construction
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    assert_close(mask, tnn.Transformer.generate_square_subsequent_mask(4))
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=mt.float64).dtype == mt.float64
    with pytest.raises(RuntimeError, match="activation should be relu/gelu"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(mt.zeros(3, 2, 8), mt.zeros(3, 4, 8))
    mt.manual_seed(0)
    src, tgt = mt.randn(5, 4, 8), mt.randn(3, 4, 8)
    optimizer = mt.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(15):
        optimizer.zero_grad()
        loss = F.mse_loss(model(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3)), tgt)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]


# ----- linear cross-entropy -----

@pytest.mark.parametrize("kwargs, shapes", [
    ({}, ((4, 3), (5, 3), (4,), None)),
    ({"label_smoothing": 0.1, "reduction": "sum"}, ((4, 3), (5, 3), (4,), (5,))),
    ({"ignore_index": 2, "reduction": "none"}, ((4, 3), (5, 3), (4,), None)),
    ({}, ((4, 3), (5, 2, 3), (4, 2), (5, 2))),
    ({}, ((3,), (5, 3), (), (5,))),
    ({"reduction": "mean"}, ((4, 3), (5, 3), (4, 5), None)),
])
def test_linear_cross_entropy_matches_pytorch(kwargs, shapes):
    input_shape, weight_shape, target_shape, bias_shape = shapes
    arrays = [RNG.standard_normal(input_shape), RNG.standard_normal(weight_shape)]
    if bias_shape is not None:
        arrays.append(RNG.standard_normal(bias_shape))
    if len(target_shape) == 2 and target_shape[1] == weight_shape[0]:
        target = _probabilities(target_shape)
        make_target = lambda lib: lib.tensor(target)  # noqa: E731
    else:
        target = RNG.integers(0, weight_shape[0], target_shape)
        if kwargs.get("ignore_index") is not None:
            target.flat[0] = kwargs["ignore_index"]
        make_target = lambda lib: lib.tensor(target)  # noqa: E731

    def call(fn, lib):
        return lambda x, w, *b: fn(x, w, make_target(lib), linear_bias=b[0] if b else None, **kwargs)

    same_function(call(F.linear_cross_entropy, mt), call(tF.linear_cross_entropy, torch), *arrays)


def test_linear_cross_entropy_module_and_options():
    ours, theirs = twins(lambda m: m.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, label_smoothing=0.05))
    assert repr(ours) == repr(theirs)
    target = RNG.integers(0, 3, (5, 2))
    compare_twins(lambda x: ours(x, mt.tensor(target)), lambda x: theirs(x, torch.tensor(target)),
                  RNG.standard_normal((5, 4)), modules=(ours, theirs))
    weighted_m, weighted_t = twins(lambda m: m.LinearCrossEntropyLoss(
        4, 3, weight=(mt if m is nn else torch).tensor([0.5, 1.0, 2.0])))
    assert list(weighted_m.state_dict()) == ["weight", "linear.weight"]
    compare_twins(lambda x: weighted_m(x, mt.tensor(target[:, 0])), lambda x: weighted_t(x, torch.tensor(target[:, 0])),
                  RNG.standard_normal((5, 4)), modules=(weighted_m, weighted_t))
    options = nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    assert repr(options) == repr(tnn.LinearCrossEntropyOptions(batch_chunk_size=2))
    x, w, t = mt.randn(6, 4), mt.randn(3, 4), mt.tensor([0, 1, 2, 0, 1, 2])
    assert_close(F.linear_cross_entropy(x, w, t, options=options), F.linear_cross_entropy(x, w, t))
    with pytest.raises(ValueError, match="invalid acc_policy"):
        nn.LinearCrossEntropyOptions(acc_policy="fast")
    with pytest.raises(ValueError, match="invalid chunking_method"):
        nn.LinearCrossEntropyOptions(chunking_method="rows:2")
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last dimensions"):
        F.linear_cross_entropy(mt.zeros(2, 3), mt.zeros(4, 5), mt.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified when target contains probabilities"):
        F.linear_cross_entropy(mt.zeros(2, 3), mt.zeros(4, 3), mt.zeros(2, 4), ignore_index=1)
