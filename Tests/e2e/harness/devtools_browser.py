"""Debian's Chromium, headless, driven over the Chrome DevTools Protocol, for pages that keep running.

`chromium.dump_dom` sees a page once, under virtual time. The admin pages poll their listener with `setTimeout`
and rewrite their DOM, so a test needs a live page in real time: wait until the DOM says what it should, read
facts from it, take a screenshot, and learn every URL it fetched and every alert, exception or console error
it produced along the way.

One websocket to the browser endpoint carries everything: each page is a target attached with
`Target.attachToTarget(flatten=True)`, and its commands and events carry that session's id. The per-page
endpoints from `/json/new` would need one connection per page and an HTTP PUT first; the browser endpoint is
named in `DevToolsActivePort` as soon as Chromium listens, so nothing is guessed and one reader sees all.

Only the caller's thread reads the websocket: every command waits for its reply by id and, while it waits,
hands each event to the page whose session it names. A dialog is dismissed the moment its event is read,
because an open `alert()` stops the page's scripts (and any `Runtime.evaluate`) until someone answers it.
"""

import base64
import inspect
import itertools
import json
import os
import signal
import time
from pathlib import Path
from typing import Callable

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from .chromium import NOT_INSTALLED, chromium_binary
from .ports import LOOPBACK
from .processes import STOP_GRACE_SECONDS, ManagedProcess

# Chromium writes its DevTools port here once it listens; a loaded 2-core machine can take a while to start it.
ACTIVE_PORT_FILE = "DevToolsActivePort"
ACTIVE_PORT_SECONDS = 30.0
# Pause between looks at the port file.
ACTIVE_PORT_POLL_SECONDS = 0.05
# How long one protocol command may wait for its reply; commands answer in milliseconds unless Chromium is stuck.
COMMAND_SECONDS = 30.0
# How long `open` waits for the page's load event (the page and everything it refers to).
LOAD_SECONDS = 30.0
# `wait_for`: default patience, and the pause between evaluations during which events are still read.
WAIT_SECONDS = 15.0
WAIT_POLL_SECONDS = 0.1
# Screenshots and layout at a fixed size, so pictures compare across machines (scale 1: one CSS pixel, one pixel).
VIEWPORT_WIDTH = 1280
VIEWPORT_HEIGHT = 800
# How long a minimized or restored window may take to change the page's document.visibilityState.
VISIBILITY_SECONDS = 5.0
# How long the websocket closing handshake may take before the socket is dropped.
WEBSOCKET_CLOSE_SECONDS = 2.0
# Only the end of Chromium's stderr is worth showing when it fails.
STDERR_TAIL_CHARACTERS = 4000

# Chromium fails every host name, and every address literal too, unless a rule excludes it (the literal is matched
# as text). The tests load pages from loopback addresses only: 127.0.0.1 for the admin listener, 127.0.0.x for
# "another site", ::1 for an IPv6 listener. Literals need no lookup; no name is looked up, so no query leaves the
# machine. (A name spelt `127.0.0.<word>` would be looked up; no test uses one.)
LOOPBACK_ONLY_RULES = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.*, EXCLUDE ::1"

# The one-shot helper's flags (`chromium.dump_dom`) without its proxy and virtual time: a fresh profile and
# nothing that phones home.
CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--no-first-run", "--no-default-browser-check",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
    f"--host-resolver-rules={LOOPBACK_ONLY_RULES}",
    # Port 0: Chromium picks a free port and names it in DevToolsActivePort, so parallel browsers never clash.
    "--remote-debugging-port=0",
    f"--window-size={VIEWPORT_WIDTH},{VIEWPORT_HEIGHT}",
)


class ChromiumNotInstalled(RuntimeError):
    """Raised before anything starts; callers turn it into `pytest.skip(str(error))`."""


class DevtoolsError(RuntimeError):
    """Chromium refused a command, went away, or a page's script threw."""


class DevtoolsTimeout(DevtoolsError):
    pass


class ScriptException(DevtoolsError):
    """The evaluated expression threw; the message is Chromium's description of the exception."""


def _connect_options() -> dict:
    """websockets 15 and later honour *_proxy environment variables; the browser is on loopback, never proxied."""
    options = {"max_size": None, "open_timeout": COMMAND_SECONDS, "close_timeout": WEBSOCKET_CLOSE_SECONDS,
               # Keepalive pings would only add a thread's traffic; a dead browser shows as a closed socket.
               "ping_interval": None}
    if "proxy" in inspect.signature(connect).parameters:
        options["proxy"] = None
    return options


class _DevtoolsConnection:
    """The browser websocket: commands matched to replies by id, events handed to the listener of their session.

    Reading happens only inside `call` and `read_events`, on the caller's thread; listeners may `send` from
    inside an event (a dialog's answer) but must not `call`, which would read recursively."""

    def __init__(self, websocket: ClientConnection, describe_browser: Callable[[], str]):
        self._websocket = websocket
        self._describe_browser = describe_browser
        self._ids = itertools.count(1)
        # Session id ("" for the browser itself) -> listener(method, params).
        self._listeners: dict[str, Callable[[str, dict], None]] = {}

    def listen(self, session_id: str, listener: Callable[[str, dict], None]) -> None:
        self._listeners[session_id] = listener

    def forget(self, session_id: str) -> None:
        self._listeners.pop(session_id, None)

    def send(self, method: str, params: dict | None = None, session_id: str | None = None) -> int:
        """Sends without waiting; the reply, when read, is dropped."""
        message_id = next(self._ids)
        message = {"id": message_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        try:
            self._websocket.send(json.dumps(message))
        except ConnectionClosed as closed:
            raise DevtoolsError(f"{method}: the DevTools connection closed ({closed})\n"
                                f"{self._describe_browser()}") from closed
        return message_id

    def call(self, method: str, params: dict | None = None, session_id: str | None = None,
             timeout: float = COMMAND_SECONDS) -> dict:
        message_id = self.send(method, params, session_id)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DevtoolsTimeout(f"{method} had no reply within {timeout}s\n{self._describe_browser()}")
            message = self._read_one(remaining)
            if message is None or message.get("id") != message_id:
                continue
            if "error" in message:
                raise DevtoolsError(f"{method} failed: {message['error']}")
            return message.get("result", {})

    def read_events(self, seconds: float) -> None:
        """Reads and dispatches whatever arrives for `seconds`; 0 takes only what is already here."""
        deadline = time.monotonic() + seconds
        while True:
            if self._read_one(max(0.0, deadline - time.monotonic())) is None and time.monotonic() >= deadline:
                return

    def close(self) -> None:
        self._websocket.close()

    def _read_one(self, timeout: float) -> dict | None:
        """One message, its event (if it is one) already dispatched; None when nothing came within `timeout`."""
        try:
            text = self._websocket.recv(timeout=timeout)
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            raise DevtoolsError(f"the DevTools connection closed ({closed})\n{self._describe_browser()}") from closed
        message = json.loads(text)
        if "method" in message:
            listener = self._listeners.get(message.get("sessionId", ""))
            if listener is not None:
                listener(message["method"], message.get("params", {}))
        return message


class DevtoolsPage:
    """One tab, attached with its own session: Page, Runtime, Network and Log events are recorded from the moment
    it opens, in the order Chromium sent them."""

    def __init__(self, connection: _DevtoolsConnection, target_id: str, session_id: str):
        self._connection = connection
        self.target_id = target_id
        self.session_id = session_id
        self._requested_urls: list[str] = []
        self._dialogs: list[str] = []
        self._exceptions: list[str] = []
        self._console_errors: list[str] = []
        # Lifecycle events as (loaderId, name): a navigation is loaded when its own loader reports "load".
        self._lifecycle: list[tuple[str, str]] = []
        self._hidden = False
        self._gone: str | None = None
        connection.listen(session_id, self._on_event)

    # --- what the page did, read so far -------------------------------------------------------------------

    @property
    def requested_urls(self) -> list[str]:
        """Every request the page's frames sent since `open`, redirects included, in order."""
        self._connection.read_events(0)
        return list(self._requested_urls)

    @property
    def dialogs(self) -> list[str]:
        """Messages of alert/confirm/prompt/beforeunload dialogs, each dismissed as soon as it opened."""
        self._connection.read_events(0)
        return list(self._dialogs)

    @property
    def exceptions(self) -> list[str]:
        """Uncaught exceptions and unhandled rejections, as Chromium describes them (message and stack)."""
        self._connection.read_events(0)
        return list(self._exceptions)

    @property
    def console_errors(self) -> list[str]:
        """`console.error` calls and the browser's own error entries: CSP violations, failed loads."""
        self._connection.read_events(0)
        return list(self._console_errors)

    # --- driving it ---------------------------------------------------------------------------------------

    def navigate(self, url: str, timeout: float = LOAD_SECONDS) -> None:
        """Loads `url` and returns after its load event; raises if Chromium could not fetch it at all."""
        started = self._call("Page.navigate", {"url": url})
        if started.get("errorText"):
            raise DevtoolsError(f"navigating to {url}: {started['errorText']}")
        loader_id = started.get("loaderId")
        deadline = time.monotonic() + timeout
        while (loader_id, "load") not in self._lifecycle:
            self._raise_if_gone()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DevtoolsTimeout(f"{url} did not finish loading within {timeout}s; "
                                      f"lifecycle so far: {[name for _, name in self._lifecycle]}")
            self._connection.read_events(min(remaining, WAIT_POLL_SECONDS))

    def evaluate(self, expression: str) -> object:
        """The expression's value as JSON would carry it (awaited if it is a promise; DOM nodes come back as {}).
        A script exception raises ScriptException with Chromium's description of it."""
        reply = self._call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        details = reply.get("exceptionDetails")
        if details is not None:
            raise ScriptException(f"{expression!r} threw: {_describe_exception(details)}")
        return reply.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = WAIT_SECONDS, what: str = "a truthy value") -> object:
        """Evaluates `expression` until its value is truthy and returns that value. An exception counts as "not
        yet" (the element may not exist before the first poll); the last value or exception is in the failure."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
                last = repr(value)
                if value:
                    return value
            except ScriptException as error:
                last = str(error)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"waited {timeout}s for {what}; `{expression}` was last {last}")
            self._connection.read_events(min(remaining, WAIT_POLL_SECONDS))

    def screenshot(self, path: Path) -> Path:
        """A PNG of the viewport, VIEWPORT_WIDTH x VIEWPORT_HEIGHT pixels."""
        if self._hidden:
            # A minimized window draws no frames: Chromium would never answer.
            raise DevtoolsError("no screenshot of a hidden page; set_hidden(False) first")
        reply = self._call("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(reply["data"]))
        return path

    def set_hidden(self, hidden: bool) -> None:
        """Minimizes (or restores) the page's window, which is how a user hides a page, and waits until the page
        agrees: document.hidden, visibilitychange and a hidden page's timer throttling are all Chromium's own.
        Each page has a window to itself (see `DevtoolsBrowser.open`), so no other page changes."""
        window = self._connection.call("Browser.getWindowForTarget", {"targetId": self.target_id})["windowId"]
        state = "minimized" if hidden else "normal"
        self._connection.call("Browser.setWindowBounds", {"windowId": window, "bounds": {"windowState": state}})
        self._hidden = hidden
        expected = "hidden" if hidden else "visible"
        self.wait_for(f"document.visibilityState === {expected!r}", timeout=VISIBILITY_SECONDS,
                      what=f"the page to become {expected} after its window was {state}")

    def close(self) -> None:
        """Closes the tab; the lists stay readable."""
        if self._gone is None:
            self._gone = "closed"
            try:
                self._connection.call("Target.closeTarget", {"targetId": self.target_id})
            finally:
                self._connection.forget(self.session_id)

    # --- plumbing -----------------------------------------------------------------------------------------

    def _prepare(self) -> None:
        """Domains on and the viewport fixed before the first navigation, so nothing the page does goes unseen."""
        for domain in ("Page", "Runtime", "Network", "Log"):
            self._call(f"{domain}.enable")
        self._call("Page.setLifecycleEventsEnabled", {"enabled": True})
        self._call("Emulation.setDeviceMetricsOverride", {"width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT,
                                                          "deviceScaleFactor": 1, "mobile": False})

    def _call(self, method: str, params: dict | None = None) -> dict:
        self._raise_if_gone()
        return self._connection.call(method, params, self.session_id)

    def _raise_if_gone(self) -> None:
        if self._gone is not None:
            raise DevtoolsError(f"the page {self.target_id} is {self._gone}")

    def _detached(self, reason: str) -> None:
        """Called when the browser reports the target detached or crashed; later commands fail at once."""
        if self._gone is None:
            self._gone = reason
        self._connection.forget(self.session_id)

    def _on_event(self, method: str, params: dict) -> None:
        if method == "Network.requestWillBeSent":
            self._requested_urls.append(params["request"]["url"])
        elif method == "Page.lifecycleEvent":
            self._lifecycle.append((params.get("loaderId", ""), params.get("name", "")))
        elif method == "Page.javascriptDialogOpening":
            self._dialogs.append(params.get("message", ""))
            # Answered without waiting: this runs inside another command's read loop.
            self._connection.send("Page.handleJavaScriptDialog", {"accept": False}, self.session_id)
        elif method == "Runtime.exceptionThrown":
            self._exceptions.append(_describe_exception(params.get("exceptionDetails", {})))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            if entry.get("level") == "error":
                # "Failed to load resource: ... 404" names no resource; the entry's url does.
                suffix = f" ({entry['url']})" if entry.get("source") == "network" and entry.get("url") else ""
                self._console_errors.append(entry.get("text", "") + suffix)
        elif method == "Runtime.consoleAPICalled":
            if params.get("type") == "error":
                self._console_errors.append(" ".join(_describe_value(arg) for arg in params.get("args", [])))
        elif method == "Inspector.targetCrashed":
            self._gone = "crashed"


class DevtoolsBrowser:
    """Chromium with a fresh profile under `home` (also its HOME), reachable only on loopback.

        with DevtoolsBrowser(tmp_path) as browser:
            page = browser.open(url)
            page.wait_for("document.querySelector('#count')?.textContent > 2", what="the count to grow")

    Raises ChromiumNotInstalled when there is no Chromium, before starting anything."""

    def __init__(self, home: Path, binary: str | None = None):
        self.home = home
        self.binary = binary or chromium_binary()
        if self.binary is None:
            raise ChromiumNotInstalled(NOT_INSTALLED)
        self.profile = home / "profile"
        self.process = ManagedProcess(
            "chromium", [self.binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            log_dir=home, env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
        self._connection: _DevtoolsConnection | None = None
        self._pages: dict[str, DevtoolsPage] = {}

    def __enter__(self) -> "DevtoolsBrowser":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def start(self) -> None:
        self.profile.mkdir(parents=True, exist_ok=True)
        # A port file left by an earlier browser in this profile would name a port nobody listens on.
        (self.profile / ACTIVE_PORT_FILE).unlink(missing_ok=True)
        self.process.start()
        port, path = self._read_active_port()
        # Entered as a context manager would be: later websockets releases warn about a connection used
        # without that, and __enter__ gives the connection itself in every release.
        websocket = connect(f"ws://{LOOPBACK}:{port}{path}", **_connect_options()).__enter__()
        self._connection = _DevtoolsConnection(websocket, self.describe)
        self._connection.listen("", self._on_browser_event)

    def open(self, url: str, timeout: float = LOAD_SECONDS) -> DevtoolsPage:
        """A new page in a window of its own, watched from about:blank on, then navigated to `url` and loaded.

        Its own window, because tabs of one window hide each other: a page opened second would turn the first
        into a background tab, with document.hidden true and its timers throttled."""
        assert self._connection is not None, "open() outside `with DevtoolsBrowser(...)`"
        target_id = self._connection.call("Target.createTarget", {
            "url": "about:blank", "newWindow": True, "width": VIEWPORT_WIDTH, "height": VIEWPORT_HEIGHT,
        })["targetId"]
        session_id = self._connection.call("Target.attachToTarget",
                                           {"targetId": target_id, "flatten": True})["sessionId"]
        page = DevtoolsPage(self._connection, target_id, session_id)
        self._pages[session_id] = page
        try:
            page._prepare()
            page.navigate(url, timeout)
        except DevtoolsError:
            # A page that failed to load would otherwise keep its window, and its timers, until the browser ends.
            page.close()
            raise
        return page

    def stop(self) -> None:
        """Never hangs: the websocket close is bounded, then SIGTERM to Chromium's process group, SIGKILL after
        STOP_GRACE_SECONDS; then the same for whatever of this browser outlived it."""
        try:
            if self._connection is not None:
                self._connection.close()
        except Exception:
            pass
        finally:
            self._connection = None
            self.process.stop()
            self._end_leftovers()

    def _end_leftovers(self) -> None:
        """The browser's helpers die with it, but not at once, and its crash reporter runs in a session of its
        own that no group signal reaches. Waits until none is left, so the next test starts with no Chromium
        still winding down, and kills the ones that stay."""
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while (leftovers := _chromium_processes_under(self.home)) and time.monotonic() < deadline:
            time.sleep(ACTIVE_PORT_POLL_SECONDS)
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def describe(self) -> str:
        """Whether Chromium still runs, and the end of what it wrote, for failure messages."""
        state = "running" if self.process.is_running() else f"exited with {self.process.exit_code()}"
        # Without a D-Bus in the test machine every start logs a screenful about it; that hides the real error.
        lines = [line for line in self.process.stderr_text().splitlines() if "dbus" not in line]
        tail = "\n".join(lines)[-STDERR_TAIL_CHARACTERS:]
        return f"--- chromium {state}; stderr without D-Bus complaints (tail):\n{tail}"

    def _read_active_port(self) -> tuple[int, str]:
        """First line the port Chromium chose, second the browser endpoint's path."""
        port_file = self.profile / ACTIVE_PORT_FILE
        deadline = time.monotonic() + ACTIVE_PORT_SECONDS
        while time.monotonic() < deadline:
            if not self.process.is_running():
                raise DevtoolsError(f"chromium exited before listening for DevTools\n{self.describe()}")
            try:
                lines = port_file.read_text().split()
            except FileNotFoundError:
                lines = []
            # Chromium may be caught halfway through writing the file: wait for both lines.
            if len(lines) >= 2 and lines[0].isdigit():
                return int(lines[0]), lines[1]
            time.sleep(ACTIVE_PORT_POLL_SECONDS)
        raise DevtoolsTimeout(f"chromium wrote no {port_file} within {ACTIVE_PORT_SECONDS}s\n{self.describe()}")

    def _on_browser_event(self, method: str, params: dict) -> None:
        if method == "Target.detachedFromTarget":
            page = self._pages.pop(params.get("sessionId", ""), None)
            if page is not None:
                page._detached("detached")


def _chromium_processes_under(home: Path) -> list[int]:
    """Live Chromium processes that name a path inside `home`: the renderers and helpers their `--user-data-dir`,
    the crash reporter its `--database`. The trailing slash keeps `test_x1` from matching `test_x10`, another
    test's home. Zombies are left to init, which reaps them."""
    inside_home = f"{home}/"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and "chrom" in Path(arguments[0]).name and any(inside_home in arg for arg in arguments):
            found.append(int(entry.name))
    return found


def _describe_exception(details: dict) -> str:
    """Chromium puts the useful text (`Error: boom` and its stack) in exception.description; `text` is only
    "Uncaught" for thrown errors but the whole message for some browser-made ones."""
    exception = details.get("exception") or {}
    return exception.get("description") or str(exception.get("value", "")) or details.get("text", "")


def _describe_value(remote_object: dict) -> str:
    """A console argument as the console would print it: a primitive's value, else Chromium's description."""
    if "value" in remote_object:
        return str(remote_object["value"])
    return remote_object.get("description", remote_object.get("type", ""))
