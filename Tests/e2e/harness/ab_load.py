"""Runs ApacheBench (`ab`, Debian's apache2-utils) through the proxy and parses its report.

ab speaks HTTP/1.0; with -k it sends `Connection: Keep-Alive` and keeps a connection only for responses that
say `Connection: keep-alive` and carry a Content-Length, so it is the classic client for RFC 9112 Appendix C.2.2.
"""

import re
import shutil
import subprocess
from dataclasses import dataclass

# Extra time ab gets beyond its own per-request timeout before it is considered hung.
AB_EXIT_GRACE_SECONDS = 20
_REPORT_LINE = re.compile(r"^(Complete requests|Failed requests|Keep-Alive requests|Non-2xx responses):\s+(\d+)",
                          re.MULTILINE)


@dataclass(frozen=True)
class AbSummary:
    complete: int
    failed: int
    keep_alive: int
    non2xx: int
    exit_code: int
    output: str


def ab_available() -> bool:
    return shutil.which("ab") is not None


def run_ab(proxy_address: tuple[str, int], url: str, requests: int, concurrency: int, timeout_seconds: int,
           keep_alive: bool = True) -> AbSummary:
    """`ab [-k] -n requests -c concurrency -s timeout -X host:port url`; a hung ab fails the test, not the run."""
    host, port = proxy_address
    argv = ["ab", "-q", "-n", str(requests), "-c", str(concurrency), "-s", str(timeout_seconds),
            "-X", f"{host}:{port}", url]
    if keep_alive:
        argv.insert(1, "-k")
    try:
        completed = subprocess.run(argv, capture_output=True, text=True,
                                   timeout=timeout_seconds + AB_EXIT_GRACE_SECONDS)
    except subprocess.TimeoutExpired as expired:
        raise AssertionError(f"ab did not finish: {' '.join(argv)}\n{expired.stdout or ''}{expired.stderr or ''}")
    output = completed.stdout + completed.stderr
    figures = {name: int(value) for name, value in _REPORT_LINE.findall(completed.stdout)}
    return AbSummary(complete=figures.get("Complete requests", 0), failed=figures.get("Failed requests", 0),
                     keep_alive=figures.get("Keep-Alive requests", 0), non2xx=figures.get("Non-2xx responses", 0),
                     exit_code=completed.returncode, output=output)
