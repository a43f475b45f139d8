"""Debian's Chromium, headless, loading one page through a proxy and printing its DOM.

Chromium itself resolves nothing but the loopback proxy address (`--host-resolver-rules`): a page it tried to
fetch DIRECT would fail, so a page that arrives came through the proxy, and no query leaves the machine.
"""

import shutil
import subprocess
from pathlib import Path

from .ports import LOOPBACK

# Headless Chromium starts, maybe fetches a PAC file, and loads one page; generous for a loaded 2-core machine.
CHROMIUM_SECONDS = 90
# How long the page may run scripts and load what it refers to before the DOM is dumped.
VIRTUAL_TIME_BUDGET_MS = 5000
NOT_INSTALLED = "Debian's chromium is not installed (scripts/test installs it)"


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def dump_dom(browser: str, proxy_flag: str, url: str, home: Path) -> subprocess.CompletedProcess:
    """Runs `browser` with `proxy_flag` (`--proxy-server=...` or `--proxy-pac-url=...`) and a fresh profile
    under `home`; stdout is the DOM of `url`."""
    command = [
        browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        f"--user-data-dir={home / 'profile'}", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
        proxy_flag,
        f"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE {LOOPBACK}",
        f"--virtual-time-budget={VIRTUAL_TIME_BUDGET_MS}", "--dump-dom", url,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=CHROMIUM_SECONDS,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin"})


def describe(completed: subprocess.CompletedProcess) -> str:
    return (f"exit {completed.returncode}\n--- stdout:\n{completed.stdout[-2000:]}\n"
            f"--- stderr:\n{completed.stderr[-4000:]}")
