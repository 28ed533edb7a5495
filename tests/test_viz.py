"""minitorch.viz: listings, pictures as data, DOT text, PNG drawings, captured passes; the explain example.

The pictures are tested as data (mt.viz.picture: the boxes' text, styles,
edges, module groups, legend); the PNGs by a smoke test per example model.
"""
import gc
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.engine import trace
from minitorch.engine.autograd_tape import AUTOGRAD_TAPE
from minitorch.engine.registry import OPS
from minitorch.engine.state import switches
from minitorch.examples import explain
from minitorch.examples.cnn import CNN
from minitorch.examples.mlp import MLP
from minitorch.ops.batch_norm_ops import fused_batch_norm
from minitorch.viz.layout import layout

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
README = Path(__file__).resolve().parent.parent / "README.md"


def _parse_dot(text):
    """Node id -> label lines, and the list of (from, to) edges, read with regexes."""
    nodes = {m.group(1): m.group(2).split("\\n") for m in re.finditer(r'^\s*(\w+) \[.*label="((?:[^"\\]|\\.)*)"\];$', text, re.M)}
    edges = [(a, b) for a, b in re.findall(r"^\s*(\w+) -> (\w+);$", text, re.M)]
    return nodes, edges


def _affine():
    x = mt.tensor(np.arange(6.0).reshape(2, 3).tolist(), requires_grad=True)
    w = mt.tensor([1.0, -2.0, 0.5], requires_grad=True)
    b = mt.tensor(3.0, requires_grad=True)
    return x, w, b


def _micrograd():
    """micrograd's example: L = (a*b + c) * f, captured with its backward pass."""
    a, b = mt.tensor(2.0, requires_grad=True), mt.tensor(-3.0, requires_grad=True)
    c, f = mt.tensor(10.0, requires_grad=True), mt.tensor(-2.0, requires_grad=True)
    with mt.viz.capture() as graph:
        e = a * b
        d = e + c
        L = d * f
        L.backward()
    return graph, dict(a=a, b=b, c=c, f=f, e=e, d=d, L=L)


def _png_size(path):
    data = Path(path).read_bytes()
    assert data[:8] == PNG_MAGIC
    return tuple(int(n) for n in np.frombuffer(data[16:24], dtype=">u4"))


# ----- the picture, as data -----

def test_micrograd_picture_shows_every_value_and_signed_gradient():
    graph, names = _micrograd()
    pic = mt.viz.picture(graph, names=names)
    lines = {name: pic.box(t).lines for name, t in names.items()}
    assert lines == {
        "a": ["a  ()", "value 2", "grad  6"], "b": ["b  ()", "value -3", "grad  -4"],
        "c": ["c  ()", "value 10", "grad  -2"], "f": ["f  ()", "value -2", "grad  4"],
        "e": ["e  ()", "value -6", "grad  -2"], "d": ["d  ()", "value 4", "grad  -2"],
        "L": ["L  ()", "value -8", "grad  1"],
    }
    assert [box.lines for box in pic.op_boxes("Mul")] == [["Mul   backward #3", "keeps inputs a, b"],
                                                          ["Mul   backward #1", "keeps inputs d, f"]]
    assert [box.lines for box in pic.op_boxes("Add")] == [["Add   backward #2", "keeps nothing"]]
    styles = {name: pic.box(t).style for name, t in names.items()}
    assert styles == {"a": "leaf", "b": "leaf", "c": "leaf", "f": "leaf", "e": "computed", "d": "computed", "L": "output"}
    assert pic.legend == [mt.viz.boxes.STYLES[s] for s in ("leaf", "computed", "output", "op ran")]
    assert len(pic.edges) == 9 and pic.groups == {} and pic.notes == []


def test_gradients_shown_are_the_gradients_not_their_norms():
    """Tutorial section 3's case: x feeds Mul and Sin; the two contributions add up to x.grad."""
    x, y = mt.tensor(2.0, requires_grad=True), mt.tensor(3.0, requires_grad=True)
    with mt.viz.capture() as graph:
        z = x * y + mt.sin(x)
        z.backward()
    pic = mt.viz.picture(graph, names={"x": x, "y": y})
    assert pic.box(x).lines[2] == f"grad  {x.grad.item():.4g}" == "grad  2.584"
    assert pic.box(y).lines[2] == "grad  2"
    out = io.StringIO()
    with mt.autograd.tracing(out):
        z = x * y + mt.sin(x)
        z.backward()
    backward = [line for line in out.getvalue().splitlines() if line.startswith("backward")]
    contributions = [float(v) for line in backward for v in re.findall(r"t0\(\) = (-?[\d.]+)", line)]
    assert sorted(contributions) == pytest.approx(sorted([3.0, np.cos(2.0)]), abs=1e-4)


def test_large_tensors_show_min_mean_max_of_value_and_gradient():
    rng = np.random.default_rng(0)
    w = mt.tensor(rng.standard_normal((3, 4)), dtype=mt.float64, requires_grad=True)
    with mt.viz.capture() as graph:
        loss = (w * w).sum()
        loss.backward()
    value, grad = w.detach().numpy(), w.grad.numpy()
    lines = mt.viz.picture(graph, names={"w": w}).box(w).lines
    assert lines[0] == "w  (3, 4) float64"
    assert lines[1] == f"value min {value.min():.3g} mean {value.mean():.3g} max {value.max():.3g}"
    assert lines[2] == f"grad  min {grad.min():.3g} mean {grad.mean():.3g} max {grad.max():.3g}"
    assert grad.min() < 0 < grad.max()  # signed: not norms


def test_side_outputs_are_folded_into_their_op():
    mt.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2))
    with mt.viz.capture() as graph:
        loss = model(mt.randn(2, 1, 4, 4)).sum()
        loss.backward()
    pic = mt.viz.picture(graph)
    (norm,) = pic.op_boxes("FusedBatchNorm")
    (pool,) = pic.op_boxes("MaxPool")
    assert norm.lines[-2:] == ["side outputs: batch mean, batch var, saved", "  mean, saved inv std (2,)"]
    assert pool.lines[-1] == "side outputs: argmax (2, 2, 2, 2)"
    tensor_boxes = [key for key in pic.boxes if key[0] == "t"]
    # input, conv weight and bias, conv out, bn weight and bias, bn out, relu out, pooled, loss: no statistics, no indices
    assert len(tensor_boxes) == 10
    bn_op = next(op for op in graph.ops if op.op_type == "FusedBatchNorm")
    assert not any(("t", tid) in pic.boxes for tid in bn_op.output_ids[1:])
    assert all(a in pic.boxes and b in pic.boxes for a, b in pic.edges)


def test_a_side_output_that_is_used_keeps_its_box():
    x = mt.randn(4, 3, requires_grad=True)
    y, mean, _, _, _ = fused_batch_norm(x, mt.ones(3), mt.zeros(3))
    pic = mt.viz.picture(y.sum() + mean.sum())
    assert ("t", mean._id) in pic.boxes
    text = " ".join(pic.op_boxes("FusedBatchNorm")[0].lines).replace("   ", " ")
    assert "side outputs: batch var, saved mean, saved inv std (3,)" in text and "batch mean" not in text


def test_capture_group_by_boxes_each_module_s_ops_exactly():
    mt.manual_seed(0)
    model = MLP(hidden=(5, 4))
    with mt.viz.capture(group_by=model) as graph:
        loss = nn.functional.cross_entropy(model(mt.randn(3, 1, 28, 28)), mt.tensor([0, 1, 2]))
        loss.backward()
    modules = [(op.op_type, op.module) for op in graph.ops if op.module is not None]
    assert modules == [("MatMul", "fc1"), ("Add", "fc1"), ("Relu", ""), ("MatMul", "fc2"), ("Add", "fc2"),
                       ("Relu", ""), ("MatMul", "fc3"), ("Add", "fc3")]
    assert [op.op_type for op in graph.ops if op.module is None] == ["SparseSoftmaxCrossEntropyWithLogits", "Mean"]
    pic = mt.viz.picture(graph)
    assert pic.groups == {"": "model  MLP", "fc1": "fc1  Linear", "fc2": "fc2  Linear", "fc3": "fc3  Linear"}
    assert pic.box(model.fc1.weight).lines[0] == "fc1.weight  (5, 784)" and pic.box(model.fc1.weight).group == "fc1"
    assert mt.viz.boxes.STYLES["module"] in pic.legend
    rectangles = layout(pic).rectangles
    l0, b0, r0, t0 = rectangles[""]
    for name in ("fc1", "fc2", "fc3"):  # inside the model's box, and apart from each other
        l, b, r, t = rectangles[name]
        assert l0 < l and r < r0 and b0 < b and t < t0
    tops = sorted((rectangles[n][1], rectangles[n][3]) for n in ("fc1", "fc2", "fc3"))
    assert all(upper[0] > lower[1] for lower, upper in zip(tops, tops[1:]))


def test_static_group_by_places_parameter_free_ops_between_layers():
    mt.manual_seed(0)
    model = CNN()
    loss = nn.functional.cross_entropy(model(mt.randn(2, 1, 28, 28)), mt.tensor([3, 4]))
    graph = mt.viz.graph_of(loss)
    mt.viz.boxes.graph_module.group_by_module(graph, model)
    modules = {(op.op_type, op.module) for op in graph.ops}
    assert ("Conv2D", "features.0") in modules and ("FusedBatchNorm", "features.5") in modules
    assert ("MatMul", "classifier.1") in modules and ("Add", "classifier.3") in modules
    free = [(op.op_type, op.module) for op in graph.ops if op.op_type in ("Relu", "MaxPool", "Reshape")]
    # between two layers of one Sequential: in it; between the two Sequentials: in the model
    assert free == [("Relu", "features"), ("MaxPool", "features"), ("Relu", ""), ("MaxPool", ""), ("Reshape", ""),
                    ("Relu", "classifier")]
    assert [op.module for op in graph.ops if op.op_type == "SparseSoftmaxCrossEntropyWithLogits"] == [None]


def test_names_agree_across_trace_listing_and_picture():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    w = mt.tensor([3.0, -4.0], requires_grad=True)
    out = io.StringIO()
    with mt.autograd.tracing(out), mt.viz.capture() as graph:
        y = (x * w + x).sum()
        y.backward()
    traced = re.findall(r"record   (\w+) +(.*?) -> (.*?)  tape", out.getvalue())
    listed = [(row.split()[1], " ".join(row.split()[2:row.split().index("->")]), row.split()[row.split().index("->") + 1])
              for row in str(graph).splitlines()[2:5]]
    assert traced == listed == [("Mul", "t0(2,) t1(2,)", "t2(2,)"), ("Add", "t2(2,) t0(2,)", "t3(2,)"),
                                ("Sum", "t3(2,)", "t4()")]
    pic = mt.viz.picture(graph)
    assert [pic.box(t).lines[0].split()[0] for t in (x, w, y)] == ["t0", "t1", "t4"]
    # a static view after the session calls the same tensors the same names
    assert mt.viz.listing(y).splitlines()[2].split()[2:4] == ["t0(2,)", "t1(2,)"]
    assert re.search(r"sum +2 gradients of t0", out.getvalue())


def test_a_new_naming_session_starts_from_t0_and_a_graph_keeps_its_names():
    x = mt.tensor([1.0], requires_grad=True)
    with mt.viz.capture() as first:
        (x * 2).sum().backward()
    with mt.viz.capture() as second:
        y = mt.exp(x)
    assert [n.name for n in first.tensors.values()] == ["t0", "t1", "t2", "t3"]
    assert [n.name for n in second.tensors.values()] == ["t0", "t1"]
    assert trace._Naming.sessions == 0
    del y


def test_static_view_after_backward_keeps_the_whole_graph_and_says_what_was_freed():
    x, w, b = _affine()
    y = mt.tanh(x * w + b).sum()
    y.backward()
    graph = mt.viz.graph_of(y)
    assert [op.op_type for op in graph.ops] == ["Mul", "Add", "Tanh", "Sum"]
    assert [op.keeps for op in graph.ops] == ["inputs (freed)", "nothing (freed)", "outputs (freed)", "nothing (freed)"]
    pic = mt.viz.picture(y, names={"x": x, "w": w, "b": b})
    assert pic.box(w).lines == ["w  (3,)", "value [1, -2, 0.5]", f"grad  {mt.engine.trace.format_values(w.grad.numpy())}"]
    assert pic.op_boxes("Tanh")[0].lines == ["Tanh", "keeps output t5 (freed by backward)"]
    assert len(pic.notes) == 1 and "mt.viz.capture()" in pic.notes[0]
    assert "backward() freed the values" in mt.viz.listing(y)
    y2 = (x * w).sum()
    y2.backward(retain_graph=True)
    text = mt.viz.listing(y2, names={"x": x, "w": w})
    assert "freed" not in text and "w   (3,)    float32  leaf      value [1, -2, 0.5]" in text


def test_grad_fn_walks_the_whole_graph_after_backward_and_lets_it_go_with_the_loss():
    mt.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    loss = net(mt.randn(2, 3)).pow(2).mean()
    loss.backward()
    seen, stack, leaves = [], [loss.grad_fn], set()
    while stack:
        node = stack.pop()
        seen.append(node.name())
        for child, _ in node.next_functions:
            if child is not None and child.name() == "AccumulateGrad":
                leaves.add(id(child.variable))
            elif child is not None:
                stack.append(child)
    assert sorted(seen) == sorted(["MeanBackward0", "PowBackward0", "AddBackward0", "MatMulBackward0", "ReluBackward0",
                                   "AddBackward0", "MatMulBackward0"])
    assert leaves == {id(p) for p in net.parameters()}
    del loss, node, stack
    gc.collect()
    gc.disable()  # no reference cycle: each step's graph goes with its loss, by reference counting alone
    try:
        before = sum(type(o).__name__ == "TapeEntry" for o in gc.get_objects())
        for _ in range(20):
            loss = net(mt.randn(2, 3)).pow(2).mean()
            loss.backward()
        del loss
        assert sum(type(o).__name__ == "TapeEntry" for o in gc.get_objects()) <= before
    finally:
        gc.enable()


def test_an_intermediate_that_dies_after_backward_stays_in_the_graph():
    x = mt.tensor([0.5, -1.0], requires_grad=True)
    h = mt.tanh(x * 2)
    loss = h.sum()
    loss.backward()
    assert [op.op_type for op in mt.viz.graph_of(loss).ops] == ["Mul", "Tanh", "Sum"]
    del h  # its entry leaves the tape's released entries; the pass keeps it for the loss
    assert [op.op_type for op in mt.viz.graph_of(loss).ops] == ["Mul", "Tanh", "Sum"]
    (tanh, _), = loss.grad_fn.next_functions
    assert tanh.name() == "TanhBackward0" and tanh.next_functions[0][0].name() == "MulBackward0"


def test_dot_of_a_known_graph_has_exactly_its_nodes_and_edges():
    x, w, b = _affine()
    y = (x * w + b).sum()
    nodes, edges = _parse_dot(mt.viz.to_dot(y, names={"x": x, "w": w, "b": b, "y": y}))
    name = {node: lines[0].split()[0] for node, lines in nodes.items()}
    assert sorted(name.values()) == sorted(["x", "w", "b", "t2", "t4", "y", "Mul", "Add", "Sum"])
    assert sorted((name[a], name[c]) for a, c in edges) == sorted([
        ("x", "Mul"), ("w", "Mul"), ("Mul", "t2"), ("t2", "Add"), ("b", "Add"), ("Add", "t4"), ("t4", "Sum"), ("Sum", "y")])
    assert nodes["t0"] == ["x  (2, 3)", "value [[0, 1, 2], [3, 4, 5]]"]
    assert [lines for lines in nodes.values() if lines[0] == "Mul"] == [["Mul", "keeps inputs x, w"]]


def test_dot_nests_module_clusters():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
    text = mt.viz.to_dot(model(mt.randn(4, 2)).sum(), group_by=model)
    opened = re.findall(r"subgraph cluster_\d+ \{ label=\"([^\"]+)\"", text)
    assert opened == ["model  Sequential", "0  Linear", "2  Sequential", "2.0  Linear"]
    assert text.count("{") == text.count("}")


def test_listing_of_a_gradient_tape_follows_the_op_tables():
    x = mt.tensor([0.5, 1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.exp(x) * x + x
        z = mt.log(y).sum()
    lines = str(tape).splitlines()
    assert lines[0] == f"GradientTape (tape {tape._tape.serial}): 5 ops"
    rows = [line.split() for line in lines[2:7]]
    assert [row[1] for row in rows] == ["Exp", "Mul", "Add", "Log", "Sum"]
    for row in rows:
        op = row[1]
        expected = " and ".join(k for k, kept in (("inputs", OPS[op].needs_inputs), ("outputs", OPS[op].needs_outputs))
                                if kept) or "nothing"
        assert " ".join(row[row.index("->") + 2:]) == expected, row
    assert rows[0][2:] == ["t0(3,)", "->", "t1(3,)", "outputs"]
    assert lines[7] == "tensors:" and lines[8].split()[:5] == ["t0", "(3,)", "float32", "leaf", "value"]
    assert "GradientTape persistent=True recording=False ops=5" in repr(tape)
    del z


def test_capture_records_backward_order_and_true_signed_gradients():
    x, w, b = _affine()
    with mt.viz.capture() as graph:
        h = mt.tanh(x * w + b)
        y = (h * h).sum()
        y.backward()
    assert [op.op_type for op in graph.ops] == ["Mul", "Add", "Tanh", "Mul", "Sum"]
    assert graph.backward_order == [4, 3, 2, 1, 0]  # a chain: reverse recording order
    for leaf in (x, w, b):
        node = graph.tensors[leaf._id]
        assert node.kind == "leaf" and node.grad_norm == pytest.approx(np.linalg.norm(leaf.grad.numpy()), rel=1e-6)
        np.testing.assert_allclose(node.grad.values, leaf.grad.numpy(), rtol=1e-6)
    hv = np.tanh(x.detach().numpy() * w.detach().numpy() + b.item())
    np.testing.assert_allclose(graph.tensors[h._id].grad.values, 2 * hv, rtol=1e-6)
    np.testing.assert_allclose(graph.tensors[h._id].value.values, hv, rtol=1e-6)
    assert graph.aggregations == [(h._id, 2)]  # h feeds Mul twice
    assert "summed 2 gradients of t5" in str(graph)


def test_capture_stops_listening_and_sees_ops_recorded_before_it_opened():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (mt.exp(x)).sum()
    with mt.viz.capture() as graph:
        y.backward()
    assert not switches.tracing and not trace._listeners
    assert sorted(op.op_type for op in graph.ops) == ["Exp", "Sum"]
    np.testing.assert_allclose(graph.tensors[x._id].grad.values, np.exp([1.0, 2.0]), rtol=1e-6)
    assert mt.viz.picture(graph).box(y).style == "output"


def test_views_of_a_tensor_no_tape_recorded_and_of_a_spent_gradient_tape():
    t = mt.ones(2) * 3
    assert "0 ops" in mt.viz.listing(t) and "no tape recorded" in mt.viz.listing(t)
    pic = mt.viz.picture(t)
    assert list(pic.boxes.values())[0].lines == ["t0  (2,)", "value [3, 3]"] and pic.edges == []
    x = mt.tensor([1.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * 2
    tape.gradient(y, x)
    assert "cleared by gradient()" in mt.viz.picture(tape).notes[0]


def test_bad_argument_names_the_expected_types():
    with pytest.raises(TypeError, match="Tensor, a GradientTape, a Tape or a Graph, got list"):
        mt.viz.listing([1, 2])


# ----- PNGs -----

def test_draw_writes_a_png_for_each_example_model(tmp_path):
    mt.manual_seed(0)
    explain_model, x, target = explain.build()
    cases = {
        "mlp": (MLP(), mt.randn(4, 1, 28, 28)),
        "cnn": (CNN(), mt.randn(4, 1, 28, 28)),
        "explain": (explain_model, x),
    }
    for name, (model, inputs) in cases.items():
        with mt.viz.capture(group_by=model) as graph:
            out = model(inputs)
            loss = ((out - target) ** 2).mean() if name == "explain" else \
                nn.functional.cross_entropy(out, mt.tensor([1, 2, 3, 4]))
            loss.backward()
        for label, obj in (("captured", graph), ("static", loss)):
            path = tmp_path / f"{name}-{label}.png"
            assert mt.viz.draw(obj, path, group_by=model) == path
            width, height = _png_size(path)
            pic = mt.viz.picture(obj, group_by=model)
            shape = layout(pic)
            # the default size follows the layout: about 110 pixels per inch, no box squeezed
            assert abs(width - 110 * (max(shape.width, 6.0) + 0.6)) < 3 and height > 110 * shape.height
            assert width < 1600, f"{name} {label}: {width} px wide"
            _assert_no_overlap(shape)


def _assert_no_overlap(shape):
    boxes = sorted((x - w / 2, x + w / 2, y - h / 2, y + h / 2) for x, y, w, h in shape.place.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b[0] >= a[1]:
                break
            assert a[3] <= b[2] or b[3] <= a[2], f"boxes {a} and {b} overlap"


def test_readme_snippet_runs_as_written_and_draws_the_whole_graph(tmp_path):
    text = README.read_text()
    snippet = re.search(r"To watch the engine work:\n\n```python\n(.*?)```", text, re.S).group(1)
    result = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "backward Exp" in result.stdout
    assert _png_size(tmp_path / "graph.png")[1] > 400


def test_explain_example_runs_and_agrees_with_finite_differences(tmp_path, capsys):
    out = tmp_path / "graph.png"
    assert explain.main(["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "record   MatMul" in printed and "backward MatMul" in printed
    assert "finite differences" in printed and "OK" in printed
    assert out.read_bytes()[:8] == PNG_MAGIC
