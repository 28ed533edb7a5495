"""mt.viz.explore's page in a real browser, over the documented DOM contract (docs/explore.md): Selenium
drives headless Chromium; Firefox is driven over WebDriver BiDi by tests/firefox_bidi.py (Debian packages
no geckodriver). Each browser's tests skip, with the reason, where it is not installed.

Debian: apt-get install chromium chromium-driver (and firefox-esr); pip install selenium (the test extra).
"""
import importlib.util
import json
import shutil
import socket
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import minitorch as mt
from minitorch import nn
from minitorch.examples.mlp import MLP

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
import firefox_bidi  # noqa: E402  (it needs websocket-client, which comes with selenium)


def _script():
    """scripts/make_explore_screenshot.py, which starts Chromium for the docs' screenshot as for these tests."""
    path = Path(__file__).resolve().parent.parent / "scripts" / "make_explore_screenshot.py"
    spec = importlib.util.spec_from_file_location("make_explore_screenshot", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
CHROMIUM = SCRIPT.find_chromium()
FIREFOX = firefox_bidi.find_firefox()
BROWSERS = [
    pytest.param("chromium", marks=pytest.mark.skipif(
        CHROMIUM is None, reason="no Chromium with its driver installed (Debian: apt-get install chromium chromium-driver)")),
    pytest.param("firefox", marks=pytest.mark.skipif(
        FIREFOX is None, reason="no Firefox installed (Debian: apt-get install firefox-esr)")),
]


@pytest.fixture(scope="module", params=BROWSERS)
def browser(request):
    profile = tempfile.mkdtemp(prefix=f"minitorch-{request.param}-")
    if request.param == "chromium":
        driver = SCRIPT.start_chromium(webdriver, *CHROMIUM, profile, logs=True)
    else:
        driver = firefox_bidi.Firefox(FIREFOX, profile)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def open_page(browser, path):
    browser.get(Path(path).resolve().as_uri())
    for _ in range(200):
        if browser.execute_script("return document.body.dataset.ready") == "true":
            break
        time.sleep(0.01)
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors


def click(browser, control):
    browser.find_element("id", control).click()


def step_number(browser):
    return int(browser.execute_script("return document.body.dataset.step"))


def grads(browser):
    """data-tensor -> its data-grad, read as JSON (None while empty)."""
    found = browser.execute_script(
        "return Array.from(document.querySelectorAll('[data-tensor]')).map(e => [e.dataset.tensor, e.dataset.grad])")
    return {name: json.loads(grad) if grad else None for name, grad in found}


def state(browser):
    """Everything a step changes: the tensors' data-grad and classes, the ops' classes, the panel, the badges."""
    return browser.execute_script("""
        const all = (selector, f) => Array.from(document.querySelectorAll(selector)).map(f);
        return [document.body.dataset.step, all('[data-tensor]', e => [e.dataset.grad, e.getAttribute('class')]),
                all('[data-op]', e => e.getAttribute('class')), document.getElementById('panel').textContent,
                all('text.badge', e => e.textContent), all('text.grad', e => e.textContent)];""")


def test_micrograd_steps_one_op_at_a_time_to_the_hand_computed_gradients(browser, tmp_path):
    a, b = mt.tensor(2.0, requires_grad=True), mt.tensor(-3.0, requires_grad=True)
    c, f = mt.tensor(10.0, requires_grad=True), mt.tensor(-2.0, requires_grad=True)
    e = a * b
    d = e + c
    L = d * f
    names = dict(a=a, b=b, c=c, f=f, e=e, d=d, L=L)
    open_page(browser, mt.viz.explore(L, tmp_path / "micrograd.html", names=names))
    assert browser.execute_script("return document.body.dataset.steps") == "3"
    # By hand: dL/dL = 1; L = d f: dL/dd = f = -2, dL/df = d = 4; d = e + c: both -2; e = a b: dL/da = b (-2) = 6,
    # dL/db = a (-2) = -4.
    expected = [{"L": 1},
                {"L": 1, "d": -2, "f": 4},
                {"L": 1, "d": -2, "f": 4, "e": -2, "c": -2},
                {"L": 1, "d": -2, "f": 4, "e": -2, "c": -2, "a": 6, "b": -4}]
    ops = ["Mul", "Add", "Mul"]
    for k, known in enumerate(expected):
        if k:
            click(browser, "step")
        assert step_number(browser) == k
        assert {name: g for name, g in grads(browser).items() if g is not None} == known
        if k:
            current = browser.find_element("css selector", ".op.current")
            assert (current.get_attribute("data-op"), current.get_attribute("data-step")) == (ops[k - 1], str(k))
            assert "formula" in browser.find_element("id", "panel").get_attribute("innerHTML")
    assert browser.find_element("id", "panel").text.count("e ←") == 0
    assert "a ← 6" in browser.find_element("id", "panel").text and "d(xy) = y dx + x dy." in browser.find_element("id", "panel").text


def test_a_tensor_used_twice_shows_the_second_gradient_added(browser, tmp_path):
    x = mt.tensor([0.5, -1.0], requires_grad=True)
    y = x * 3
    loss = (y * x).sum()  # x is read by both Mul ops: two gradients reach it
    open_page(browser, mt.viz.explore(loss, tmp_path / "twice.html", names={"x": x, "y": y}))
    seen = []
    for _ in range(int(browser.execute_script("return document.body.dataset.steps"))):
        click(browser, "step")
        badge = browser.find_element("css selector", "[data-tensor='x'] text.badge").text
        seen.append((badge, grads(browser)["x"]))
    assert seen[-1][0] == "+="  # the last step sends x its second gradient
    assert all(grad is None for _, grad in seen[:-1])  # incomplete until then
    assert "x += " in browser.find_element("id", "panel").text
    loss.backward()
    assert seen[-1][1] == pytest.approx(x.grad.tolist())


def _leaf_grads_equal_backward(browser, path, model, loss):
    open_page(browser, path)
    click(browser, "run")
    shown = grads(browser)
    loss.backward()
    named = dict(model.named_parameters())
    assert set(named) <= set(shown)
    for name, parameter in named.items():
        got = np.asarray(shown[name], dtype=np.float64).astype(parameter.grad.numpy().dtype)
        np.testing.assert_array_equal(got, parameter.grad.numpy(), err_msg=name)


def test_mlp_every_leaf_shows_the_gradient_backward_gives(browser, tmp_path):
    mt.manual_seed(0)
    model = MLP()
    images, labels = mt.randn(3, 1, 28, 28), mt.tensor([1, 4, 9])
    loss = nn.functional.cross_entropy(model(images), labels)
    path = mt.viz.explore(loss, tmp_path / "mlp.html", names={"images": images, "labels": labels}, group_by=model)
    _leaf_grads_equal_backward(browser, path, model, loss)


class LeNet(nn.Module):
    """LeCun's LeNet-5 on 28x28 images: two conv, two pool, three linear layers."""

    def __init__(self):
        super().__init__()
        self.conv1, self.pool1 = nn.Conv2d(1, 6, 5, padding=2), nn.MaxPool2d(2)
        self.conv2, self.pool2 = nn.Conv2d(6, 16, 5), nn.MaxPool2d(2)
        self.fc1, self.fc2, self.fc3 = nn.Linear(16 * 5 * 5, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool2(mt.relu(self.conv2(self.pool1(mt.relu(self.conv1(x))))))
        return self.fc3(mt.relu(self.fc2(mt.relu(self.fc1(x.flatten(1))))))


def lenet_loss():
    mt.manual_seed(0)
    model = LeNet()
    images, labels = mt.randn(4, 1, 28, 28), mt.tensor([0, 3, 5, 7])
    return model, nn.functional.cross_entropy(model(images), labels), {"images": images, "labels": labels}


def test_lenet_every_leaf_shows_the_gradient_backward_gives(browser, tmp_path):
    model, loss, names = lenet_loss()
    path = mt.viz.explore(loss, tmp_path / "lenet.html", names=names, group_by=model)
    _leaf_grads_equal_backward(browser, path, model, loss)


def test_lenet_loads_in_under_2_s_and_steps_in_under_100_ms(browser, tmp_path):
    model, loss, names = lenet_loss()
    path = mt.viz.explore(loss, tmp_path / "lenet.html", names=names, group_by=model)
    start = time.perf_counter()
    open_page(browser, path)
    loaded = time.perf_counter() - start
    # Each click's handler runs synchronously: its time, and the layout it causes, measured in the page.
    per_step = browser.execute_script("""
        const times = [];
        for (let k = 0; k < Number(document.body.dataset.steps); k++) {
          const start = performance.now();
          document.getElementById('step').click();
          document.body.getBoundingClientRect();
          times.push(performance.now() - start);
        }
        return times;""")
    assert loaded < 2.0, f"the LeNet page took {loaded:.2f} s to load"
    assert max(per_step) < 100, f"the slowest step took {max(per_step):.0f} ms"


def test_back_after_step_restores_the_previous_state(browser, tmp_path):
    mt.manual_seed(1)
    model = MLP()
    loss = nn.functional.cross_entropy(model(mt.randn(2, 1, 28, 28)), mt.tensor([2, 5]))
    open_page(browser, mt.viz.explore(loss, tmp_path / "mlp.html", group_by=model))
    steps = int(browser.execute_script("return document.body.dataset.steps"))
    for k in range(steps):
        before = state(browser)
        click(browser, "step")
        assert state(browser) != before
        click(browser, "back")
        assert state(browser) == before, f"Back after step {k + 1} did not restore step {k}"
        click(browser, "step")
    end = state(browser)
    click(browser, "reset")
    assert step_number(browser) == 0
    click(browser, "run")
    assert state(browser) == end
    browser.find_element("tag name", "body").send_keys("\ue012")  # the left arrow key: back
    assert step_number(browser) == steps - 1


def test_a_folded_module_unfolds_on_click(browser, tmp_path):
    model, loss, names = lenet_loss()
    open_page(browser, mt.viz.explore(loss, tmp_path / "lenet.html", names=names, group_by=model))
    cover = browser.find_element("css selector", ".cover[data-module='fc1']")
    assert "folded" in cover.get_attribute("class")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cover)
    assert "folded" not in cover.get_attribute("class")


def sent_requests(browser, path):
    """(the URLs the page itself asked for, every URL any tab asked for) since the last call."""
    if isinstance(browser, firefox_bidi.Firefox):
        sent = browser.sent_requests()
        return [url for context, url in sent if context == browser.context], [url for _, url in sent]
    events = [json.loads(entry["message"])["message"] for entry in browser.get_log("performance")]
    sent = [e["params"] for e in events if e["method"] == "Network.requestWillBeSent"]
    # The page's own requests; Chromium's internal pages (its new-tab page's chrome:// resources) may log theirs too.
    return [p["request"]["url"] for p in sent if p.get("documentURL") == path.as_uri()], [p["request"]["url"] for p in sent]


def test_no_request_leaves_the_page(browser, tmp_path):
    model, loss, names = lenet_loss()
    path = Path(mt.viz.explore(loss, tmp_path / "lenet.html", names=names, group_by=model)).resolve()
    sent_requests(browser, path)  # what the browser did before this test
    open_page(browser, path)
    click(browser, "run")
    click(browser, "reset")
    by_page, everything = sent_requests(browser, path)
    if isinstance(browser, webdriver.Chrome):  # Firefox's network events leave out file:// loads
        assert path.as_uri() in by_page
    assert [url for url in by_page if url != path.as_uri() and not url.startswith("data:")] == []
    # And nothing, from any page, went to the network.
    assert [url for url in everything if url.split(":")[0] in ("http", "https", "ws", "wss")] == []
    # The page loaded its own file and nothing else (the Resource Timing API lists every fetch it made).
    assert browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)") == []


def test_the_request_watch_sees_a_page_that_fetches(browser, tmp_path):
    """The check above can fail: a page with an image on a closed local port is caught by both watches."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/picture.png"
    path = tmp_path / "fetches.html"
    path.write_text(f'<html><body><img src="{url}"></body></html>')
    sent_requests(browser, path)
    browser.get(path.as_uri())
    by_page, everything = sent_requests(browser, path)
    assert url in by_page and url in everything
