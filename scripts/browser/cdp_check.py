#!/usr/bin/env python3
"""Runs a browser scenario against Herald's status pages in headless Chromium, over the Chrome
DevTools Protocol, and exits non-zero naming the step that failed.

A scenario is a JSON file: a list of steps, or {"vars": {...}, "steps": [...]}. Every string in it
may use ${name}, filled from "vars" and then from --var name=value. Steps:

  {"open": URL}                                navigate and wait for the load event
  {"expect": SELECTOR, "within": S}            poll until document.querySelector finds it
  {"expectNone": SELECTOR}                     it must not be there right now
  {"expectText": SELECTOR, "contains": TEXT, "within": S}
  {"expectChange": SELECTOR, "within": S}      its text must change (the page refreshes itself)
  {"click": SELECTOR}
  {"screenshot": PATH}                         full page PNG at the 1280x900 viewport's width
  {"header": {NAME: VALUE}}                    extra headers on every later request; empty
                                               values are left out
  {"sleep": S}

Polling never reloads the page, so a row that turns up proves the page updated itself. The run
also fails on an uncaught exception, a console error, a failed request logged by the page, an
HTTP error for a document it opened, or the page navigating away by itself.

Exit status: 0 passed, 1 a step failed, 2 the browser or the scenario could not be set up.
"""

import argparse
import base64
import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import websocket

VIEWPORT = (1280, 900)
DEFAULT_WITHIN = 10.0
OPEN_TIMEOUT = 30.0
POLL_INTERVAL = 0.1
DUMP_LIMIT = 4000


class SetupError(Exception):
    """The browser or the scenario could not be set up (exit 2)."""


class StepFailure(Exception):
    """A step did not hold (exit 1)."""


def log(message):
    print(message, flush=True)


# ---- Chromium ---------------------------------------------------------------------------------

def find_chromium(explicit):
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise SetupError("--chromium %s is not an executable file" % explicit)
    candidates = [os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                  shutil.which("chromium-browser")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise SetupError("cannot find chromium (tried --chromium, $CHROMIUM, /usr/bin/chromium and PATH); "
                     "install it with `apt-get install -y chromium` (scripts/install-deps.sh does)")


def die_with_parent():
    # Runs in the child before exec: if this script dies, even by SIGKILL, Chromium goes too.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


class Browser:
    def __init__(self, executable):
        self.directory = tempfile.mkdtemp(prefix="herald-cdp-")
        self.profile = os.path.join(self.directory, "profile")
        self.log_path = os.path.join(self.directory, "chromium.log")
        self.process = None
        arguments = [
            executable,
            "--headless=new",
            "--remote-debugging-port=0",
            "--user-data-dir=" + self.profile,
            "--window-size=%d,%d" % VIEWPORT,
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-features=Translate,MediaRouter,OptimizationHints",
            "--hide-scrollbars",
            "--mute-audio",
            "--password-store=basic",
            "about:blank",
        ]
        # Chromium refuses to run as root with its sandbox on; the pages are ours, on loopback.
        if os.geteuid() == 0:
            arguments.insert(1, "--no-sandbox")
        with open(self.log_path, "wb") as output:
            self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=output, stderr=output,
                                            start_new_session=True, preexec_fn=die_with_parent)

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, errors="replace") as handle:
                return "".join(handle.readlines()[-lines:])
        except OSError:
            return ""

    def wait_for_port(self, timeout=30.0):
        """The port Chromium chose, from DevToolsActivePort in its profile."""
        path = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SetupError("chromium exited with status %s before it listened:\n%s"
                                 % (self.process.returncode, self.log_tail()))
            try:
                with open(path) as handle:
                    first = handle.readline().strip()
                if first.isdigit():
                    return int(first)
            except OSError:
                pass
            time.sleep(0.05)
        raise SetupError("chromium did not write DevToolsActivePort within %d s:\n%s" % (timeout, self.log_tail()))

    def close(self):
        if self.process is not None and self.process.poll() is None:
            # Its own process group: the browser and every helper process it started.
            for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.process.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self.process is not None:
            # Helpers can outlive the browser for a moment; leave none behind.
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        shutil.rmtree(self.directory, ignore_errors=True)


# ---- DevTools connection ----------------------------------------------------------------------

class Page:
    """One page target: commands in order, events gathered while waiting for replies."""

    def __init__(self, port):
        self.port = port
        targets = self._json("/json/list")
        pages = [target for target in targets if target.get("type") == "page"]
        if not pages:
            pages = [self._json("/json/new?about:blank", method="PUT")]
        # Without an Origin header: Chromium only accepts DevTools clients it was told to trust
        # from web origins.
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30,
                                                  suppress_origin=True, enable_multithread=False)
        self.next_id = 0
        self.problems = []            # fatal things the page did, as text
        self.documents = {}           # loaderId -> (url, status) for main frame documents
        self.main_frame = None
        self.navigations = 0          # main frame navigations seen
        self.loaded = False

    def _json(self, path, method="GET"):
        request = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), method=method)
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.loads(reply.read())

    def send(self, method, params=None, timeout=30.0):
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline - time.monotonic())
            if message is None:
                raise StepFailure("no answer to %s within %d s" % (method, timeout))
            if message.get("id") == ident:
                if "error" in message:
                    raise StepFailure("%s failed: %s" % (method, message["error"].get("message")))
                return message.get("result", {})

    def pump(self, seconds):
        """Handles events for `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._receive(deadline - time.monotonic())

    def _receive(self, remaining):
        if remaining <= 0:
            return None
        self.socket.settimeout(max(remaining, 0.01))
        try:
            raw = self.socket.recv()
        except websocket.WebSocketTimeoutException:
            return None
        except (websocket.WebSocketConnectionClosedException, ConnectionError) as error:
            raise StepFailure("the DevTools connection closed (did chromium crash?): %s" % error)
        message = json.loads(raw)
        if "method" in message:
            self._event(message["method"], message.get("params", {}))
        return message

    def _event(self, method, params):
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exception = details.get("exception", {})
            text = exception.get("description") or details.get("text") or "uncaught exception"
            where = "%s:%s" % (details.get("url", "?"), details.get("lineNumber", "?"))
            self.problems.append("uncaught JavaScript exception at %s: %s" % (where, text))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            parts = [argument.get("value", argument.get("description", "")) for argument in params.get("args", [])]
            self.problems.append("console.%s: %s" % (params.get("type"), " ".join(str(part) for part in parts)))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            # The browser asks for a favicon on its own; a missing one is not the page's fault.
            if entry.get("level") == "error" and not entry.get("url", "").endswith("/favicon.ico"):
                self.problems.append("%s error: %s %s" % (entry.get("source"), entry.get("text"), entry.get("url", "")))
        elif method == "Network.responseReceived" and params.get("type") == "Document":
            response = params.get("response", {})
            if params.get("frameId") == self.main_frame or self.main_frame is None:
                self.documents[params.get("loaderId")] = (response.get("url"), response.get("status"))
        elif method == "Network.loadingFailed" and params.get("type") == "Document":
            if not params.get("canceled"):
                self.problems.append("the document failed to load: %s" % params.get("errorText"))
        elif method == "Page.frameNavigated":
            frame = params.get("frame", {})
            if not frame.get("parentId"):
                self.main_frame = frame.get("id")
                self.navigations += 1
        elif method == "Page.loadEventFired":
            self.loaded = True

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise StepFailure("evaluating %s threw: %s" % (expression, text))
        return result.get("result", {}).get("value")

    def check(self):
        if self.problems:
            raise StepFailure("; ".join(self.problems))

    def close(self):
        try:
            self.socket.close()
        except Exception:
            pass


# ---- Steps ------------------------------------------------------------------------------------

def js(value):
    return json.dumps(value)


def poll(page, within, condition, describe):
    """Polls `condition()` (JavaScript evaluated in the page) until true; never reloads."""
    deadline = time.monotonic() + within
    while True:
        page.check()
        if condition():
            return
        if time.monotonic() >= deadline:
            raise StepFailure("%s within %.1f s" % (describe, within))
        page.pump(POLL_INTERVAL)


def step_open(page, url, _step):
    page.loaded = False
    before = page.navigations
    result = page.send("Page.navigate", {"url": url})
    if result.get("errorText"):
        raise StepFailure("cannot open %s: %s" % (url, result["errorText"]))
    loader = result.get("loaderId")
    deadline = time.monotonic() + OPEN_TIMEOUT
    while not page.loaded:
        if time.monotonic() >= deadline:
            raise StepFailure("%s did not finish loading within %d s" % (url, OPEN_TIMEOUT))
        page.pump(POLL_INTERVAL)
    page.expected_navigations = page.navigations
    if page.navigations == before:
        raise StepFailure("opening %s navigated nowhere" % url)
    document = page.documents.get(loader)
    if document is None:
        raise StepFailure("no HTTP response was seen for %s" % url)
    if document[1] is None or document[1] >= 400:
        raise StepFailure("%s answered HTTP %s" % (document[0], document[1]))
    page.check()


def step_expect(page, selector, step):
    within = float(step.get("within", DEFAULT_WITHIN))
    poll(page, within, lambda: page.evaluate("document.querySelector(%s) !== null" % js(selector)),
         "nothing matched %s" % selector)


def step_expect_none(page, selector, _step):
    page.check()
    if page.evaluate("document.querySelector(%s) !== null" % js(selector)):
        raise StepFailure("%s is already there" % selector)


def step_expect_text(page, selector, step):
    text = step.get("contains")
    if not isinstance(text, str):
        raise SetupError("expectText needs \"contains\": TEXT")
    within = float(step.get("within", DEFAULT_WITHIN))
    expression = "(e => e !== null && e.innerText.includes(%s))(document.querySelector(%s))" % (js(text), js(selector))
    poll(page, within, lambda: page.evaluate(expression), "%s never contained %r" % (selector, text))


def step_expect_change(page, selector, step):
    within = float(step.get("within", DEFAULT_WITHIN))
    expression = "(e => e === null ? null : e.innerText)(document.querySelector(%s))" % js(selector)
    first = page.evaluate(expression)
    if first is None:
        raise StepFailure("nothing matched %s" % selector)
    poll(page, within, lambda: page.evaluate(expression) not in (first, None),
         "%s stayed %r (the page did not refresh itself)" % (selector, first))


def step_click(page, selector, _step):
    page.check()
    clicked = page.evaluate("(e => { if (e === null) return false; e.click(); return true; })"
                            "(document.querySelector(%s))" % js(selector))
    if not clicked:
        raise StepFailure("nothing matched %s to click" % selector)


def step_screenshot(page, path, _step):
    page.check()
    metrics = page.send("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
    width = max(VIEWPORT[0], int(size.get("width", VIEWPORT[0])))
    height = max(VIEWPORT[1], int(size.get("height", VIEWPORT[1])))
    shot = page.send("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
    })
    path = os.path.abspath(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(base64.b64decode(shot["data"]))
    log("  screenshot %s (%dx%d)" % (path, width, height))


def step_header(page, headers, _step):
    if not isinstance(headers, dict):
        raise SetupError("header needs an object of NAME: VALUE")
    kept = {name: str(value) for name, value in headers.items() if str(value) != ""}
    page.headers.update(kept)
    page.send("Network.setExtraHTTPHeaders", {"headers": page.headers})


def step_sleep(page, seconds, _step):
    page.pump(float(seconds))
    page.check()


STEPS = {
    "open": step_open,
    "expect": step_expect,
    "expectNone": step_expect_none,
    "expectText": step_expect_text,
    "expectChange": step_expect_change,
    "click": step_click,
    "screenshot": step_screenshot,
    "header": step_header,
    "sleep": step_sleep,
}


def describe(step):
    return json.dumps(step, separators=(",", ":"))


def dump(page):
    """What the page shows, to read in a failure."""
    try:
        text = page.evaluate("document.body ? document.body.innerText : ''") or ""
        html = page.evaluate("(document.querySelector('main') || document.documentElement || {outerHTML: ''}).outerHTML") or ""
        url = page.evaluate("location.href")
    except StepFailure as error:
        return "(could not read the page: %s)" % error
    return ("--- page %s\n--- document.body.innerText:\n%s\n--- <main> outerHTML (first %d characters):\n%s"
            % (url, text[:DUMP_LIMIT], DUMP_LIMIT, html[:DUMP_LIMIT]))


# ---- Scenario ---------------------------------------------------------------------------------

def substitute(value, variables):
    if isinstance(value, str):
        def replace(match):
            name = match.group(1)
            if name not in variables:
                raise SetupError("the scenario uses ${%s}, which no var sets (use --var %s=VALUE)" % (name, name))
            return variables[name]
        return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", replace, value)
    if isinstance(value, list):
        return [substitute(item, variables) for item in value]
    if isinstance(value, dict):
        return {substitute(key, variables): substitute(item, variables) for key, item in value.items()}
    return value


def load_scenario(path, assignments, base_url):
    try:
        with open(path) as handle:
            scenario = json.load(handle)
    except (OSError, ValueError) as error:
        raise SetupError("cannot read the scenario %s: %s" % (path, error))
    variables = {}
    steps = scenario
    if isinstance(scenario, dict):
        variables.update({key: str(value) for key, value in scenario.get("vars", {}).items()})
        steps = scenario.get("steps")
    for assignment in assignments:
        name, equals, value = assignment.partition("=")
        if not equals:
            raise SetupError("--var wants NAME=VALUE, not %r" % assignment)
        variables[name] = value
    if not isinstance(steps, list) or not steps:
        raise SetupError("the scenario has no steps")
    steps = substitute(steps, variables)
    for index, step in enumerate(steps, 1):
        kinds = [key for key in step if key in STEPS] if isinstance(step, dict) else []
        if len(kinds) != 1:
            raise SetupError("step %d %s names no single action of: %s" % (index, json.dumps(step), ", ".join(STEPS)))
        if kinds[0] == "open":
            if base_url:
                step["open"] = urllib.parse.urljoin(base_url, step["open"])
            if not urllib.parse.urlsplit(step["open"]).scheme:
                raise SetupError("step %d opens %s, a relative URL: give --base-url" % (index, step["open"]))
    return steps


def run(steps, chromium):
    started = time.monotonic()
    browser = Browser(chromium)
    page = None
    try:
        port = browser.wait_for_port()
        try:
            page = Page(port)
        except (OSError, ValueError, websocket.WebSocketException) as error:
            raise SetupError("cannot attach to chromium's DevTools on port %d: %s\n%s" % (port, error, browser.log_tail()))
        page.headers = {}
        page.expected_navigations = 0
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(domain + ".enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False})
        log("chromium up in %.1f s (DevTools port %d)" % (time.monotonic() - started, port))
        for index, step in enumerate(steps, 1):
            kind = next(key for key in step if key in STEPS)
            began = time.monotonic()
            try:
                STEPS[kind](page, step[kind], step)
                if kind != "open" and page.navigations != page.expected_navigations:
                    raise StepFailure("the page navigated by itself (a reload?); it must update <main> in place")
                page.check()
            except StepFailure as failure:
                raise StepFailure("step %d %s failed after %.1f s: %s\n%s"
                                  % (index, describe(step), time.monotonic() - began, failure, dump(page)))
            log("ok %d %s (%.1f s)" % (index, describe(step), time.monotonic() - began))
        log("browser scenario passed: %d steps in %.1f s" % (len(steps), time.monotonic() - started))
    finally:
        if page is not None:
            page.close()
        browser.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", help="the scenario's JSON file")
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE", help="fills ${NAME} in the scenario")
    parser.add_argument("--base-url", help="resolves relative URLs of open steps, e.g. http://127.0.0.1:8580")
    parser.add_argument("--chromium", help="the browser executable (default: $CHROMIUM, then /usr/bin/chromium)")
    arguments = parser.parse_args()

    # A TERM from whoever runs us still closes the browser and removes its directory.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        steps = load_scenario(arguments.scenario, arguments.var, arguments.base_url)
        run(steps, find_chromium(arguments.chromium))
    except SetupError as error:
        print("browser scenario could not run: %s" % error, file=sys.stderr, flush=True)
        return 2
    except StepFailure as failure:
        print("browser scenario FAILED: %s" % failure, file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
