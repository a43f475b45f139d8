"""The scheduling scenario (issue 9): one name, three addresses, one dead, one slow, one fast.

Everything runs inside a network namespace of its own (`ip netns add`), with the documentation addresses
192.0.2.1, .2 and .3 on its loopback:
  dead  192.0.2.1  an nftables rule drops every packet to it, so a SYN goes unanswered as on a real network
                   (a refused connect on loopback would be immediate and hide what a dead node costs);
  slow  192.0.2.2  slow_origin.py, answering each request after SLOW_DELAY_MS;
  fast  192.0.2.3  nginx, answering at once.
`nodes.bench` resolves to the three in that order, dead first: for ipdirect from its [hosts] table, for
tinyproxy through glibc from /etc/netns/NS/hosts, which `ip netns exec` bind-mounts over /etc/hosts, and for
squid from ordered_dns.py on port 53 of the namespace's loopback, answering from the same hosts lines in the
same order (squid's own `hosts_file` keeps only the last address of a name). /etc/netns/NS/resolv.conf, mounted
over /etc/resolv.conf, names that server too.

Each proxy gets its own origin port (the same on all three addresses), so what reaches an origin, and every SYN
the dead address swallows, is charged to the proxy that sent it, even when it arrives during another proxy's
run. The slow origin counts requests per port, nginx logs the port of each request, and nftables keeps per port
the source ports of the SYNs it dropped (one per connection attempt; the kernel's retransmissions of a SYN
reuse it) and a packet counter.

All three proxies run at once, each idle while another is measured. After an unmeasured keep-alive warm-up
each (longer than the 5 s connect timeout, so a proxy that learns from a dead address has met it), the runs are
interleaved: per round, the keep-alive runs of every proxy, then the new-connection runs, in an order that
rotates from round to round, so a slow spell of the machine does not fall on one proxy alone.
"""

import json
import os
import shutil
import socket
import statistics
import subprocess
import time

from harness.daemon import DaemonError, Daemon
from harness.targets import MAX_FILE_DESCRIPTORS, SMALL_FILE, SQUID_USER, TINYPROXY_USER
from harness.wrk import WrkError, run_wrk

HOST = "nodes.bench"
DEAD, SLOW, FAST = "dead", "slow", "fast"
# In the order the name resolves to: the dead address first, as a stale answer might list it.
ADDRESSES = ((DEAD, "192.0.2.1"), (SLOW, "192.0.2.2"), (FAST, "192.0.2.3"))
ADDRESS = dict(ADDRESSES)
# How long the slow node waits before each answer (the issue's "slow origin").
SLOW_DELAY_MS = 80
PROXIES = ("ipdirect", "tinyproxy", "squid")
# Ports inside the namespace, which is new and empty, so fixed ports are free. Each proxy's requests go to its
# own origin port on every address.
PROXY_PORT = {"ipdirect": 3001, "tinyproxy": 3002, "squid": 3003}
ORIGIN_PORT = {"ipdirect": 8081, "tinyproxy": 8082, "squid": 8083}
IPDIRECT_ADMIN_PORT = 3000
# ordered_dns.py, port 53 of the namespace's loopback.
DNS_ADDRESS = "127.0.0.1"
DNS_PORT = 53
# Load shape: a handful of clients, so even 80 ms answers keep every connection busy and a proxy that
# hangs on the dead address shows it in its own figures only.
CONNECTIONS = 8
THREADS = 2
# Longer than ipdirect's and squid's 5 s connect timeout: a proxy that remembers a dead address has met it.
WARM_UP_SECONDS = 7
KEEP_ALIVE = "keep-alive"
NEW_CONNECTION = "new-connection"
MODES = (KEEP_ALIVE, NEW_CONNECTION)
# After a run, time for requests still in flight to reach the origins (the slow one takes 80 ms).
SETTLE_SECONDS = 0.3
MICROSECONDS_PER_SECOND = 1_000_000
NFT_TABLE = "bench_scheduling"
COMMAND_TIMEOUT_SECONDS = 20
ADMIN_PATHS = ("/upstreams", "/metrics")
# The /metrics lines kept as a note: issue 9's upstream counters, when the binary has them.
METRIC_PREFIXES = ("ipdirect_upstream_connect_attempts_total", "ipdirect_upstream_race_wins_total",
                   "ipdirect_upstream_quarantined_addresses", "ipdirect_upstream_probes_total")


class ScenarioError(Exception):
    """The namespace or an origin could not be set up; nothing was measured."""


class Run:
    """One timed wrk run of one proxy: wrk's figures, the proxy's CPU, and what each address received."""

    def __init__(self, proxy, mode, round_number, wrk, cpu_seconds, received):
        self.proxy = proxy
        self.mode = mode
        self.round_number = round_number
        self.wrk = wrk
        self.cpu_seconds = cpu_seconds
        self.received = received  # DEAD -> connection attempts (SYNs, no retransmits); SLOW, FAST -> requests

    def __str__(self):
        received = " ".join(f"{name}={count}" for name, count in self.received.items())
        return f"{self.mode} round {self.round_number}: {self.wrk}; received {received}"

    def as_dict(self):
        return {"mode": self.mode, "round": self.round_number, "requests": self.wrk.requests,
                "seconds": self.wrk.seconds, "p50_ms": self.wrk.p50_ms, "p99_ms": self.wrk.p99_ms,
                "errors": self.wrk.errors, "cpu_seconds": self.cpu_seconds, "received": self.received}


class SchedulingResult:
    """One proxy's runs; a figure that could not be taken is None."""

    def __init__(self, name):
        self.name = name
        self.skipped = None
        self.warm_up = None
        self.runs = []
        self.dead_syn_packets = None  # every SYN dropped for this proxy, retransmissions included
        self.problems = []
        self.notes = []

    def __str__(self):
        return f"{self.name}: {'skipped: ' + self.skipped if self.skipped else f'{len(self.runs)} runs'}"

    def of_mode(self, mode):
        return [run for run in self.runs if run.mode == mode]

    def requests_per_second(self, mode):
        runs = self.of_mode(mode)
        return statistics.median(run.wrk.requests_per_second for run in runs) if runs else None

    def latency_ms(self, mode, percent):
        """Median over the runs of wrk's percentile; runs that completed no request have none."""
        values = [run.wrk.p50_ms if percent == 50 else run.wrk.p99_ms
                  for run in self.of_mode(mode) if run.wrk.requests]
        return statistics.median(values) if values else None

    def cpu_us_per_request(self, mode):
        runs = self.of_mode(mode)
        requests = sum(run.wrk.requests for run in runs)
        return sum(run.cpu_seconds for run in runs) * MICROSECONDS_PER_SECOND / requests if requests else None

    def received(self, mode):
        totals = {name: 0 for name, _ in ADDRESSES}
        for run in self.of_mode(mode):
            for name, count in run.received.items():
                totals[name] += count
        return totals if self.of_mode(mode) else None

    def shares(self, mode):
        """Percent of what the three addresses received: connection attempts for the dead one (it never gets
        a request), requests for the others."""
        totals = self.received(mode)
        if not totals or not sum(totals.values()):
            return None
        return {name: 100 * count / sum(totals.values()) for name, count in totals.items()}

    def failed(self, mode):
        """Requests answered after wrk's timeout (5 s; wrk counts those as timeouts) or with an error status. A
        request still waiting when its run ends is in no count: see `_note_errors`."""
        runs = self.of_mode(mode)
        return sum(run.wrk.errors["timeouts"] + run.wrk.errors["bad_status"] for run in runs) if runs else None

    def as_dict(self):
        return {"skipped": self.skipped, "warm_up": self.warm_up.as_dict() if self.warm_up else None,
                "runs": [run.as_dict() for run in self.runs], "dead_syn_packets": self.dead_syn_packets,
                "problems": self.problems, "notes": self.notes}


def _run(argv, check=True, **options):
    result = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_SECONDS, **options)
    if check and result.returncode != 0:
        raise ScenarioError(f"{' '.join(argv)} failed (exit {result.returncode}): "
                            f"{(result.stderr or result.stdout).strip()[:300]}")
    return result


class Namespace:
    """The scenario's network namespace with its addresses, its blackhole rule, and its private /etc files."""

    def __init__(self, name, origin_ports):
        self.name = name
        self.origin_ports = origin_ports  # proxy -> port
        self.etc_dir = os.path.join("/etc/netns", name)
        self.created = False

    def __str__(self):
        return f"network namespace {self.name}"

    def execute(self, *argv, check=True):
        return _run(["ip", "netns", "exec", self.name, *argv], check=check)

    def create(self, hosts_text):
        _run(["ip", "netns", "add", self.name])
        self.created = True
        self.execute("ip", "link", "set", "lo", "up")
        for _, address in ADDRESSES:
            self.execute("ip", "address", "add", f"{address}/32", "dev", "lo")
        # `ip netns exec` bind-mounts these over /etc/hosts and /etc/resolv.conf for whatever it starts.
        os.makedirs(self.etc_dir)
        with open(os.path.join(self.etc_dir, "hosts"), "w") as hosts:
            hosts.write(hosts_text)
        with open(os.path.join(self.etc_dir, "resolv.conf"), "w") as resolv:
            resolv.write(f"nameserver {DNS_ADDRESS}\n")
        _run(["ip", "netns", "exec", self.name, "nft", "-f", "-"], input=self._ruleset())

    def _ruleset(self):
        """One set and one counting rule per proxy port, then a drop of anything else to the dead address.
        A SYN without ACK is a connection attempt; its retransmissions carry the same source port."""
        dead = ADDRESS[DEAD]
        sets = "".join(f"  set tried_{proxy} {{ type inet_service; flags dynamic,timeout; timeout 1h; "
                       f"size 65535; }}\n" for proxy in self.origin_ports)
        rules = "".join(f"    ip daddr {dead} tcp dport {port} tcp flags & (syn|ack) == syn "
                        f"add @tried_{proxy} {{ tcp sport }} counter drop comment \"{proxy}\"\n"
                        for proxy, port in self.origin_ports.items())
        return (f"table ip {NFT_TABLE} {{\n{sets}  chain output {{\n"
                f"    type filter hook output priority 0; policy accept;\n{rules}"
                f"    ip daddr {dead} counter drop\n  }}\n}}\n")

    def dead_attempts(self, proxy):
        """Connection attempts to the dead address on `proxy`'s port so far (distinct SYN source ports)."""
        listing = json.loads(self.execute("nft", "-j", "list", "set", "ip", NFT_TABLE, f"tried_{proxy}").stdout)
        for item in listing["nftables"]:
            if "set" in item:
                return len(item["set"].get("elem", []))
        raise ScenarioError(f"nft listed no set tried_{proxy}")

    def dead_syn_packets(self):
        """proxy -> SYN packets dropped on its port, retransmissions included."""
        listing = json.loads(self.execute("nft", "-j", "list", "chain", "ip", NFT_TABLE, "output").stdout)
        packets = {}
        for item in listing["nftables"]:
            rule = item.get("rule")
            if rule and rule.get("comment") in self.origin_ports:
                counter = next(expression["counter"] for expression in rule["expr"] if "counter" in expression)
                packets[rule["comment"]] = counter["packets"]
        return packets

    def delete(self):
        if self.created:
            _run(["ip", "netns", "del", self.name], check=False)
            self.created = False
        shutil.rmtree(self.etc_dir, ignore_errors=True)


class Origins:
    """The slow and the fast node, and what each received on each proxy's port; and the DNS server squid asks."""

    def __init__(self, environment, namespace, harness_dir, hosts_file):
        self.directory = os.path.join(environment.run_dir, "scheduling")
        self.control = os.path.join(self.directory, "slow.sock")
        self.fast_log = os.path.join(self.directory, "fast-requests.log")
        ports = ",".join(str(port) for port in ORIGIN_PORT.values())
        self.slow = Daemon("slow origin", ["python3", os.path.join(harness_dir, "slow_origin.py"),
                                           "--address", ADDRESS[SLOW], "--ports", ports,
                                           "--delay-ms", str(SLOW_DELAY_MS),
                                           "--body", os.path.join(environment.run_dir, "www", SMALL_FILE),
                                           "--control", self.control],
                           ORIGIN_PORT["ipdirect"], environment.log("slow-origin.out"), host=ADDRESS[SLOW],
                           namespace=namespace.name)
        config = environment.render("nginx-scheduling.conf.in", "scheduling/nginx.conf", FAST_ADDRESS=ADDRESS[FAST],
                                    SCHEDULING_HOST=HOST, **{f"{proxy.upper()}_ORIGIN_PORT": port
                                                             for proxy, port in ORIGIN_PORT.items()})
        self.dns = Daemon("ordered DNS", ["python3", os.path.join(harness_dir, "ordered_dns.py"),
                                          "--address", DNS_ADDRESS, "--hosts", hosts_file],
                          DNS_PORT, environment.log("ordered-dns.out"), host=DNS_ADDRESS, namespace=namespace.name,
                          udp=True)
        self.fast = Daemon("fast origin (nginx)", ["nginx", "-p", self.directory, "-c", config,
                                                   "-e", os.path.join(self.directory, "nginx-error.log")],
                           ORIGIN_PORT["ipdirect"], environment.log("fast-origin.out"), host=ADDRESS[FAST],
                           namespace=namespace.name)

    def start(self):
        self.dns.start()
        self.slow.start()
        self.fast.start()

    def stop(self):
        self.fast.stop()
        self.slow.stop()
        self.dns.stop()

    def received(self):
        """(address name, proxy) -> requests so far."""
        counts = {}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
            control.settimeout(COMMAND_TIMEOUT_SECONDS)
            control.connect(self.control)
            reply = b""
            while chunk := control.recv(4096):
                reply += chunk
        by_port = dict(pair.split("=") for pair in reply.decode().split())
        fast_ports = {}
        try:
            with open(self.fast_log) as lines:
                for line in lines:
                    fast_ports[line.strip()] = fast_ports.get(line.strip(), 0) + 1
        except FileNotFoundError:
            pass
        for proxy, port in ORIGIN_PORT.items():
            counts[(SLOW, proxy)] = int(by_port.get(str(port), 0))
            counts[(FAST, proxy)] = fast_ports.get(str(port), 0)
        return counts


def hosts_text():
    """/etc/hosts lines for the scenario, one per address, in resolution order (glibc and squid keep it)."""
    return "127.0.0.1 localhost\n" + "".join(f"{address} {HOST}\n" for _, address in ADDRESSES)


def _proxy_daemon(proxy, environment, namespace, ipdirect_path):
    port = PROXY_PORT[proxy]
    if proxy == "ipdirect":
        addresses = ", ".join(f'"{address}"' for _, address in ADDRESSES)
        config = environment.render("ipdirect-scheduling.toml.in", "ipdirect/ipdirect-scheduling.toml",
                                    IPDIRECT_PORT=port, IPDIRECT_ADMIN_PORT=IPDIRECT_ADMIN_PORT,
                                    SCHEDULING_HOST=HOST, SCHEDULING_ADDRESSES=addresses)
        argv = [ipdirect_path, "run", "--config", config]
    elif proxy == "squid":
        environment.private_dir("squid-scheduling", SQUID_USER)
        config = environment.render("squid-scheduling.conf.in", "squid-scheduling/squid.conf", SQUID_PORT=port,
                                    DNS_NAMESERVER=DNS_ADDRESS, MAX_FILE_DESCRIPTORS=MAX_FILE_DESCRIPTORS)
        argv = ["squid", "-N", "-f", config]
    else:
        environment.private_dir("tinyproxy", TINYPROXY_USER)
        config = environment.render("tinyproxy.conf.in", "tinyproxy/tinyproxy-scheduling.conf",
                                    TINYPROXY_PORT=port)
        argv = ["tinyproxy", "-d", "-c", config]
    return Daemon(f"{proxy}-scheduling", argv, port, environment.log(f"{proxy}-scheduling.out"),
                  namespace=namespace.name)


def measure_scheduling(wanted, skipped_targets, environment, ipdirect_path, seconds, rounds, log):
    """`skipped_targets`: target -> why it cannot run at all. Returns one SchedulingResult per proxy asked."""
    results = {proxy: SchedulingResult(proxy) for proxy in PROXIES if proxy in wanted}
    for proxy, result in results.items():
        result.skipped = skipped_targets.get(proxy)
    if os.geteuid() != 0:
        for result in results.values():
            result.skipped = result.skipped or "needs root (network namespace, nftables)"
    active = [result for result in results.values() if not result.skipped]
    if not active:
        return list(results.values())
    namespace = Namespace(f"ipdirect-bench-{os.getpid()}", {result.name: ORIGIN_PORT[result.name]
                                                            for result in active})
    origins, daemons = None, {}
    try:
        namespace.create(hosts_text())
        os.makedirs(os.path.join(environment.run_dir, "scheduling"), exist_ok=True)
        hosts_file = os.path.join(environment.run_dir, "scheduling", "hosts")
        with open(hosts_file, "w") as hosts:
            hosts.write(hosts_text())
        origins = Origins(environment, namespace, os.path.dirname(os.path.abspath(__file__)), hosts_file)
        origins.start()
        log(f"{namespace}: {HOST} = " + ", ".join(f"{address} ({name})" for name, address in ADDRESSES))
        for result in active:
            daemon = _proxy_daemon(result.name, environment, namespace, ipdirect_path)
            try:
                daemon.start()
                daemons[result.name] = daemon
            except DaemonError as error:
                result.skipped = f"did not start: {str(error).splitlines()[0]}"
                log(f"  {error}")
        active = [result for result in active if not result.skipped]
        wrk_log = environment.log("wrk-scheduling.txt")

        def measure(result, mode, round_number, run_seconds):
            daemon = daemons[result.name]
            received_before = origins.received()
            dead_before = namespace.dead_attempts(result.name)
            cpu_before = daemon.cpu_seconds()
            target = f"http://{HOST}:{ORIGIN_PORT[result.name]}/{SMALL_FILE}"
            outcome = run_wrk(f"http://127.0.0.1:{daemon.port}/", target, f"{HOST}:{ORIGIN_PORT[result.name]}",
                              connections=CONNECTIONS, threads=THREADS, seconds=run_seconds,
                              close=mode == NEW_CONNECTION, log_path=wrk_log, namespace=namespace.name)
            cpu = daemon.cpu_seconds() - cpu_before
            time.sleep(SETTLE_SECONDS)
            received_after = origins.received()
            received = {DEAD: namespace.dead_attempts(result.name) - dead_before}
            for name in (SLOW, FAST):
                received[name] = received_after[(name, result.name)] - received_before[(name, result.name)]
            run = Run(result.name, mode, round_number, outcome, cpu, received)
            log(f"  {result.name} {run}")
            return run

        for result in active:
            try:
                result.warm_up = measure(result, KEEP_ALIVE, 0, WARM_UP_SECONDS)
            except WrkError as error:
                result.problems.append(f"warm-up: {error}")
        for round_number in range(1, rounds + 1):
            shift = (round_number - 1) % max(len(active), 1)
            order = active[shift:] + active[:shift]
            for mode in MODES:
                for result in order:
                    try:
                        result.runs.append(measure(result, mode, round_number, seconds))
                    except WrkError as error:
                        result.problems.append(f"{mode} round {round_number}: {error}")
        packets = namespace.dead_syn_packets()
        for result in active:
            result.dead_syn_packets = packets.get(result.name)
            _note_errors(result)
            if not daemons[result.name].is_running():
                result.problems.append(f"exited during the scenario; see logs/{result.name}-scheduling.out")
        if "ipdirect" in daemons:
            _ipdirect_admin_notes(results["ipdirect"], namespace, environment)
    except (ScenarioError, DaemonError, OSError, subprocess.TimeoutExpired, ValueError) as error:
        log(f"  scheduling scenario stopped: {error}")
        for result in results.values():
            if not result.skipped and not result.runs:
                result.skipped = f"scenario not set up: {str(error).splitlines()[0]}"
            elif not result.skipped:
                result.problems.append(f"scenario stopped early: {str(error).splitlines()[0]}")
    finally:
        for daemon in daemons.values():
            daemon.stop()
        if origins:
            origins.stop()
        namespace.delete()
    return list(results.values())


def _note_errors(result):
    """wrk's errors by mode and in the warm-up, never folded into a figure, and modes in which no request was
    answered at all. tinyproxy's read errors are its closing after every response, as in the main table."""
    groups = [(f"{mode} runs", result.of_mode(mode)) for mode in MODES]
    groups.append(("warm-up", [result.warm_up] if result.warm_up else []))
    for label, runs in groups:
        totals = {}
        for run in runs:
            for name, count in run.wrk.errors.items():
                totals[name] = totals.get(name, 0) + count
        errors = ", ".join(f"{name} {count}" for name, count in totals.items() if count)
        if errors:
            result.problems.append(f"{label} had errors: {errors} (wrk's timeouts are answers that took over "
                                   f"5 s)" if totals.get("timeouts") else f"{label} had errors: {errors}")
        if runs and not sum(run.wrk.requests for run in runs):
            attempts = sum(run.received[DEAD] for run in runs)
            result.problems.append(f"{label}: no request was answered; wrk's {CONNECTIONS} connections were all "
                                   f"still waiting when {'the run' if len(runs) == 1 else 'each run'} ended ({attempts} connection attempts to the "
                                   f"dead address)")


def _ipdirect_admin_notes(result, namespace, environment):
    """Keeps what the binary's admin listener says about its upstream choices, when it says anything: a binary
    from before issue 9 has no /upstreams, and its /metrics no upstream counters."""
    for path in ADMIN_PATHS:
        answer = namespace.execute("curl", "-s", "-m", "5", "-w", "\n%{http_code}",
                                   f"http://127.0.0.1:{IPDIRECT_ADMIN_PORT}{path}", check=False).stdout
        body, _, status = answer.rpartition("\n")
        with open(environment.log(f"ipdirect-scheduling{path.replace('/', '-')}.txt"), "w") as kept:
            kept.write(answer)
        if status != "200":
            result.notes.append(f"admin {path}: HTTP {status or 'no answer'}")
        elif path == "/upstreams":
            result.notes.append(f"admin /upstreams after the runs: {_upstreams_summary(body)}")
        else:
            lines = [line for line in body.splitlines() if line.startswith(METRIC_PREFIXES)]
            result.notes.append("admin /metrics: " + ("; ".join(lines) if lines else
                                                      "none of issue 9's upstream metrics in this binary"))


def _upstreams_summary(body):
    try:
        hosts = json.loads(body)["hosts"]
        return "; ".join(f"{host['host']}:{host['port']} " + ", ".join(
            f"{address['address']} rank {address.get('rank')} {address.get('state')}"
            for address in host["addresses"]) for host in hosts) or "no hosts"
    except (ValueError, KeyError, TypeError):
        return body.strip()[:300]
