"""`[resolver] cache_file`: the cache survives a restart (written at SIGTERM and SIGINT, and periodically,
always by rename), and answers past their stale window are dropped when it is loaded."""

import signal
import time

import pytest

from harness.httpdns_state import StubMode
from harness.ports import LOOPBACK
from harness.proxy_status import assert_generated_error
from harness.resolver_records import IPV6_LOOPBACK
from harness.resolver_scenarios import (assert_reached_origin, events, fetch_name,
                                        ipdirects,  # noqa: F401 (a fixture)
                                        resolver_additions, stub_provider, wait_for_access_lines, wait_for_event,
                                        wait_until)

PROVIDER = "stubjson"
# Long enough that nothing expires or comes due for refresh during a test.
LONG_TTL = 300
# An answer that is past its TTL and its stale window after SHORT_TTL + SHORT_STALE seconds.
SHORT_TTL = 1
SHORT_STALE = 1
PAST_STALE_WINDOW_SECONDS = SHORT_TTL + SHORT_STALE + 1.0
PAST_SHORT_TTL_SECONDS = SHORT_TTL + 0.6
# The shortest period between saves ipdirect accepts, and how long to wait for a periodic save.
CACHE_WRITE_INTERVAL = 10
PERIODIC_SAVE_WAIT_SECONDS = CACHE_WRITE_INTERVAL + 8.0
# A damaged cache file line far longer than any log line may be.
LONG_FIELD_BYTES = 300_000
# The longest log line a damaged line may produce: a bounded quote of it plus the event's own words.
MAX_LOG_LINE_BYTES = 600
# A cache file line with a 300 KB field, by the field that is too long; each is quoted in the problem's reason.
LONG_FIELD_LINES = {
    "version": "x" * LONG_FIELD_BYTES + "\n",
    "name": "ipdirect-cache 1\n" + "n" * LONG_FIELD_BYTES + " v4 1763824490000 300 127.0.0.1 system\n",
    "address": "ipdirect-cache 1\nlong.test v4 1763824490000 300 " + "9" * LONG_FIELD_BYTES + " system\n",
}


def cache_additions(stub, cache_file, **resolver_keys):
    return resolver_additions(stub_provider(stub, PROVIDER), cache_file=str(cache_file), **resolver_keys)


def cache_names(cache_file) -> set[str]:
    """The names in a cache file: the first field of each line after the version line and comments."""
    lines = cache_file.read_text().splitlines()[1:]
    return {line.split()[0] for line in lines if line.strip() and not line.startswith("#")}


def leftover_temporaries(cache_file) -> list[str]:
    return sorted(path.name for path in cache_file.parent.iterdir()
                  if path.name.startswith(cache_file.name) and path != cache_file)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_cache_survives_a_restart_and_answers_without_asking_the_provider(ipdirects, httpdns_stub, network,
                                                                          tmp_path, signum):
    name = "persist.test"
    cache_file = tmp_path / "resolver.cache"
    httpdns_stub.set_record(name, a=[LOOPBACK], ttl=LONG_TTL)
    first = ipdirects.start(cache_additions(httpdns_stub, cache_file))
    fetched_at = time.monotonic()
    assert_reached_origin(fetch_name(first, network, name), network, name)
    assert wait_for_access_lines(first, network, name, 1)[0]["source"] == PROVIDER
    # No periodic save is due yet, so only the shutdown can write the answer.
    assert not cache_file.exists() or name not in cache_names(cache_file), cache_file.read_text()
    ipdirects.stop(first, signum)
    assert cache_file.exists(), f"no cache file after {signum.name}"
    assert name in cache_names(cache_file), cache_file.read_text()
    assert leftover_temporaries(cache_file) == []

    # Were the provider asked now, it would fail and the stub would count it.
    httpdns_stub.state.reset_counts()
    httpdns_stub.set_mode(StubMode.http_error(503))
    second = ipdirects.start(cache_additions(httpdns_stub, cache_file))
    loaded = wait_for_event(second, "cache_file_loaded", since_start=True)
    assert int(loaded["entries"]) >= 1 and loaded["path"] == str(cache_file), loaded
    fetched = fetch_name(second, network, name)
    assert_reached_origin(fetched, network, name)
    [line] = wait_for_access_lines(second, network, name, 1)
    assert (line["source"], line["upstream"]) == (f"cache:{PROVIDER}", f"{LOOPBACK}:{network.nginx_http_port}")
    # The answer's age counts the time ipdirect was down.
    age_bound_ms = (time.monotonic() - fetched_at) * 1000
    assert 0.5 * age_bound_ms <= int(line["cache_age_ms"]) <= age_bound_ms + 1000, (line, age_bound_ms)
    assert httpdns_stub.count() == 0, "the restarted ipdirect asked the provider"
    counters = ipdirects.stop_for_counters(second)
    assert counters.cache["hits"] >= 1 and counters.queries.get(PROVIDER, {}) == {}, counters.line


def test_answers_past_their_stale_window_are_dropped_on_load(ipdirects, httpdns_stub, network, tmp_path):
    short, long = "short.test", "long.test"
    cache_file = tmp_path / "resolver.cache"
    httpdns_stub.set_record(short, a=[LOOPBACK], ttl=SHORT_TTL)
    # Both families, so that nothing of `long` is missing after the load (a missing family is fetched).
    httpdns_stub.set_record(long, a=[LOOPBACK], aaaa=[IPV6_LOOPBACK], ttl=LONG_TTL)
    keys = dict(min_ttl=SHORT_TTL, negative_ttl=SHORT_TTL, serve_stale=SHORT_STALE)
    first = ipdirects.start(cache_additions(httpdns_stub, cache_file, **keys))
    for name in (short, long):
        assert_reached_origin(fetch_name(first, network, name), network, name)
    ipdirects.stop(first)
    assert {short, long} <= cache_names(cache_file), cache_file.read_text()
    time.sleep(PAST_STALE_WINDOW_SECONDS)

    httpdns_stub.state.reset_counts()
    httpdns_stub.set_mode(StubMode.http_error(503))
    second = ipdirects.start(cache_additions(httpdns_stub, cache_file, **keys))
    loaded = wait_for_event(second, "cache_file_loaded", since_start=True)
    assert int(loaded["expired_dropped"]) >= 1 and int(loaded["entries"]) >= 1, loaded
    assert_reached_origin(fetch_name(second, network, long), network, long)
    assert wait_for_access_lines(second, network, long, 1)[0]["source"] == f"cache:{PROVIDER}"
    dropped = fetch_name(second, network, short)
    assert_generated_error(dropped.response, 502, {"dns_error"}, mentions=(short,))
    assert httpdns_stub.count("json", short) >= 1 and httpdns_stub.count("json", long) == 0
    assert not events(second.stderr_since_mark(), "serve_stale", name=short)

    ipdirects.stop(second)
    assert short not in cache_names(cache_file) and long in cache_names(cache_file), cache_file.read_text()


def test_cache_file_is_saved_periodically_while_running(ipdirects, httpdns_stub, network, tmp_path):
    name = "periodic.test"
    cache_file = tmp_path / "resolver.cache"
    httpdns_stub.set_record(name, a=[LOOPBACK], ttl=LONG_TTL)
    proxy = ipdirects.start(cache_additions(httpdns_stub, cache_file, cache_write_interval=CACHE_WRITE_INTERVAL))
    assert_reached_origin(fetch_name(proxy, network, name), network, name)
    wait_until(lambda: cache_file.exists() and name in cache_names(cache_file), "a periodic save of the cache",
               timeout=PERIODIC_SAVE_WAIT_SECONDS)
    assert proxy.is_running()
    assert leftover_temporaries(cache_file) == []


def restart_with_the_provider_failing(ipdirects, stub, network, cache_file, name, ttl, downtime=0.0,
                                      **resolver_keys):
    """ipdirect resolves `name` (a record of `ttl`, or no record at all when `ttl` is None) and is stopped for
    `downtime` seconds; then the provider fails, so only the cache file can answer. Returns the restarted
    ipdirect."""
    if ttl is not None:
        stub.set_record(name, a=[LOOPBACK], ttl=ttl)
    first = ipdirects.start(cache_additions(stub, cache_file, **resolver_keys))
    fetch_name(first, network, name)
    ipdirects.stop(first)
    assert name in cache_names(cache_file), cache_file.read_text()
    time.sleep(downtime)
    stub.state.reset_counts()
    stub.set_mode(StubMode.http_error(503))
    return ipdirects.start(cache_additions(stub, cache_file, **resolver_keys))


def test_expired_answer_from_the_file_is_served_stale_while_the_provider_is_down(ipdirects, httpdns_stub, network,
                                                                                 tmp_path):
    name = "expiring.test"
    cache_file = tmp_path / "resolver.cache"
    second = restart_with_the_provider_failing(ipdirects, httpdns_stub, network, cache_file, name, SHORT_TTL,
                                               downtime=PAST_SHORT_TTL_SECONDS, min_ttl=SHORT_TTL)

    assert_reached_origin(fetch_name(second, network, name), network, name)
    [line] = wait_for_access_lines(second, network, name, 1)
    assert line["source"] == f"stale:{PROVIDER}", line
    # Served at once; the refresh it started is the only query, and it failed.
    wait_for_event(second, "httpdns_failed", provider=PROVIDER, name=name)
    assert httpdns_stub.count("json", name, "A") == 1


def test_no_such_name_survives_a_restart(ipdirects, httpdns_stub, network, tmp_path):
    name = "nonexistent.test"
    cache_file = tmp_path / "resolver.cache"
    second = restart_with_the_provider_failing(ipdirects, httpdns_stub, network, cache_file, name, None)
    fetched = fetch_name(second, network, name)
    assert_generated_error(fetched.response, 502, {"dns_error"}, mentions=(name, "no such name"))
    assert httpdns_stub.count() == 0, "the restarted ipdirect asked the provider"


def test_damaged_cache_file_is_reported_and_replaced(ipdirects, httpdns_stub, network, tmp_path):
    name = "afterdamage.test"
    cache_file = tmp_path / "resolver.cache"
    cache_file.write_text("this is not a cache file\n")
    damaged_inode = cache_file.stat().st_ino
    httpdns_stub.set_record(name, a=[LOOPBACK], ttl=LONG_TTL)
    proxy = ipdirects.start(cache_additions(httpdns_stub, cache_file))
    problem = wait_for_event(proxy, "cache_file_problem", since_start=True)
    assert problem["path"] == str(cache_file), problem
    assert_reached_origin(fetch_name(proxy, network, name), network, name)
    assert wait_for_access_lines(proxy, network, name, 1)[0]["source"] == PROVIDER
    ipdirects.stop(proxy)
    assert cache_file.read_text().startswith("ipdirect-cache 1\n") and name in cache_names(cache_file), \
        cache_file.read_text()
    # A new file renamed over the old one, never the old one rewritten in place.
    assert cache_file.stat().st_ino != damaged_inode
    assert leftover_temporaries(cache_file) == []


@pytest.mark.parametrize("long_field", sorted(LONG_FIELD_LINES))
def test_a_cache_file_line_of_300_kilobytes_is_quoted_in_the_log_as_a_short_prefix(ipdirects, httpdns_stub, tmp_path,
                                                                                   long_field):
    cache_file = tmp_path / "resolver.cache"
    cache_file.write_text(LONG_FIELD_LINES[long_field])
    proxy = ipdirects.start(cache_additions(httpdns_stub, cache_file))
    # Lengths first: parsing the fields of a 300 KB line takes minutes.
    wait_until(lambda: "event=cache_file_loaded" in proxy.process.stderr_text(), "event=cache_file_loaded")
    lines = proxy.process.stderr_text().splitlines()
    long_lines = [line for line in lines if len(line.encode()) > MAX_LOG_LINE_BYTES]
    assert not long_lines, f"{len(long_lines)} log lines over {MAX_LOG_LINE_BYTES} bytes, the first " \
                           f"{len(long_lines[0].encode())} bytes long: {long_lines[0][:300]}..."
    [problem] = events("\n".join(lines), "cache_file_problem")
    assert f"({LONG_FIELD_BYTES} bytes)" in problem["reason"], problem
    [loaded] = events("\n".join(lines), "cache_file_loaded")
    assert (loaded["entries"], loaded["problems"]) == ("0", "1"), loaded
