"""`ipdirect check --config FILE` reports each problem as `FILE:LINE: message` and exits 1; `--version` works."""

import re
import subprocess
from pathlib import Path

import pytest

from harness.certificates import SELF_SIGNED_HOST_NAME, spki_sha256
from harness.ipdirect_proxy import ipdirect_binary, ipdirect_config_text
from harness.network import Network
from harness.tls_origination import tls_origination_additions

COMMAND_TIMEOUT_SECONDS = 30
# Ports written into the checked configs; nothing is started on them.
EXAMPLE_LISTEN = "127.0.0.1:3128"
EXAMPLE_NETWORK = Network(nginx_http_port=8080, nginx_https_port=8443, upload_port=8081, counting_port=8082,
                          closed_port=8083, blackhole_port=8084, digest_port=8085, dns_server="127.0.0.1:5353",
                          static_hosts={"a.test": ["127.0.0.1"]})

# (line of the valid config, replacement that makes it wrong) — one problem per config.
SINGLE_PROBLEMS = {
    "value-of-the-wrong-type": ("connect_timeout = 2", 'connect_timeout = "soon"'),
    "listen-port-out-of-range": (f'listen = ["{EXAMPLE_LISTEN}"]', 'listen = ["127.0.0.1:99999"]'),
    "unknown-resolver-in-order": ('order = ["hosts", "system"]', 'order = ["hosts", "carrier-pigeon"]'),
    "hosts-entry-that-is-not-an-address": ('"a.test" = ["127.0.0.1"]', '"a.test" = ["not-an-address"]'),
    "connect-port-out-of-range": ("connect_ports = [443, 8443, 8085]", "connect_ports = [443, 70000]"),
    "nameserver-that-is-not-an-address": ('system_nameservers = ["127.0.0.1:5353"]',
                                          'system_nameservers = ["nameserver.invalid"]'),
    "misspelled-key": ("max_header_bytes = 32768", "max_header_bytez = 32768"),
    "toml-syntax-error": ("max_connections = 10000", "max_connections = "),
}


def valid_config_text(ca_file: Path) -> str:
    return ipdirect_config_text([EXAMPLE_LISTEN], EXAMPLE_NETWORK, ca_file)


def with_replacements(text: str, replacements: list[tuple[str, str]]) -> tuple[str, list[int]]:
    """The config with whole lines replaced, and the 1-based numbers of the replaced lines."""
    lines = text.split("\n")
    numbers = []
    for original, replacement in replacements:
        index = lines.index(original)
        lines[index] = replacement
        numbers.append(index + 1)
    return "\n".join(lines), numbers


def run_ipdirect(*arguments: str) -> subprocess.CompletedProcess:
    binary = ipdirect_binary()
    assert binary.exists(), f"no ipdirect binary at {binary}"
    return subprocess.run([str(binary), *arguments], capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT_SECONDS, stdin=subprocess.DEVNULL)


def reported_lines(output: str, config: Path) -> set[int]:
    pattern = re.compile(rf"^{re.escape(str(config))}:(\d+): \S.*$", re.MULTILINE)
    return {int(number) for number in pattern.findall(output)}


def test_valid_config_passes_check(tmp_path, certificates):
    config = tmp_path / "valid.toml"
    config.write_text(valid_config_text(certificates.ca_file))
    completed = run_ipdirect("check", "--config", str(config))
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_check_accepts_every_tls_origination_key_the_tests_use(tmp_path, certificates):
    additions = tls_origination_additions(
        https_upgrade=["a.test", "*.example.test", f"b.test:{EXAMPLE_NETWORK.nginx_https_port}"],
        pins={"a.test": [spki_sha256(certificates.virtual_hosts["a.test"].chain)]},
        insecure_hosts=[SELF_SIGNED_HOST_NAME], upstream_max_idle_per_host=0)
    config = tmp_path / "tls-origination.toml"
    config.write_text(ipdirect_config_text([EXAMPLE_LISTEN], EXAMPLE_NETWORK, certificates.ca_file,
                                           additions=additions))
    completed = run_ipdirect("check", "--config", str(config))
    assert completed.returncode == 0, f"{completed.stdout}{completed.stderr}\n--- config:\n{config.read_text()}"


@pytest.mark.parametrize("problem", SINGLE_PROBLEMS.values(), ids=SINGLE_PROBLEMS.keys())
def test_check_reports_the_file_and_line_of_a_problem_and_exits_1(tmp_path, certificates, problem):
    text, (line,) = with_replacements(valid_config_text(certificates.ca_file), [problem])
    config = tmp_path / "broken.toml"
    config.write_text(text)
    completed = run_ipdirect("check", "--config", str(config))
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, f"exit {completed.returncode}:\n{output}"
    assert line in reported_lines(output, config), f"expected {config}:{line}: ...\ngot:\n{output}"


def test_check_reports_every_problem_in_one_run(tmp_path, certificates):
    problems = [SINGLE_PROBLEMS["value-of-the-wrong-type"], SINGLE_PROBLEMS["unknown-resolver-in-order"],
                SINGLE_PROBLEMS["connect-port-out-of-range"]]
    text, lines = with_replacements(valid_config_text(certificates.ca_file), problems)
    config = tmp_path / "broken.toml"
    config.write_text(text)
    completed = run_ipdirect("check", "--config", str(config))
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    assert set(lines) <= reported_lines(output, config), f"expected lines {lines}:\n{output}"


def test_check_of_a_missing_file_exits_1(tmp_path):
    completed = run_ipdirect("check", "--config", str(tmp_path / "absent.toml"))
    assert completed.returncode == 1
    assert "absent.toml" in completed.stdout + completed.stderr


def test_version_prints_a_version_number(tmp_path):
    completed = run_ipdirect("--version")
    assert completed.returncode == 0
    assert re.search(r"\d+\.\d+", completed.stdout), completed.stdout
