"""`ipdirect resolve NAME --config FILE`: one line per address with its TTL left and its source (hosts, a
provider's name, system, `cache (NAME)` and `stale (NAME)` from the cache file, which it never writes); exit 2
with the reason when nothing resolves, 1 when the configuration cannot be used."""

import time

import pytest

from harness.dns_server import SYSTEM_RESOLVED_ADDRESS, SYSTEM_RESOLVED_NAME
from harness.httpdns_state import StubMode
from harness.network import UNUSED_LOOPBACK_ADDRESSES
from harness.ports import LOOPBACK
from harness.resolver_records import IPV6_LOOPBACK, RESOLVED_NAME, RESOLVED_TTL
from harness.resolver_scenarios import (RESOLVE_EXIT_CONFIG_ERROR, RESOLVE_EXIT_UNRESOLVED, assert_reached_origin,
                                        fetch_name,
                                        ipdirects,  # noqa: F401 (a fixture)
                                        resolver_additions, run_resolve, stub_provider, unreachable_provider,
                                        write_config)

PROVIDER = "stubjson"
# Cached lookups `--repeat` times; none of them may reach the provider.
REPEATED_LOOKUPS = 500
LONG_TTL = 300
# A min_ttl unlike any default, to see that system answers are kept that long.
SYSTEM_MIN_TTL = 47
SHORT_TTL = 1
PAST_SHORT_TTL_SECONDS = SHORT_TTL + 0.6


def config_for(tmp_path, network, certificates, additions, file_name="resolve.toml"):
    return write_config(tmp_path / file_name, network, certificates.ca_file, additions)


def assert_resolved(run, expected: list[tuple[str, str]]):
    """`expected`: (address, source) pairs, in order."""
    assert run.exit_code == 0, run.describe()
    assert [(line.address, line.source) for line in run.lines] == expected, run.describe()
    assert len(run.lines) == len(run.stdout.splitlines()), f"lines that are not address lines:\n{run.describe()}"


@pytest.mark.parametrize("name, source", [("origin.test", "hosts"), (LOOPBACK, "literal")])
def test_hosts_entry_and_literal_are_printed_with_their_source_and_no_ttl(tmp_path, network, certificates, name,
                                                                           source):
    run = run_resolve(name, config_for(tmp_path, network, certificates, resolver_additions()))
    assert_resolved(run, [(LOOPBACK, source)])
    assert run.lines[0].ttl == "-", run.describe()


def test_provider_answer_is_printed_with_the_providers_name_and_its_ttl(tmp_path, network, certificates,
                                                                        httpdns_stub):
    config = config_for(tmp_path, network, certificates, resolver_additions(stub_provider(httpdns_stub, PROVIDER)))
    run = run_resolve(RESOLVED_NAME, config, "--repeat", str(REPEATED_LOOKUPS))
    assert run.exit_code == 0, run.describe()
    assert [(line.address, line.source) for line in run.lines] == [(LOOPBACK, PROVIDER), (IPV6_LOOPBACK, PROVIDER)], \
        run.describe()
    assert all(0 < int(line.ttl) <= RESOLVED_TTL for line in run.lines), run.describe()
    timing = [line for line in run.stdout.splitlines() if line.startswith("lookups=")]
    assert len(timing) == 1 and f"lookups={REPEATED_LOOKUPS} " in timing[0], run.describe()
    assert (httpdns_stub.count("json", RESOLVED_NAME, "A"), httpdns_stub.count("json", RESOLVED_NAME, "AAAA")) \
        == (1, 1), "the repeated lookups were not answered from the cache"


def test_system_answer_is_printed_with_source_system(tmp_path, network, certificates, httpdns_stub):
    """With every provider down, the chain goes on to the system resolver, as the daemon's does."""
    httpdns_stub.set_mode(StubMode.http_error(503))
    additions = resolver_additions(unreachable_provider("first"), stub_provider(httpdns_stub, PROVIDER),
                                   order=("hosts", "httpdns", "system"), min_ttl=SYSTEM_MIN_TTL)
    run = run_resolve(SYSTEM_RESOLVED_NAME, config_for(tmp_path, network, certificates, additions))
    assert_resolved(run, [(SYSTEM_RESOLVED_ADDRESS, "system")])
    # System answers come without a TTL and are kept for min_ttl.
    assert SYSTEM_MIN_TTL - 2 <= int(run.lines[0].ttl) <= SYSTEM_MIN_TTL, run.describe()
    assert httpdns_stub.count("json", SYSTEM_RESOLVED_NAME) >= 1


def cache_written_by_the_daemon(ipdirects, stub, network, name, ttl, cache_file, **resolver_keys):
    """The daemon resolves `name` through the stub and saves its cache at SIGTERM; then the stub fails."""
    stub.set_record(name, a=[LOOPBACK], ttl=ttl)
    additions = resolver_additions(stub_provider(stub, PROVIDER), cache_file=str(cache_file), **resolver_keys)
    daemon = ipdirects.start(additions)
    assert_reached_origin(fetch_name(daemon, network, name), network, name)
    ipdirects.stop(daemon)
    assert cache_file.exists() and name in cache_file.read_text(), "the daemon saved no cache file"
    stub.state.reset_counts()
    stub.set_mode(StubMode.http_error(503))
    return additions


def test_answer_from_the_cache_file_is_printed_as_cache_and_the_file_is_left_alone(ipdirects, tmp_path, network,
                                                                                    certificates, httpdns_stub):
    name, cache_file = "cached.test", tmp_path / "resolver.cache"
    additions = cache_written_by_the_daemon(ipdirects, httpdns_stub, network, name, LONG_TTL, cache_file)
    saved, saved_stat = cache_file.read_bytes(), cache_file.stat()

    run = run_resolve(name, config_for(tmp_path, network, certificates, additions))
    assert_resolved(run, [(LOOPBACK, f"cache ({PROVIDER})")])
    assert 0 < int(run.lines[0].ttl) <= LONG_TTL, run.describe()
    assert httpdns_stub.count() == 0, "resolve asked the provider for a cached name"
    assert cache_file.read_bytes() == saved and cache_file.stat().st_mtime_ns == saved_stat.st_mtime_ns, \
        "resolve rewrote the cache file"
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(cache_file.name)) \
        == [cache_file.name]


def test_expired_answer_from_the_cache_file_is_printed_as_stale(ipdirects, tmp_path, network, certificates,
                                                                httpdns_stub):
    name, cache_file = "outdated.test", tmp_path / "resolver.cache"
    additions = cache_written_by_the_daemon(ipdirects, httpdns_stub, network, name, SHORT_TTL, cache_file,
                                            min_ttl=SHORT_TTL)
    time.sleep(PAST_SHORT_TTL_SECONDS)

    run = run_resolve(name, config_for(tmp_path, network, certificates, additions))
    assert_resolved(run, [(LOOPBACK, f"stale ({PROVIDER})")])


def test_nothing_resolving_exits_2_with_each_sources_reason(tmp_path, network, certificates, httpdns_stub):
    name = "nowhere.test"
    httpdns_stub.set_mode(StubMode.http_error(503))
    additions = resolver_additions(unreachable_provider("first"), stub_provider(httpdns_stub, "second"))
    run = run_resolve(name, config_for(tmp_path, network, certificates, additions))
    assert run.exit_code == RESOLVE_EXIT_UNRESOLVED, run.describe()
    assert run.stdout == "", run.describe()
    message = [line for line in run.stderr.splitlines() if line.startswith(f"ipdirect: cannot resolve {name}: ")]
    assert len(message) == 1, run.describe()
    assert "first" in message[0] and "second" in message[0] and "503" in message[0], run.describe()


def test_name_the_system_resolver_does_not_know_exits_2(tmp_path, network, certificates):
    name = "unknown-to-dnsmasq.test"
    run = run_resolve(name, config_for(tmp_path, network, certificates, resolver_additions(order=("hosts", "system"))))
    assert run.exit_code == RESOLVE_EXIT_UNRESOLVED, run.describe()
    assert run.stdout == "" and f"ipdirect: cannot resolve {name}: " in run.stderr, run.describe()


def test_unusable_configuration_exits_1(tmp_path):
    run = run_resolve(RESOLVED_NAME, tmp_path / "missing.toml")
    assert run.exit_code == RESOLVE_EXIT_CONFIG_ERROR, run.describe()
    assert run.stdout == "" and "missing.toml" in run.stderr, run.describe()


def test_port_option_connects_to_every_address_and_ranks_the_working_one_first(tmp_path, network, certificates):
    # fallback.test lists an address where nothing listens first, then the plain origin.
    config = config_for(tmp_path, network, certificates, resolver_additions())
    run = run_resolve("fallback.test", config, "--port", str(network.nginx_http_port))
    assert run.exit_code == 0, run.describe()
    ranking = [line.split() for line in run.stdout.splitlines() if line.startswith("rank ")]
    assert [(fields[1], fields[2], fields[3]) for fields in ranking] == [
        ("1", f"{LOOPBACK}:{network.nginx_http_port}", "healthy"),
        ("2", f"{UNUSED_LOOPBACK_ADDRESSES[0]}:{network.nginx_http_port}", "quarantined"),
    ], run.describe()
