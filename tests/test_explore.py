"""mt.viz.explore without a browser: the replayed pass (autograd/replay.py), the page's data and DOM contract
read from its HTML, the command-line flags, Graph._repr_html_. In a browser: tests/test_explore_browser.py."""
import contextlib
import html.parser
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import exercise_solutions as solutions
import minitorch as mt
from minitorch.autograd.replay import replay
from minitorch.examples import explain
from minitorch.exercises import cli

SOLUTIONS = Path(solutions.__file__)


def micrograd():
    """micrograd's example, L = (a*b + c) * f, recorded (not run backwards)."""
    a, b = mt.tensor(2.0, requires_grad=True), mt.tensor(-3.0, requires_grad=True)
    c, f = mt.tensor(10.0, requires_grad=True), mt.tensor(-2.0, requires_grad=True)
    e = a * b
    d = e + c
    L = d * f
    return dict(a=a, b=b, c=c, f=f, e=e, d=d, L=L)


class _Elements(html.parser.HTMLParser):
    """Every start tag's attributes, in order."""

    def __init__(self):
        super().__init__()
        self.elements = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))


def elements(text):
    parser = _Elements()
    parser.feed(text)
    return parser.elements


def test_replay_runs_the_engine_s_pass_in_its_order_and_touches_nothing():
    t = micrograd()
    graph = replay(t["L"], names=t)
    label = graph.names(t)
    steps = [(graph.ops[s.op].op_type, [label[i] for i in graph.ops[s.op].input_ids],
              [None if g is None else float(g) for g in s.in_grads]) for s in graph.steps]
    assert steps == [("Mul", ["d", "f"], [-2.0, 4.0]), ("Add", ["e", "c"], [-2.0, -2.0]), ("Mul", ["a", "b"], [6.0, -4.0])]
    assert {name: float(graph.tensors[t[name]._id].grad_array) for name in "abcf"} == {"a": 6, "b": -4, "c": -2, "f": 4}
    assert all(t[name].grad is None for name in t)
    t["L"].backward()  # the user's graph is still there: replay used a copy of the tape
    assert [float(t[name].grad) for name in "abcf"] == [6.0, -4.0, -2.0, 4.0]


def test_a_tensor_used_twice_gets_two_gradients_and_the_sum_is_the_engine_s():
    x = mt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * x + x).sum()
    graph = replay(y)
    sent = [g for s in graph.steps for tid, g in zip(graph.ops[s.op].input_ids, s.in_grads) if tid == x._id]
    assert len(sent) == 3  # x*x reads it twice, + x once
    y.backward()
    np.testing.assert_array_equal(graph.tensors[x._id].grad_array, x.grad.numpy())


def test_replay_holds_back_retain_grad_and_names_what_it_cannot_do():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    loss = (h * h).sum()
    replay(loss)
    assert h.grad is None and x.grad is None
    loss.backward()
    assert h.grad is not None  # retain_grad still works afterwards
    with pytest.raises(RuntimeError, match="already freed"):
        replay(loss)
    with pytest.raises(RuntimeError, match="one number"):
        replay(x * 2)
    with pytest.raises(RuntimeError, match="no tape recorded"):
        replay(mt.tensor(1.0))


def test_sources_get_their_gradients_as_autograd_grad_gives_them():
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    h = mt.exp(x)
    loss = (h * h).sum()
    graph = replay(loss, sources=[h])
    (expected,) = mt.autograd.grad(loss, [h], retain_graph=True)
    assert graph.source_ids == [h._id]
    np.testing.assert_array_equal(graph.tensors[h._id].grad_array, expected.numpy())


def test_the_page_follows_the_documented_contract(tmp_path):
    t = micrograd()
    path = mt.viz.explore(t["L"], tmp_path / "backprop.html", names=t)
    text = Path(path).read_text()
    found = elements(text)
    tensors = {a["data-tensor"]: a for tag, a in found if "data-tensor" in a}
    ops = [(a["data-op"], a["data-step"]) for tag, a in found if "data-op" in a]
    assert set(tensors) == set(t)
    assert {name: json.loads(a["data-value"]) for name, a in tensors.items()} == {
        "a": 2, "b": -3, "c": 10, "f": -2, "e": -6, "d": 4, "L": -8}
    assert all(a["data-grad"] == "" for a in tensors.values())  # filled by the page, step by step
    assert ops == [("Mul", "3"), ("Add", "2"), ("Mul", "1")]
    ids = {a.get("id") for tag, a in found}
    assert {"step", "back", "run", "reset"} <= ids
    body = next(a for tag, a in found if tag == "body")
    assert (body["data-step"], body["data-steps"]) == ("0", "3")
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text  # (a namespace)
    assert all(not a.get("src") for tag, a in found)  # nothing to load: scripts and styles are inline


def test_the_page_s_data_come_from_the_pass_and_print_as_backward_s_grad(tmp_path):
    t = micrograd()
    text = Path(mt.viz.explore(t["L"], tmp_path / "p.html", names=t)).read_text()
    data = json.loads(text.split('<script type="application/json" id="replay-data">')[1].split("</script>")[0])
    assert [s["name"] for s in data["steps"]] == ["Mul", "Add", "Mul"]
    assert data["steps"][0]["sent"][0][1:4] == ["d", "-2", 1]
    grads = {g["name"]: g for g in data["gradients"].values()}
    assert {name: (json.loads(g["json"]), g["step"]) for name, g in grads.items()} == {
        "L": (1, 0), "d": (-2, 1), "f": (4, 1), "e": (-2, 2), "c": (-2, 2), "a": (6, 3), "b": (-4, 3)}
    t["L"].backward()
    assert grads["a"]["print"] == f"grad of a = {t['a'].grad!r}"


def test_a_captured_graph_is_explored_and_shows_itself_in_jupyter(tmp_path):
    x = mt.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, -0.1]], requires_grad=True)
    with mt.viz.capture(keep_values=True) as graph:
        (mt.tanh(x) * x).sum().backward()
    text = Path(mt.viz.explore(graph, tmp_path / "captured.html")).read_text()
    tensors = {a["data-tensor"]: a for tag, a in elements(text) if "data-tensor" in a}
    assert json.loads(tensors[graph.names()[x._id]]["data-value"]) == x.detach().tolist()
    shown = graph._repr_html_()
    assert shown.startswith("<iframe srcdoc=") and "data-tensor=" in shown


def test_explain_writes_the_page_with_html(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert explain.main(["--out", "graph.png", "--html", "steps.html"]) == 0
    assert "reverse pass, step by step: steps.html" in out.getvalue()
    found = elements((tmp_path / "steps.html").read_text())
    assert {a["data-tensor"] for tag, a in found if "data-tensor" in a} >= {"x", "0.weight", "2.bias"}


def _check(directory, *extra):
    out = io.StringIO()
    status = cli.main(["check", str(directory), *extra, "--no-train"], out=out)
    return status, out.getvalue()


def test_exercises_check_writes_the_page_and_marks_the_first_step_that_differs(tmp_path):
    right, wrong = tmp_path / "right", tmp_path / "wrong"
    right.mkdir()
    wrong.mkdir()
    shutil.copy(SOLUTIONS, right / "gradients.py")
    source = SOLUTIONS.read_text().replace("def tanh_grad(op, grad):", "def tanh_grad(op, grad):\n    return (grad * 2,)\n\n\ndef _unused(op, grad):")
    (wrong / "gradients.py").write_text(source)
    status, out = _check(right, "--html", str(tmp_path / "right.html"))
    assert status == 0 and "they agree with minitorch's" in out
    assert "data-first-difference" not in (tmp_path / "right.html").read_text()
    status, out = _check(wrong, "--html", str(tmp_path / "wrong.html"))
    text = (tmp_path / "wrong.html").read_text()
    body = next(a for tag, a in elements(text) if tag == "body")
    marked = next(a for tag, a in elements(text) if "data-op" in a and a["data-step"] == body["data-first-difference"])
    assert status == 1 and marked["data-op"] == "Tanh" and "differs" in marked["class"]
    assert f"step {body['data-first-difference']} is the first where yours differ" in out


def test_a_student_function_that_raises_is_replaced_and_its_step_marked(tmp_path):
    shutil.copy(SOLUTIONS, tmp_path / "gradients.py")
    source = SOLUTIONS.read_text().replace("def exp_grad(op, grad):", "def exp_grad(op, grad):\n    raise TypeError('oops')\n\n\ndef _unused(op, grad):")
    (tmp_path / "gradients.py").write_text(source)
    status, out = _check(tmp_path, "exp", "--html", str(tmp_path / "page.html"))
    text = (tmp_path / "page.html").read_text()
    body = next(a for tag, a in elements(text) if tag == "body")
    marked = next(a for tag, a in elements(text) if "data-op" in a and a["data-step"] == body["data-first-difference"])
    assert marked["data-op"] == "Exp" and "raised TypeError: oops; minitorch&#x27;s gradient was used" in text.replace("'", "&#x27;")
