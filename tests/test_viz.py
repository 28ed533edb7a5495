"""minitorch.viz: tape listings, DOT text, PNG drawings, captured backward passes; the explain example."""
import io
import re

import numpy as np
import pytest

import minitorch as mt
from minitorch.engine import trace
from minitorch.engine.state import switches
from minitorch.engine.registry import OPS

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _parse_dot(text):
    """Node id -> label lines, and the set of (from, to) edges, read with regexes."""
    nodes = {m.group(1): m.group(2).split("\\n") for m in re.finditer(r'^\s*(\w+) \[.*label="((?:[^"\\]|\\.)*)"\];$', text, re.M)}
    edges = [(a, b) for a, b in re.findall(r"^\s*(\w+) -> (\w+);$", text, re.M)]
    return nodes, edges


def _affine():
    x = mt.tensor(np.arange(6.0).reshape(2, 3).tolist(), requires_grad=True)
    w = mt.tensor([1.0, -2.0, 0.5], requires_grad=True)
    b = mt.tensor(3.0, requires_grad=True)
    return x, w, b


def test_dot_of_a_known_graph_has_exactly_its_nodes_and_edges():
    x, w, b = _affine()
    y = (x * w + b).sum()
    text = mt.viz.to_dot(y, names={"x": x, "w": w, "b": b, "y": y})
    assert text.startswith("digraph minitorch {") and text.rstrip().endswith("}")
    nodes, edges = _parse_dot(text)
    name = {node: lines[0] for node, lines in nodes.items()}
    assert sorted(name.values()) == sorted(["x", "w", "b", "t0", "t1", "y", "Mul", "Add", "Sum"])
    assert sorted((name[a], name[c]) for a, c in edges) == sorted([
        ("x", "Mul"), ("w", "Mul"), ("Mul", "t0"),
        ("t0", "Add"), ("b", "Add"), ("Add", "t1"),
        ("t1", "Sum"), ("Sum", "y"),
    ])
    shapes = {lines[0]: lines[1] for lines in nodes.values() if len(lines) > 1 and lines[1].startswith("(")}
    assert shapes == {"x": "(2, 3) float32", "w": "(3,) float32", "b": "() float32",
                      "t0": "(2, 3) float32", "t1": "(2, 3) float32", "y": "() float32"}
    ops = {lines[0]: lines[1] for lines in nodes.values() if not lines[1].startswith("(")}
    assert ops == {"Mul": "keeps inputs", "Add": "keeps nothing", "Sum": "keeps nothing"}


def test_listing_of_a_gradient_tape_follows_the_op_tables():
    x = mt.tensor([0.5, 1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.exp(x) * x + x
        z = mt.log(y).sum()
    lines = str(tape).splitlines()
    assert lines[0] == f"GradientTape (tape {tape._tape.serial}): 5 ops"
    rows = [line.split() for line in lines[2:]]
    assert [row[1] for row in rows] == ["Exp", "Mul", "Add", "Log", "Sum"]
    for row in rows:
        op = row[1]
        expected = " and ".join(k for k, kept in (("inputs", OPS[op].needs_inputs), ("outputs", OPS[op].needs_outputs))
                                if kept) or "nothing"
        assert " ".join(row[row.index("->") + 2:]) == expected, row
    assert rows[0][2:] == ["t0(3,)", "->", "t1(3,)", "outputs"]
    assert rows[1][2:5] == ["t1(3,)", "t0(3,)", "->"]
    assert "GradientTape persistent=True recording=False ops=5" in repr(tape)
    del z


def test_static_view_of_a_tensor_after_backward_says_the_graph_was_released():
    x, w, b = _affine()
    y = (x * w + b).sum()
    y.backward()
    text = mt.viz.listing(y)
    assert "released by a backward pass" in text
    y2 = (x * w).sum()
    y2.backward(retain_graph=True)
    lines = mt.viz.listing(y2, names={"x": x, "w": w}).splitlines()
    assert "released" not in "\n".join(lines)
    assert lines[-2:] == [f"x  (2, 3)  float32  leaf  |grad| {np.linalg.norm(x.grad.numpy()):.4g}",
                          f"w  (3,)    float32  leaf  |grad| {np.linalg.norm(w.grad.numpy()):.4g}"]


def test_capture_records_backward_order_and_true_gradient_norms():
    x, w, b = _affine()
    with mt.viz.capture() as graph:
        h = mt.tanh(x * w + b)
        y = (h * h).sum()
        y.backward()
    assert [op.op_type for op in graph.ops] == ["Mul", "Add", "Tanh", "Mul", "Sum"]
    # a chain: the ready-op stack runs the ops in reverse recording order
    assert graph.backward_order == [4, 3, 2, 1, 0]
    assert [op.backward_steps for op in graph.ops] == [[5], [4], [3], [2], [1]]
    norms = {tid: node.grad_norm for tid, node in graph.tensors.items()}
    for leaf in (x, w, b):
        assert norms[leaf._id] == pytest.approx(np.linalg.norm(leaf.grad.numpy()), rel=1e-6)
        assert graph.tensors[leaf._id].kind == "leaf"
    hv = np.tanh(x.detach().numpy() * w.detach().numpy() + b.item())
    assert norms[h._id] == pytest.approx(np.linalg.norm(2 * hv), rel=1e-6)
    assert norms[y._id] == 1.0
    assert graph.aggregations == [(h._id, 2)]  # h feeds Mul twice
    text = str(graph)
    assert "backward" in text.splitlines()[1] and "summed 2 gradients of t5" in text


def test_capture_keeps_the_graph_that_backward_released_and_stops_listening():
    x, w, b = _affine()
    with mt.viz.capture() as graph:
        y = (x * w + b).sum()
        y.backward()
    assert not switches.tracing and not trace._listeners
    nodes, edges = _parse_dot(mt.viz.to_dot(graph))
    assert len(edges) == 8
    assert any("backward #1" in "\n".join(lines) for lines in nodes.values())
    z = (x * 2).sum()  # recorded after the block: not in the graph
    assert len(graph.ops) == 3
    del z


def test_capture_and_printed_tracing_work_together():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    out = io.StringIO()
    with mt.autograd.tracing(out), mt.viz.capture() as graph:
        (x * x).sum().backward()
    assert [line.split()[1] for line in out.getvalue().splitlines()] == ["Mul", "Sum", "Sum", "Mul", "2"]
    assert [graph.ops[i].op_type for i in graph.backward_order] == ["Sum", "Mul"]
    assert not switches.tracing


def test_capture_sees_ops_recorded_before_it_opened():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    y = (mt.exp(x)).sum()
    with mt.viz.capture() as graph:
        y.backward()
    assert sorted(op.op_type for op in graph.ops) == ["Exp", "Sum"]
    assert graph.tensors[x._id].grad_norm == pytest.approx(np.linalg.norm(np.exp([1.0, 2.0])), rel=1e-6)


def test_draw_writes_a_real_png(tmp_path):
    x, w, b = _affine()
    with mt.viz.capture() as graph:
        y = mt.relu(x * w + b).mean()
        y.backward()
    for obj, name in ((graph, "captured.png"), ((x * w).sum(), "static.png")):
        path = tmp_path / name
        assert mt.viz.draw(obj, path, names={"x": x}) == path
        data = path.read_bytes()
        assert data[:8] == PNG_MAGIC and len(data) > 2000
        width, height = np.frombuffer(data[16:24], dtype=">u4")
        assert width > 200 and height > 200


def test_views_of_a_tensor_no_tape_recorded():
    t = mt.ones(2) * 3
    text = mt.viz.listing(t)
    assert "0 ops" in text and "no tape recorded" in text
    nodes, edges = _parse_dot(mt.viz.to_dot(t))
    assert len(nodes) == 1 and edges == []


def test_bad_argument_names_the_expected_types():
    with pytest.raises(TypeError, match="Tensor, a GradientTape, a Tape or a Graph, got list"):
        mt.viz.listing([1, 2])


def test_explain_example_runs_and_agrees_with_finite_differences(tmp_path, capsys):
    from minitorch.examples import explain

    out = tmp_path / "graph.png"
    assert explain.main(["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "record   MatMul" in printed and "backward MatMul" in printed
    assert "finite differences" in printed and "OK" in printed
    assert out.read_bytes()[:8] == PNG_MAGIC
