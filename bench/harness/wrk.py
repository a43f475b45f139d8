"""Runs wrk with the absolute-form request script and reads its machine-readable summary line."""

import os
import subprocess

LUA_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "wrk", "absolute-form.lua")
# A request slower than this counts as a wrk timeout error instead of stretching the run.
REQUEST_TIMEOUT = "5s"
# Extra time wrk may take beyond its test duration (connection set-up, teardown) before it is killed.
GRACE_SECONDS = 30
MICROSECONDS_PER_SECOND = 1_000_000
MICROSECONDS_PER_MILLISECOND = 1_000
SUMMARY_PREFIX = "BENCH "


class WrkError(Exception):
    """wrk failed to run or printed no summary."""


class WrkResult:
    """What one wrk run measured."""

    def __init__(self, fields):
        self.requests = fields["requests"]
        self.seconds = fields["duration_us"] / MICROSECONDS_PER_SECOND
        self.p50_ms = fields["p50_us"] / MICROSECONDS_PER_MILLISECOND
        self.p99_ms = fields["p99_us"] / MICROSECONDS_PER_MILLISECOND
        self.errors = {name: fields[name] for name in
                       ("connect_errors", "read_errors", "write_errors", "timeouts", "bad_status")}

    def __str__(self):
        errors = " ".join(f"{name}={count}" for name, count in self.errors.items() if count)
        return (f"{self.requests} requests in {self.seconds:.1f} s = {self.requests_per_second:.0f}/s, "
                f"p50 {self.p50_ms:.3f} ms, p99 {self.p99_ms:.3f} ms{', ' + errors if errors else ''}")

    @property
    def requests_per_second(self):
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def error_count(self):
        return sum(self.errors.values())


def run_wrk(url, request_target, host, connections, threads, seconds, close=False, log_path=None,
            namespace=None):
    """Drives `url` (a proxy, or the origin for the direct baseline) with GET `request_target`; from inside the
    network namespace `namespace` when one is given."""
    argv = ["wrk", "--threads", str(threads), "--connections", str(connections),
            "--duration", f"{seconds}s", "--timeout", REQUEST_TIMEOUT, "--latency",
            "--script", LUA_SCRIPT, url, "--", request_target, host]
    if namespace:
        argv = ["ip", "netns", "exec", namespace, *argv]
    if close:
        argv.append("close")
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + GRACE_SECONDS)
    except subprocess.TimeoutExpired as timeout:
        raise WrkError(f"wrk did not finish within {seconds + GRACE_SECONDS} s") from timeout
    if log_path:
        with open(log_path, "a") as log:
            log.write(f"$ {' '.join(argv)}\n{result.stdout}{result.stderr}\n")
    for line in result.stdout.splitlines():
        if line.startswith(SUMMARY_PREFIX):
            fields = dict(pair.split("=", 1) for pair in line[len(SUMMARY_PREFIX):].split())
            return WrkResult({name: int(value) for name, value in fields.items()})
    raise WrkError(f"wrk exited with status {result.returncode}: "
                   f"{(result.stderr or result.stdout).strip()[:500]}")
