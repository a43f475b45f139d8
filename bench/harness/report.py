"""Turns the targets' results into the main table, each figure per target combined over the repetitions with its
ratio to direct, and the TLS origination and resolver results into tables of their own."""

from harness import idle
from harness.resolver import COLD, DOH_COLUMNS, WARM
from harness.repetitions import combine
from harness.scheduling import ADDRESSES, DEAD, KEEP_ALIVE, MODES, WARM_UP_SECONDS
from harness.suite import CONNECT, HTTP_PROXY, SOCKS5
from harness.tls_origination import RUNS as TLS_RUNS

KIB_PER_MIB = 1024


class Figure:
    """One row of the table: how to read it from a TargetResult and how to print it."""

    def __init__(self, label, extract, digits, better, needs=(HTTP_PROXY,)):
        self.label = label
        self.extract = extract
        self.digits = digits
        self.better = better  # "higher" or "lower", printed so a reader knows which way a ratio is good
        # What the target must speak to give this figure (keys of TargetResult.cannot), () for any server.
        self.needs = needs

    def __str__(self):
        return self.label

    def value(self, result):
        try:
            return self.extract(result)
        except (AttributeError, TypeError, KeyError):
            return None


def _idle_kib(mode):
    return lambda result: result.idle[mode].kib_per_connection


FIGURES = [
    Figure("keep-alive requests/s (64 connections)",
           lambda r: r.keep_alive.requests_per_second, 0, "higher"),
    Figure("keep-alive latency p99 ms (64 connections, same run)", lambda r: r.keep_alive.p99_ms, 2, "lower"),
    Figure("new-connection requests/s (Connection: close)",
           lambda r: r.new_connection.requests_per_second, 0, "higher"),
    Figure("plain-HTTP download MB/s (100 MiB, absolute-form GET)",
           lambda r: r.download.megabytes_per_second, 0, "higher"),
    Figure("CONNECT tunnel MB/s (100 MiB over TLS)",
           lambda r: r.tunnel.megabytes_per_second, 0, "higher", needs=(HTTP_PROXY, CONNECT)),
    Figure("SOCKS5 tunnel MB/s (100 MiB over TLS)",
           lambda r: r.socks_tunnel.megabytes_per_second, 0, "higher", needs=(SOCKS5,)),
    Figure("latency p50 ms (1 connection)", lambda r: r.latency.p50_ms, 3, "lower"),
    Figure("latency p99 ms (1 connection)", lambda r: r.latency.p99_ms, 3, "lower"),
    Figure("RSS KiB per idle connection (partial request head)", _idle_kib(idle.PARTIAL), 1, "lower"),
    Figure("RSS KiB per idle connection (after a keep-alive request)", _idle_kib(idle.KEPT_ALIVE), 1, "lower"),
    Figure("RSS KiB per accepted idle connection that sent nothing", _idle_kib(idle.SILENT), 1, "lower"),
    Figure("file descriptors per idle CONNECT tunnel", lambda r: r.idle_tunnels.descriptors_per_tunnel, 2, "lower",
           needs=(HTTP_PROXY, CONNECT)),
    Figure("RSS KiB per idle CONNECT tunnel", lambda r: r.idle_tunnels.kib_per_tunnel, 1, "lower",
           needs=(HTTP_PROXY, CONNECT)),
    Figure("CPU µs per request (keep-alive run)", lambda r: r.keep_alive_cpu_us, 1, "lower"),
    Figure("CPU µs per request (new-connection run)", lambda r: r.new_connection_cpu_us, 1, "lower"),
    Figure("CPU µs per MiB, plain-HTTP download", lambda r: r.download.cpu_us_per_mib, 0, "lower"),
    Figure("CPU ms per GiB tunnelled (TLS download)", lambda r: r.tunnel.cpu_ms_per_gib, 0, "lower",
           needs=(HTTP_PROXY, CONNECT)),
    Figure("CPU ms per GiB through a SOCKS5 tunnel (TLS download)",
           lambda r: r.socks_tunnel.cpu_ms_per_gib, 0, "lower", needs=(SOCKS5,)),
    Figure("RSS MiB at start", lambda r: r.start_rss_kib / KIB_PER_MIB, 1, "lower", needs=()),
]


def table_rows(results):
    """Header plus one row per figure, from RepeatedResults; cells read "median (median ratio to direct×)", or
    "cannot" where the target does not speak what the figure needs (cannot_text says why)."""
    header = ["figure", "better"] + [result.name for result in results]
    rows = [header]
    for figure in FIGURES:
        combined = combine(results, figure)
        row = [figure.label, figure.better]
        for result in results:
            row.append(_cell(figure, combined.get(result.name), result.skipped,
                             any(kind in result.cannot for kind in figure.needs)))
        rows.append(row)
    return rows


def spread_rows(results):
    """The same grid with the lowest and highest same-repetition ratio to direct of each figure, "-" where
    there is no ratio (direct itself, a figure not measured)."""
    rows = [["ratio to direct, min–max", "better"] + [result.name for result in results]]
    for figure in FIGURES:
        combined = combine(results, figure)
        row = [figure.label, figure.better]
        for result in results:
            figures = combined.get(result.name)
            row.append("-" if figures is None or figures.ratio is None else
                       f"{figures.ratio_min:.2f}–{figures.ratio_max:.2f}")
        rows.append(row)
    return rows


def combined_figures(results):
    """name -> figure label -> Combined.as_dict(), for results.json."""
    table = {result.name: {} for result in results if not result.skipped}
    for figure in FIGURES:
        for name, figures in combine(results, figure).items():
            table[name][figure.label] = figures.as_dict()
    return table


def _cell(figure, combined, skipped, cannot):
    if skipped:
        return "skipped"
    if cannot:
        return "cannot"
    if combined is None or combined.median is None:
        return "n/a"
    text = f"{combined.median:,.{figure.digits}f}"
    if combined.ratio is not None:
        text += f" ({combined.ratio:.2f}×)"
    return text


def text_table(rows):
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    lines = []
    for index, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:])]
        lines.append("  ".join(cells))
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    return "\n".join(lines)


def markdown_table(rows):
    lines = ["| " + " | ".join(rows[0]) + " |",
             "|" + "|".join(["---", "---"] + ["---:"] * (len(rows[0]) - 2)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "\n".join(lines)


def cannot_text(results, bullet="- "):
    """Why each "cannot" cell of the main table is one."""
    return "\n".join(f"{bullet}{result.name}: no {kind} figures: {reason}"
                     for result in results if not result.skipped for kind, reason in result.cannot.items())


def problems_text(results, bullet="- "):
    lines = []
    for result in results:
        if result.skipped:
            lines.append(f"{bullet}{result.name}: skipped: {result.skipped}")
        for problem in result.problems:
            lines.append(f"{bullet}{result.name}: {problem}")
    return "\n".join(lines)


# TLS origination (harness/tls_origination.py): its own table, one column per proxy that was asked.
def tls_table_rows(tls_results):
    """Header plus, per run, a requests/s row and a CPU row; then whether the second upstream connection
    resumed its session. A proxy that could not originate TLS shows "cannot", one not run "skipped"; the
    notes under the table say why."""
    header = ["TLS origination", "better"] + [result.name for result in tls_results]
    rows = [header]

    def unmeasured(result):
        return "cannot" if result.cannot_originate else "skipped"

    def cells(extract, digits):
        row = []
        for result in tls_results:
            value = None if result.skipped else extract(result)
            row.append(unmeasured(result) if result.skipped else "n/a" if value is None
                       else f"{value:,.{digits}f}")
        return row

    for key, label in TLS_RUNS:
        rows.append([label, "higher"] + cells(lambda result: result.requests_per_second(key), 0))
        rows.append([f"CPU µs per request ({key} run)", "lower"] +
                    cells(lambda result: result.cpu_us_per_request(key), 1))
    rows.append(["second upstream session resumed (origin allows / refuses)", "-"] +
                [unmeasured(result) if result.skipped else
                 f"{_said(result.resumption.get('resumed'))} / {_said(result.resumption.get('full'))}"
                 for result in tls_results])
    return rows


def _said(reused):
    """nginx's $ssl_session_reused as a word."""
    return {"r": "yes", ".": "no"}.get(reused, "n/a")


# Resolver figures (harness/resolver.py): one column per proxy and resolver, no ratios.
RESOLVER_LATENCY_ROWS = (
    (COLD, 50, "cold request p50 ms (name new to the proxy, new connection)"),
    (COLD, 99, "cold request p99 ms"),
    (WARM, 50, "warm request p50 ms (same names again, cached)"),
    (WARM, 99, "warm request p99 ms"),
)


def resolver_table_rows(resolver_results):
    """Header plus the cache-hit rate (DoH column only; "-" elsewhere), the cold and warm latencies, and the
    queries the DNS server received in each round. Skipped columns say "skipped"; the notes say why."""
    header = ["resolver", "better"] + [result.name for result in resolver_results]
    rows = [header]

    def cell(result, value, digits):
        if result.skipped:
            return "skipped"
        return "n/a" if value is None else f"{value:,.{digits}f}"

    rows.append(["cache-hit lookups/s inside the daemon (median of 3)", "higher"] +
                [cell(result, result.lookup_rate.median if result.lookup_rate else None, 0)
                 if result.name in DOH_COLUMNS else "-" for result in resolver_results])
    for round_name, percent, label in RESOLVER_LATENCY_ROWS:
        rows.append([label, "lower"] + [cell(result, result.latency_ms(round_name, percent), 3)
                                        for result in resolver_results])
    rows.append(["DNS queries the resolver server received (cold / warm round)", "-"] +
                ["skipped" if result.skipped else
                 f"{result.dns_queries.get(COLD, 'n/a')} / {result.dns_queries.get(WARM, 'n/a')}"
                 for result in resolver_results])
    return rows


def resolver_notes_text(resolver_results, bullet="- "):
    problems = problems_text(resolver_results, bullet)
    lines = [problems] if problems else []
    lines += [f"{bullet}{result.name}: {note}" for result in resolver_results for note in result.notes]
    return "\n".join(lines)


# The scheduling scenario (harness/scheduling.py): one column per proxy, no ratios (there is no direct path to
# a name with three addresses).
def scheduling_table_rows(results, rounds):
    """Header plus, per mode, requests/s, latency, the share each address got, connection attempts to the dead
    address, failed requests and CPU per request; then the warm-up. "skipped" columns are explained below."""
    header = ["three addresses: dead, slow, fast", "better"] + [result.name for result in results]
    rows = [header]

    def cells(extract, digits):
        row = []
        for result in results:
            value = None if result.skipped else _safely(extract, result)
            row.append("skipped" if result.skipped else "n/a" if value is None else f"{value:,.{digits}f}")
        return row

    def shares(extract):
        row = []
        for result in results:
            value = None if result.skipped else _safely(extract, result)
            row.append("skipped" if result.skipped else "n/a" if value is None else
                       " / ".join(f"{value[name]:.0f}" for name, _ in ADDRESSES))
        return row

    names = " / ".join(name for name, _ in ADDRESSES)
    for mode in MODES:
        rows.append([f"{mode} requests/s (median of {rounds})", "higher"] +
                    cells(lambda result: result.requests_per_second(mode), 0))
        rows.append([f"{mode} latency p50 ms (median)", "lower"] +
                    cells(lambda result: result.latency_ms(mode, 50), 3))
        rows.append([f"{mode} latency p99 ms (median)", "lower"] +
                    cells(lambda result: result.latency_ms(mode, 99), 3))
        rows.append([f"{mode} share {names} %", "-"] + shares(lambda result: result.shares(mode)))
        rows.append([f"{mode} connection attempts to the dead address", "lower"] +
                    cells(lambda result: (result.received(mode) or {}).get(DEAD), 0))
        rows.append([f"{mode} requests answered after over 5 s or with an error status", "lower"] +
                    cells(lambda result: result.failed(mode), 0))
        rows.append([f"{mode} CPU µs per request", "lower"] +
                    cells(lambda result: result.cpu_us_per_request(mode), 1))
    rows.append([f"warm-up requests/s (first {WARM_UP_SECONDS} s, {KEEP_ALIVE})", "higher"] +
                cells(lambda result: result.warm_up.wrk.requests_per_second, 0))
    rows.append([f"warm-up share {names} %", "-"] +
                shares(lambda result: _percentages(result.warm_up.received)))
    rows.append(["SYNs dropped at the dead address, whole scenario (with retransmissions)", "lower"] +
                cells(lambda result: result.dead_syn_packets, 0))
    return rows


def _safely(extract, result):
    """The figure, or None when what it is read from was not measured (no warm-up run, say)."""
    try:
        return extract(result)
    except (AttributeError, TypeError, KeyError):
        return None


def _percentages(counts):
    total = sum(counts.values())
    return {name: 100 * count / total for name, count in counts.items()} if total else None
