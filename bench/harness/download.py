"""Downloads the large file with curl: over TLS through a CONNECT or SOCKS5 tunnel, over plain HTTP through a
forwarding proxy, or straight from the origin."""

import statistics
import subprocess

# Transfers per target; the median is reported, so one noisy transfer does not decide the figure.
TRANSFERS = 3
# A 100 MiB loopback transfer takes a second or two; anything near this is a stall.
TRANSFER_TIMEOUT_SECONDS = 60
BYTES_PER_MEGABYTE = 1_000_000


class DownloadError(Exception):
    """curl failed or fetched the wrong number of bytes."""


class DownloadResult:
    """Median throughput of the transfers and the server's CPU time spent on all of them."""

    def __init__(self, megabytes_per_second, cpu_seconds, total_bytes):
        self.megabytes_per_second = megabytes_per_second
        self.cpu_seconds = cpu_seconds
        self.total_bytes = total_bytes

    def __str__(self):
        return f"{self.megabytes_per_second:.0f} MB/s, {self.cpu_ms_per_gib:.0f} ms CPU per GiB"

    @property
    def cpu_ms_per_gib(self):
        return self.cpu_seconds * 1000 / (self.total_bytes / 2**30)

    @property
    def cpu_us_per_mib(self):
        return self.cpu_seconds * 1_000_000 / (self.total_bytes / 2**20)


def measure_download(daemon, url, expected_bytes, ca_certificate=None, proxy_url=None, tunnel=False, resolve=None,
                     socks_proxy=None):
    """`proxy_url` set: curl asks it for the URL, with CONNECT (-p -x) when `tunnel`, else as an absolute-form
    request (-x, RFC 9112 §3.2.2). `socks_proxy` (HOST:PORT) set: curl asks it for a SOCKS5 CONNECT to the URL's
    host name, which the proxy resolves (RFC 1928 §5 DOMAINNAME). Otherwise `resolve` pins the origin address.
    `ca_certificate` verifies an https:// origin."""
    argv = ["curl", "--silent", "--show-error", "--fail", "--output", "/dev/null",
            "--max-time", str(TRANSFER_TIMEOUT_SECONDS), "--write-out", "%{size_download} %{time_total}"]
    if ca_certificate:
        argv += ["--cacert", ca_certificate]
    if proxy_url:
        argv += (["--proxytunnel"] if tunnel else []) + ["--proxy", proxy_url]
    if socks_proxy:
        argv += ["--socks5-hostname", socks_proxy]
    if resolve:
        argv += ["--resolve", resolve]
    argv.append(url)
    cpu_before = daemon.cpu_seconds()
    speeds = []
    for _ in range(TRANSFERS):
        result = subprocess.run(argv, capture_output=True, text=True, timeout=TRANSFER_TIMEOUT_SECONDS + 10)
        if result.returncode != 0:
            raise DownloadError(f"curl exited with status {result.returncode}: {result.stderr.strip()}")
        size, seconds = result.stdout.split()
        if int(size) != expected_bytes:
            raise DownloadError(f"curl fetched {size} bytes, expected {expected_bytes}")
        speeds.append(int(size) / float(seconds) / BYTES_PER_MEGABYTE)
    cpu_seconds = daemon.cpu_seconds() - cpu_before
    return DownloadResult(statistics.median(speeds), cpu_seconds, expected_bytes * TRANSFERS)
