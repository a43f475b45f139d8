"""The assertion helpers of the ipdirect-only tests, checked on made-up inputs so their verdicts can be trusted
before the binary exists."""

import pytest

from harness.proxy_status import assert_generated_error, proxy_error_type
from harness.raw_http import RawResponse
from test_check_command import SINGLE_PROBLEMS, reported_lines, valid_config_text, with_replacements

pytestmark = pytest.mark.harness


def generated_error(status=502, proxy_status='ipdirect; error=connection_refused; details="127.0.0.1:81"',
                    content_type="text/plain; charset=utf-8", body=b"connect to 127.0.0.1:81 refused\n"):
    return RawResponse(status, "Bad Gateway", [("Proxy-Status", proxy_status), ("Content-Type", content_type)],
                       body)


def test_generated_error_check_accepts_a_conforming_response():
    assert_generated_error(generated_error(), 502, {"connection_refused"}, mentions=("127.0.0.1:81",))


@pytest.mark.parametrize("response", [
    pytest.param(generated_error(status=503), id="wrong-status"),
    pytest.param(generated_error(proxy_status="squid; error=connection_refused"), id="another-proxys-member"),
    pytest.param(generated_error(proxy_status="ipdirect; error=refused"), id="unregistered-error-type"),
    pytest.param(generated_error(proxy_status="ipdirect; error=dns_error"), id="unexpected-error-type"),
    pytest.param(generated_error(content_type="text/html"), id="not-text-plain"),
    pytest.param(generated_error(body=b"line one\nline two\n"), id="two-line-body"),
    pytest.param(generated_error(body=b"refused\n", proxy_status="ipdirect; error=connection_refused"),
                 id="address-not-named"),
])
def test_generated_error_check_rejects(response):
    with pytest.raises(AssertionError):
        assert_generated_error(response, 502, {"connection_refused"}, mentions=("127.0.0.1:81",))


def test_proxy_status_parser_finds_ipdirect_among_several_members():
    response = generated_error(proxy_status='upstream; error=http_protocol_error, ipdirect; error=dns_error')
    assert proxy_error_type(response) == "dns_error"


def test_every_config_problem_replaces_a_line_of_the_valid_config(tmp_path):
    valid = valid_config_text(tmp_path / "ca.pem")
    for problem in SINGLE_PROBLEMS.values():
        broken, (line,) = with_replacements(valid, [problem])
        assert broken.split("\n")[line - 1] == problem[1]


def test_check_output_parser_reads_file_and_line_numbers(tmp_path):
    config = tmp_path / "broken.toml"
    output = f"{config}:3: connect_timeout must be an integer\n{config}:12: unknown resolver\nother:4: x\n"
    assert reported_lines(output, config) == {3, 12}
