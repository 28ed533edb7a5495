"""mt.amp: autocast runs its region in float32 (with PyTorch's kind of warning); GradScaler is PyTorch's loss scaling."""
import warnings

import numpy as np
import pytest

import minitorch as mt


def _train(lib, make_scaler, clip=None, steps=7, overflow_at=(2, 3)):
    """SGD on a tiny quadratic with a scaler, an overflowing loss at some steps; the weights and scales it went through."""
    w = lib.nn.Parameter(lib.tensor([1.0, -2.0, 0.5]))
    opt = lib.optim.SGD([w], lr=0.1, momentum=0.5)
    scaler = make_scaler()
    scales = []
    for i in range(steps):
        opt.zero_grad()
        loss = (w * w * lib.tensor([1.0, 2.0, 3.0])).sum() * (float("inf") if i in overflow_at else 1.0)
        scaler.scale(loss).backward()
        if clip is not None:
            scaler.unscale_(opt)
            lib.nn.utils.clip_grad_norm_([w], clip)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return w.detach().numpy(), scales


def test_a_step_with_an_overflow_is_skipped_and_the_scale_backs_off_then_grows():
    weights, scales = _train(mt, lambda: mt.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2))
    assert scales == [8.0, 16.0, 8.0, 4.0, 4.0, 8.0, 8.0]
    assert np.isfinite(weights).all()
    # Two overflowing steps out of five leave the weights of three clean steps (powers of two unscale exactly).
    skipped, _ = _train(mt, lambda: mt.amp.GradScaler("cpu", init_scale=8.0), steps=5, overflow_at=(2, 3))
    clean, _ = _train(mt, lambda: mt.amp.GradScaler("cpu", enabled=False), steps=3, overflow_at=())
    np.testing.assert_array_equal(skipped, clean)


@pytest.mark.parametrize("clip", [None, 1.0])
def test_matches_pytorch(clip):
    torch = pytest.importorskip("torch")
    ours = _train(mt, lambda: mt.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2), clip)
    theirs = _train(torch, lambda: torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2), clip)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    assert ours[1] == theirs[1]


def test_disabled_scaler_passes_through_and_a_cuda_scaler_is_disabled_with_a_warning():
    scaler = mt.cuda.amp.GradScaler(enabled=False)  # nanoGPT: GradScaler(enabled=(dtype == 'float16'))
    loss = mt.tensor(3.0)
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    with pytest.warns(UserWarning, match="GradScaler is enabled for 'cuda', but minitorch has only the CPU"):
        assert not mt.cuda.amp.GradScaler().is_enabled()
    from minitorch.cuda.amp import GradScaler  # the module form imports too
    assert not GradScaler(enabled=False).is_enabled()


def test_unscale_twice_is_an_error_and_the_state_round_trips():
    w = mt.nn.Parameter(mt.ones(2))
    opt = mt.optim.SGD([w], lr=0.1)
    scaler = mt.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale((w * 3).sum()).backward()
    scaler.unscale_(opt)
    assert w.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    copy = mt.amp.GradScaler("cpu")
    copy.load_state_dict(scaler.state_dict())
    assert copy.state_dict() == scaler.state_dict()


def test_autocast_warns_and_computes_in_float32_as_context_and_decorator():
    with pytest.warns(UserWarning, match="minitorch computes in float32 only"):
        region = mt.autocast("cpu", dtype=mt.float16)
    with region:
        assert (mt.ones(2) * 2).dtype == mt.float32

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # disabled: silent
        @mt.autocast("cpu", enabled=False)
        def double(x):
            return x * 2
        assert double(mt.ones(1)).tolist() == [2.0]
        with mt.cpu.amp.autocast(enabled=False), mt.cuda.amp.autocast(enabled=False):
            pass
    with pytest.raises(ValueError, match="device_type"):
        mt.autocast(mt.device("cpu"))
