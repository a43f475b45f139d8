"""Cache-hit lookups per second inside ipdirect, from `ipdirect resolve NAME --config FILE --repeat N`.

The command resolves the name once (here through the DoH provider, so the answer is cached under its TTL),
then looks it up N more times through the same resolver chain and shared cache the proxy's workers use
(take the lock, find the entry, check its age) and prints `lookups=N seconds=S lookups_per_second=R`. That is
what every request for an already known name pays for its resolution. N is raised until one run takes at
least a second, then the median of three runs at that N is the figure.
"""

import math
import statistics
import subprocess

# A run shorter than this is dominated by timer resolution and scheduling noise.
MINIMUM_TIMED_SECONDS = 1.0
# Aim past the minimum when scaling N up, so the next run does not fall just short again.
TARGET_TIMED_SECONDS = 1.5
FIRST_REPEAT = 100_000
MAXIMUM_REPEAT = 500_000_000
CALIBRATION_ATTEMPTS = 5
MEASURED_RUNS = 3
# One run: a start-up, one DoH query, and a few seconds of lookups on a busy machine.
RUN_TIMEOUT_SECONDS = 180


class LookupRateError(Exception):
    """The command failed, printed no timing, or answered the name from somewhere other than the provider."""


class LookupRate:
    """The measured runs: (lookups, seconds, lookups per second) each."""

    def __init__(self, runs):
        self.runs = runs

    def __str__(self):
        rates = ", ".join(f"{rate:,.0f}" for _, _, rate in self.runs)
        return f"{self.median:,.0f} lookups/s (median of {rates}; {self.runs[0][0]:,} lookups a run)"

    @property
    def median(self):
        return statistics.median(rate for _, _, rate in self.runs)


def measure_lookup_rate(binary, config, name, provider, log_path):
    """`provider` is the name the first answer must come from (a fresh process has an empty cache)."""
    repeat = FIRST_REPEAT
    for _ in range(CALIBRATION_ATTEMPTS):
        _, seconds, _ = _run(binary, config, name, repeat, provider, log_path)
        if seconds >= MINIMUM_TIMED_SECONDS or repeat >= MAXIMUM_REPEAT:
            break
        repeat = min(MAXIMUM_REPEAT, math.ceil(repeat * TARGET_TIMED_SECONDS / max(seconds, 1e-6)))
    return LookupRate([_run(binary, config, name, repeat, provider, log_path) for _ in range(MEASURED_RUNS)])


def _run(binary, config, name, repeat, provider, log_path):
    argv = [binary, "resolve", name, "--config", config, "--repeat", str(repeat)]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired as timeout:
        raise LookupRateError(f"{' '.join(argv)} did not finish within {RUN_TIMEOUT_SECONDS} s") from timeout
    with open(log_path, "a") as log:
        log.write(f"$ {' '.join(argv)}\n{result.stdout}{result.stderr}\n")
    if result.returncode != 0:
        raise LookupRateError(f"ipdirect resolve exited with status {result.returncode}: "
                              f"{(result.stderr or result.stdout).strip()[:300]}")
    sources, timing = set(), None
    for line in result.stdout.splitlines():
        if line.startswith("lookups="):
            timing = dict(pair.split("=", 1) for pair in line.split())
        elif "\tsource=" in line:
            sources.add(line.rsplit("\tsource=", 1)[1])
    if sources != {provider}:
        raise LookupRateError(f"{name} was answered by {', '.join(sorted(sources)) or 'nothing'}, "
                              f"not by the provider {provider}, so the lookups did not time the cache")
    if timing is None:
        raise LookupRateError(f"ipdirect resolve printed no lookups= line: {result.stdout.strip()[:300]}")
    lookups, seconds = int(timing["lookups"]), float(timing["seconds"])
    return lookups, seconds, (lookups / seconds if seconds > 0 else 0.0)
