"""Runs wrk against the proxy with absolute-form requests and parses its summary line."""

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

LUA_SCRIPT = Path(__file__).resolve().parent.parent / "wrk" / "absolute_form.lua"
SUMMARY_LINE = re.compile(r"^E2E_WRK (.*)$", re.MULTILINE)
# Extra time wrk gets beyond its own duration before it is considered hung.
WRK_EXIT_GRACE_SECONDS = 30


@dataclass(frozen=True)
class WrkSummary:
    requests: int
    responses: int
    non2xx: int
    connect: int
    read: int
    write: int
    status: int
    timeout: int
    output: str

    @property
    def socket_errors(self) -> int:
        return self.connect + self.read + self.write + self.timeout


def wrk_available() -> bool:
    return shutil.which("wrk") is not None


def run_wrk(proxy_url: str, target_url: str, target_authority: str, connections: int, threads: int,
            duration_seconds: int, request_timeout_seconds: int) -> WrkSummary:
    env = dict(os.environ, E2E_WRK_TARGET=target_url, E2E_WRK_HOST=target_authority)
    argv = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration_seconds}s",
            f"--timeout={request_timeout_seconds}s", "-s", str(LUA_SCRIPT), proxy_url]
    completed = subprocess.run(argv, env=env, capture_output=True, text=True,
                               timeout=duration_seconds + WRK_EXIT_GRACE_SECONDS)
    output = completed.stdout + completed.stderr
    match = SUMMARY_LINE.search(completed.stdout)
    assert completed.returncode == 0 and match, f"wrk failed (exit {completed.returncode}):\n{output}"
    fields = dict(pair.split("=") for pair in match.group(1).split())
    return WrkSummary(output=output, **{key: int(value) for key, value in fields.items()})
