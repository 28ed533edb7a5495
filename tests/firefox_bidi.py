"""A headless Firefox driven over WebDriver BiDi, with the few Selenium calls the browser tests make.

Selenium drives Firefox through geckodriver, which Debian does not package; Firefox itself (115 and
later) speaks the W3C WebDriver BiDi protocol on a WebSocket (--remote-debugging-port), and
websocket-client comes with selenium. So the browser tests run in Firefox wherever `firefox-esr` or
`firefox` is installed, with no driver: get, execute_script, find_element (click, text,
get_attribute, send_keys), get_log("browser") and the requests each page sent.

The protocol: https://w3c.github.io/webdriver-bidi/ (session.new, browsingContext.navigate,
script.callFunction, input.performActions, log.entryAdded, network.beforeRequestSent).
"""
import json
import shutil
import subprocess
import time
from pathlib import Path

import websocket

# Selenium's locators, as the page's own DOM calls.
ELEMENT_FINDERS = {
    "id": "document.getElementById(arguments[0])",
    "css selector": "document.querySelector(arguments[0])",
    "tag name": "document.getElementsByTagName(arguments[0])[0]",
}
# Quiet start: no first-run pages, no background fetches of a fresh profile's services.
PREFERENCES = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.safebrowsing.update.enabled": False,
    "app.update.disabledForTesting": True,
    "browser.newtabpage.activity-stream.feeds.system.topstories": False,
}


def find_firefox():
    """The Firefox executable's path, or None."""
    return shutil.which("firefox-esr") or shutil.which("firefox")


class Element:
    """A node of the page, as the BiDi shared reference Firefox gave for it."""

    def __init__(self, browser, reference):
        self.browser, self.reference = browser, reference

    def _read(self, script, *args):
        return self.browser.execute_script(script, self, *args)

    @property
    def text(self):
        """The rendered text; an SVG node has no innerText, so its textContent (Selenium's atom reads both)."""
        return self._read("return arguments[0].innerText ?? arguments[0].textContent")

    def get_attribute(self, name):
        """The property of that name where the node has one (innerHTML), else the attribute (class, data-op)."""
        return self._read("const [node, name] = arguments, v = node[name];"
                          "return (v === undefined || v === null || typeof v === 'object') ? node.getAttribute(name) : String(v)",
                          name)

    def click(self):
        """A real pointer click at the node's centre, as WebDriver's element click."""
        self.browser.pointer_click(self)

    def send_keys(self, keys):
        self._read("arguments[0].focus()")
        self.browser.press_keys(keys)


class Firefox:
    """A headless Firefox with a fresh profile, one tab, and its log and network events collected."""

    def __init__(self, executable, profile, timeout=60):
        profile = Path(profile)
        preferences = "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFERENCES.items())
        (profile / "user.js").write_text(preferences)
        self.process = subprocess.Popen([executable, "--headless", "--no-remote", "--profile", str(profile),
                                         "--remote-debugging-port=0", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.socket = websocket.create_connection(f"ws://127.0.0.1:{self._port(profile, timeout)}/session",
                                                  timeout=timeout, suppress_origin=True)
        self.next_id, self.log_entries, self.requests = 0, [], []
        self.command("session.new", {"capabilities": {}})
        self.command("session.subscribe", {"events": ["log.entryAdded", "network.beforeRequestSent"]})
        self.context = self.command("browsingContext.getTree", {})["contexts"][0]["context"]

    def _port(self, profile, timeout):
        """Firefox writes the port it chose into the profile once its BiDi server listens."""
        written = profile / "WebDriverBiDiServer.json"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Firefox exited with status {self.process.returncode} before listening")
            try:
                return json.loads(written.read_text())["ws_port"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.05)
        raise TimeoutError(f"Firefox did not start its WebDriver BiDi server in {timeout} s")

    def command(self, method, params):
        """Send one command and return its result; events that arrive meanwhile are kept."""
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("type") == "event":
                self._keep(message)
            elif message.get("id") == self.next_id:
                if message["type"] == "error":
                    raise RuntimeError(f"{method}: {message['error']}: {message.get('message')}")
                return message["result"]

    def _keep(self, event):
        params = event["params"]
        if event["method"] == "log.entryAdded":
            self.log_entries.append({"level": "SEVERE" if params["level"] == "error" else params["level"].upper(),
                                     "message": params.get("text")})
        elif event["method"] == "network.beforeRequestSent":
            self.requests.append((params.get("context"), params["request"]["url"]))

    # ----- what the tests call, named as Selenium's WebDriver names it -----

    def get(self, url):
        self.command("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def execute_script(self, script, *args):
        result = self.command("script.callFunction", {
            "functionDeclaration": f"function() {{ {script} }}", "awaitPromise": False,
            "target": {"context": self.context}, "arguments": [self._argument(a) for a in args]})
        if result["type"] == "exception":
            raise RuntimeError(f"script failed: {result['exceptionDetails'].get('text')}")
        return self._value(result["result"])

    def find_element(self, by, value):
        found = self.execute_script(f"return {ELEMENT_FINDERS[by]}", value)
        if found is None:
            raise LookupError(f"no element with {by} {value!r}")
        return found

    def get_log(self, kind):
        """The console entries since the last call, as Selenium's get_log('browser') gives them."""
        assert kind == "browser", kind
        self.command("session.status", {})  # a round trip: the events sent before its answer are read
        entries, self.log_entries = self.log_entries, []
        return entries

    def sent_requests(self):
        """(browsing context, url) of every request since the last call; the tab's context is .context."""
        self.command("session.status", {})
        sent, self.requests = self.requests, []
        return sent

    def pointer_click(self, element):
        self.command("input.performActions", {"context": self.context, "actions": [{
            "type": "pointer", "id": "mouse", "actions": [
                {"type": "pointerMove", "x": 0, "y": 0, "origin": {"type": "element", "element": element.reference}},
                {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]})

    def press_keys(self, keys):
        presses = [{"type": kind, "value": key} for key in keys for kind in ("keyDown", "keyUp")]
        self.command("input.performActions", {"context": self.context,
                                              "actions": [{"type": "key", "id": "keyboard", "actions": presses}]})

    def quit(self):
        try:
            self.command("session.end", {})
            self.socket.close()
        finally:
            self.process.terminate()
            self.process.wait(timeout=30)

    # ----- BiDi's serialised values -----

    def _argument(self, value):
        if isinstance(value, Element):
            return value.reference
        if isinstance(value, str):
            return {"type": "string", "value": value}
        raise TypeError(f"execute_script argument of type {type(value).__name__}")

    def _value(self, remote):
        kind = remote["type"]
        if kind in ("undefined", "null"):
            return None
        if kind == "number" and isinstance(remote["value"], str):  # NaN, Infinity, -0
            return float(remote["value"].replace("Infinity", "inf"))
        if kind in ("string", "number", "boolean"):
            return remote["value"]
        if kind == "array":
            return [self._value(item) for item in remote["value"]]
        if kind == "object":
            return {key: self._value(item) for key, item in remote["value"]}
        if kind == "node":
            return Element(self, {"sharedId": remote["sharedId"]})
        raise TypeError(f"a script returned a {kind}")
