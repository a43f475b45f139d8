"""dnsperf (Debian's dnsperf 2.10) against one DNS server on loopback: a timed run for queries per second, a
fixed-rate run whose per-query latencies (`-v`) give percentiles, and one pass through a file to fill a cache."""

import re
import subprocess

# dnsperf's own limit on a run is -l; this only bounds a stuck one.
EXTRA_SECONDS = 30
# A query not answered within this many seconds counts as lost.
QUERY_TIMEOUT_SECONDS = 5
SUMMARY = {
    "sent": re.compile(r"Queries sent:\s+(\d+)"),
    "completed": re.compile(r"Queries completed:\s+(\d+)"),
    "lost": re.compile(r"Queries lost:\s+(\d+)"),
    "run_seconds": re.compile(r"Run time \(s\):\s+([\d.]+)"),
    "queries_per_second": re.compile(r"Queries per second:\s+([\d.]+)"),
    "average_latency_seconds": re.compile(r"Average Latency \(s\):\s+([\d.]+)"),
}
NOERROR = re.compile(r"Response codes:\s+NOERROR (\d+)")
# One answered query with -v: "> NOERROR name type 0.000123".
VERBOSE_LINE = re.compile(r"^> (\S+) \S+ \S+ ([\d.]+)$", re.MULTILINE)


class DnsperfError(Exception):
    """dnsperf failed or printed no summary."""


def run(port, data_file, seconds=None, passes=None, threads=1, clients=1, outstanding=100, rate=None,
        verbose=False, log_path=None):
    """One dnsperf run; returns the summary's figures, `noerror` (answers with rcode NOERROR) and, with
    `verbose`, `latencies` (seconds, one per answered query) and `rcodes` (answers per rcode)."""
    argv = ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", data_file, "-T", str(threads),
            "-c", str(clients), "-q", str(outstanding), "-t", str(QUERY_TIMEOUT_SECONDS)]
    if seconds:
        argv += ["-l", str(seconds)]
    if passes:
        argv += ["-n", str(passes)]
    if rate:
        argv += ["-Q", str(rate)]
    if verbose:
        argv += ["-v"]
    limit = (seconds or 0) + EXTRA_SECONDS * (1 + (passes or 0))
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired as timeout:
        raise DnsperfError(f"dnsperf did not finish within {limit} s") from timeout
    output = result.stdout + result.stderr
    if log_path:
        with open(log_path, "a") as log:
            log.write(f"$ {' '.join(argv)}\n")
            # The summary only: a verbose run prints one line per query.
            log.write(output[output.find("Statistics:"):] if verbose else output)
            log.write("\n")
    figures = {}
    for key, pattern in SUMMARY.items():
        match = pattern.search(output)
        if not match:
            raise DnsperfError(f"dnsperf (exit {result.returncode}) printed no '{key}': {output.strip()[-400:]}")
        figures[key] = float(match.group(1)) if "." in match.group(1) else int(match.group(1))
    noerror = NOERROR.search(output)
    figures["noerror"] = int(noerror.group(1)) if noerror else 0
    if verbose:
        answers = VERBOSE_LINE.findall(output)
        figures["latencies"] = sorted(float(seconds) for _, seconds in answers)
        rcodes = {}
        for rcode, _ in answers:
            rcodes[rcode] = rcodes.get(rcode, 0) + 1
        figures["rcodes"] = rcodes
    return figures


def percentile(sorted_values, fraction):
    """Nearest-rank percentile of an ascending list; None when it is empty."""
    if not sorted_values:
        return None
    rank = max(1, -(-int(fraction * 1000) * len(sorted_values) // 1000))
    return sorted_values[min(rank, len(sorted_values)) - 1]
