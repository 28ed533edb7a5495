"""Run one call in minitorch and in PyTorch on the same inputs; compare values, dtypes, shapes and gradients.

Used by tests/test_surface_reductions.py and tests/test_surface_linalg.py.
Inputs are numpy arrays (floating ones require grad on both sides when
`grad=True`); outputs may be tensors, named tuples, tuples or Python values.
"""
import numpy as np

import minitorch as mt


def _resolve(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _tensors(value):
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    return [value]


def compare(ours, theirs, torch, rtol=1e-6, atol=1e-6, where="output"):
    """Same structure, shapes, dtypes and values (NaNs equal)."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)), f"{where}: expected a sequence, got {type(ours).__name__}"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} items, PyTorch has {len(theirs)}"
        if hasattr(theirs, "_fields") or hasattr(type(theirs), "n_fields"):
            fields = [f for f in dir(theirs) if not f.startswith("_") and f not in ("count", "index", "n_fields", "n_sequence_fields", "n_unnamed_fields")]
            for f in fields:
                assert hasattr(ours, f), f"{where}: no field {f!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            compare(a, b, torch, rtol, atol, f"{where}[{i}]")
        return
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, mt.Tensor), f"{where}: expected a Tensor, got {type(ours).__name__}"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape {tuple(ours.shape)} vs PyTorch {tuple(theirs.shape)}"
        assert _dtype_name(ours.dtype) == _dtype_name(theirs.dtype), f"{where}: dtype {ours.dtype} vs PyTorch {theirs.dtype}"
        np.testing.assert_allclose(np.asarray(ours.detach().numpy(), dtype=np.float64),
                                   theirs.detach().numpy().astype(np.float64), rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=where)
        return
    assert ours == theirs or (ours != ours and theirs != theirs), f"{where}: {ours!r} vs PyTorch {theirs!r}"


def parity(torch, name, *arrays, grad=True, method=False, rtol=1e-6, atol=1e-6, grad_rtol=None, **kwargs):
    """Calls `name` (e.g. "cumsum", "linalg.det"; with `method`, a Tensor method of the first input)
    on `arrays` in both libraries, compares the results and, with `grad`, the input gradients for a
    random weighting of the floating outputs. Non-array arguments pass through as they are."""
    ours_in, theirs_in = [], []
    for a in arrays:
        if isinstance(a, np.ndarray):
            differentiable = grad and a.dtype.kind == "f"
            ours_in.append(mt.tensor(a, requires_grad=differentiable))
            theirs_in.append(torch.tensor(a, requires_grad=differentiable))
        else:
            ours_in.append(a)
            theirs_in.append(a)
    ours_kwargs = {k: mt.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    kwargs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    if method:
        ours = getattr(ours_in[0], name)(*ours_in[1:], **ours_kwargs)
        theirs = getattr(theirs_in[0], name)(*theirs_in[1:], **kwargs)
    else:
        ours = _resolve(mt, name)(*ours_in, **ours_kwargs)
        theirs = _resolve(torch, name)(*theirs_in, **kwargs)
    compare(ours, theirs, torch, rtol, atol)
    if not grad:
        return ours, theirs
    rng = np.random.default_rng(7)
    pairs = [(o, t) for o, t in zip(_tensors(ours), _tensors(theirs))
             if isinstance(t, torch.Tensor) and t.requires_grad]
    if not pairs:
        return ours, theirs
    seeds = [rng.standard_normal(t.shape).astype(t.detach().numpy().dtype) for _, t in pairs]
    sources = [(o, t) for o, t in zip(ours_in, theirs_in) if isinstance(t, torch.Tensor) and t.requires_grad]
    theirs_grads = torch.autograd.grad([t for _, t in pairs], [t for _, t in sources],
                                       [torch.tensor(s) for s in seeds], allow_unused=True)
    connected = [(o, s) for (o, _), s in zip(pairs, seeds) if o.requires_grad]
    if connected:  # outputs that PyTorch connects and minitorch does not must then have zero gradients
        ours_grads = mt.autograd.grad([o for o, _ in connected], [o for o, _ in sources],
                                      [mt.tensor(s) for _, s in connected], allow_unused=True)
    else:
        ours_grads = [None] * len(sources)
    for i, (a, b) in enumerate(zip(ours_grads, theirs_grads)):
        if a is None or b is None:  # None and zeros mean the same
            for g in (a, b):
                assert g is None or not np.any(g.detach().numpy()), f"gradient {i}: one library has none, the other {g}"
            continue
        compare(a, b, torch, grad_rtol or rtol * 10, atol * 10, f"gradient {i}")
    return ours, theirs


def same_error(torch, name, *args, **kwargs):
    """Both libraries refuse the call with the same exception class."""
    def attempt(module, convert, kwargs):
        try:
            _resolve(module, name)(*[convert(a) for a in args], **{k: convert(v) for k, v in kwargs.items()})
        except Exception as error:  # noqa: BLE001  (the class is what is compared)
            return type(error)
        return None
    ours = attempt(mt, lambda a: mt.tensor(a) if isinstance(a, np.ndarray) else a, kwargs)
    theirs = attempt(torch, lambda a: torch.tensor(a) if isinstance(a, np.ndarray) else a, kwargs)
    assert theirs is not None, f"PyTorch accepts {name}{args}"
    assert ours is not None, f"minitorch accepts {name}{args}, PyTorch raises {theirs.__name__}"
    assert _builtin_base(ours) is _builtin_base(theirs), f"{name}: {ours.__name__} vs PyTorch {theirs.__name__}"


def _builtin_base(error_class):
    """The first built-in exception class an error class derives from (torch's _LinAlgError -> RuntimeError)."""
    return next(c for c in error_class.__mro__ if c.__module__ == "builtins")
