"""What every proxy under test (ipdirect, or a peer proxy that validates the harness) offers the tests."""

import os
import time
from pathlib import Path

from .ports import LOOPBACK
from .processes import ManagedProcess

# How long an access log line may lag behind the response it describes.
ACCESS_LOG_WAIT_SECONDS = 3.0
ACCESS_LOG_POLL_SECONDS = 0.05
# The environment variable that picks the proxy under test, and its default.
PROXY_KIND_VARIABLE = "E2E_PROXY"
DEFAULT_PROXY_KIND = "ipdirect"


def selected_proxy_kind() -> str:
    return os.environ.get(PROXY_KIND_VARIABLE, DEFAULT_PROXY_KIND)


class ProxyUnderTest:
    """A running proxy. Subclasses build `self.process` and say where the access log is."""

    kind = "abstract"
    # False for a proxy whose access log has no status per request (tinyproxy).
    has_access_log = True

    def __init__(self, work_dir: Path):
        self.work_dir = work_dir
        self.host = LOOPBACK
        self.port = 0
        self.process: ManagedProcess | None = None
        self._access_log_mark = 0
        self._stderr_mark = 0

    # Lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> "ProxyUnderTest":
        raise NotImplementedError

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def is_running(self) -> bool:
        return self.process is not None and self.process.is_running()

    @property
    def pid(self) -> int:
        """The process whose memory the streaming test watches."""
        return self.process.pid

    # Addresses -------------------------------------------------------------------------------------------
    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def proxies(self) -> dict[str, str]:
        """For requests' `proxies=`: plain HTTP goes absolute-form, HTTPS through CONNECT."""
        return {"http": self.url, "https": self.url}

    # Logs ------------------------------------------------------------------------------------------------
    def access_log_path(self) -> Path:
        raise NotImplementedError

    def stderr_path(self) -> Path:
        return self.process.stderr_path

    def mark_logs(self) -> None:
        """Start of a test: later `*_since_mark` calls only see what this test caused."""
        self._access_log_mark = _size(self.access_log_path())
        self._stderr_mark = _size(self.stderr_path())

    def access_log_since_mark(self) -> str:
        return _read_from(self.access_log_path(), self._access_log_mark)

    def stderr_since_mark(self) -> str:
        return _read_from(self.stderr_path(), self._stderr_mark)

    def wait_for_access_log(self, *fragments: str, timeout: float = ACCESS_LOG_WAIT_SECONDS) -> str | None:
        """The first access log line since the mark containing every fragment; None if this proxy logs no
        statuses. Fails the test with the whole log excerpt if no such line shows up in time."""
        if not self.has_access_log:
            return None
        deadline = time.monotonic() + timeout
        while True:
            for line in self.access_log_since_mark().splitlines():
                if all(fragment in line for fragment in fragments):
                    return line
            if time.monotonic() >= deadline:
                raise AssertionError(f"no {self.kind} access log line contains {fragments!r}; lines since the "
                                     f"test started:\n{self.access_log_since_mark()}")
            time.sleep(ACCESS_LOG_POLL_SECONDS)

    def describe(self) -> str:
        if self.process is None:
            return f"{self.kind}: not started"
        return (f"{self.kind} pid={self.process.pid} exit={self.process.exit_code()}\n"
                f"--- stderr since test start:\n{self.stderr_since_mark()[-6000:]}\n"
                f"--- access log since test start:\n{self.access_log_since_mark()[-3000:]}")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _read_from(path: Path, offset: int) -> str:
    try:
        with open(path, "rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")
    except FileNotFoundError:
        return ""
