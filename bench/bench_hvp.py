"""Hessian-vector products of an MLP's cross-entropy loss, minitorch vs PyTorch.

MLP 784-256-128-10 (ReLU), batch 128, HVP with respect to all parameters:
reverse-over-reverse (nested GradientTapes) and forward-over-reverse
(a ForwardAccumulator around a GradientTape), against PyTorch's double
backward on the same data when torch is installed. Prints median ms per
HVP and the minitorch/PyTorch ratios.

    python bench/bench_hvp.py [--repeats 20]
"""
import argparse
import statistics
import time

import numpy as np

import minitorch as mt

SIZES = (784, 256, 128, 10)
BATCH = 128


def make_problem(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], BATCH)
    vector = [rng.standard_normal(p.shape).astype(np.float32) for p in params]
    return params, x, labels, vector


def mt_loss(params, x, labels):
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = mt.relu(h)
    log_probs = h.log_softmax(dim=1)
    return -log_probs[mt.arange(BATCH), labels].mean()


def hvp_reverse_over_reverse(params, x, labels, vector):
    with mt.GradientTape() as outer:
        outer.watch(params)
        with mt.GradientTape() as inner:
            inner.watch(params)
            loss = mt_loss(params, x, labels)
        grads = inner.gradient(loss, params)
    return outer.gradient(grads, params, output_gradients=vector)


def hvp_forward_over_reverse(params, x, labels, vector):
    with mt.ForwardAccumulator(params, vector) as acc:
        with mt.GradientTape() as tape:
            tape.watch(params)
            loss = mt_loss(params, x, labels)
        grads = tape.gradient(loss, params)
    return acc.jvp(grads)


def median_ms(fns, repeats):
    """Median ms per call of each function; the functions take turns, so a busy
    machine slows them alike and the ratios stay meaningful."""
    for fn in fns.values():
        fn()  # warm up
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(t) for name, t in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    params_np, x_np, labels_np, vector_np = make_problem()
    params = [mt.from_numpy(p) for p in params_np]
    x, labels = mt.from_numpy(x_np), mt.from_numpy(labels_np)
    vector = [mt.from_numpy(v) for v in vector_np]

    ror = hvp_reverse_over_reverse(params, x, labels, vector)
    for_ = hvp_forward_over_reverse(params, x, labels, vector)
    worst = max(float(np.max(np.abs(a._data - b._data)) / (np.max(np.abs(a._data)) + 1e-12)) for a, b in zip(ror, for_))
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, HVP w.r.t. {sum(p.size for p in params_np)} parameters")
    print(f"forward-over-reverse vs reverse-over-reverse: max relative difference {worst:.2e}")

    fns = {
        "minitorch reverse-over-reverse": lambda: hvp_reverse_over_reverse(params, x, labels, vector),
        "minitorch forward-over-reverse": lambda: hvp_forward_over_reverse(params, x, labels, vector),
    }
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(2)
        tparams = [torch.tensor(p, requires_grad=True) for p in params_np]
        tx, tlabels = torch.tensor(x_np), torch.tensor(labels_np)
        tvector = [torch.tensor(v) for v in vector_np]

        def torch_hvp():
            h = tx
            for i in range(0, len(tparams), 2):
                h = h @ tparams[i] + tparams[i + 1]
                if i + 2 < len(tparams):
                    h = torch.relu(h)
            loss = torch.nn.functional.cross_entropy(h, tlabels)
            grads = torch.autograd.grad(loss, tparams, create_graph=True)
            return torch.autograd.grad(grads, tparams, grad_outputs=tvector)

        check = torch_hvp()
        worst = max(float(np.max(np.abs(a._data - b.numpy())) / (np.max(np.abs(b.numpy())) + 1e-12)) for a, b in zip(ror, check))
        print(f"minitorch vs torch HVP: max relative difference {worst:.2e}")
        fns["torch double backward"] = torch_hvp
    results = median_ms(fns, args.repeats)
    torch_ms = results.get("torch double backward")
    for name, ms in results.items():
        ratio = f"  ({ms / torch_ms:.2f}x torch)" if torch_ms and not name.startswith("torch") else ""
        print(f"{name:34s} {ms:8.2f} ms per HVP{ratio}")


if __name__ == "__main__":
    main()
