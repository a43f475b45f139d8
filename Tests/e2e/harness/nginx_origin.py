"""A real nginx as the origin: one plain HTTP server, and on ONE ip:port two HTTPS virtual hosts chosen by SNI.

Everything (config, pid, logs, temp dirs, pages) lives under its own prefix; it listens on loopback only, on
ports picked at run time.

Plain HTTP (`http_port`):
  /                  static index ("plain origin")
  /static/page.html  static file: ETag for 304 (RFC 9110 §13.1.2), Content-Length for HEAD
  /echo              "host=<Host> cookie=<Cookie> connection=<nginx connection serial> requests=<n on it>"
  /no-content        204
  /redirect          302 to /echo on the same Host
  /upload            streamed (no request buffering) to the Python upload origin, which hashes the body
  /ws                WebSocket Upgrade proxied to the Python echo server
HTTPS (`https_port`): a.test, b.test and api.example.test each with their own certificate, plus a default
server; expired.test, wrong.test, selfsigned.test and unknown-ca.test each present one kind of bad certificate.
Every page says "vhost=<name> sni=<SNI> session_reused=<r or .> host=<Host> connection=<nginx connection serial>
requests=<n on it>", so TLS tests can see which name the client sent, session resumption and connection reuse.
"""

import os
from dataclasses import dataclass
from pathlib import Path

from .certificates import DEFAULT_HOST_NAME, VIRTUAL_HOST_NAMES, OriginCertificates
from .ports import LOOPBACK
from .processes import ManagedProcess, start_on_free_ports

# Keep-alive requests per connection: high so that nginx never closes a connection mid-test on its own.
KEEPALIVE_REQUESTS = 1_000_000
# Enough for 200 concurrent clients through a proxy that opens one upstream connection per client.
WORKER_CONNECTIONS = 4096
STATIC_PAGE_TEXT = "static page served by the plain origin\n" * 8
INDEX_TEXT = "plain origin\n"


@dataclass
class NginxOrigin:
    prefix: Path
    http_port: int
    https_port: int
    process: ManagedProcess
    host: str = LOOPBACK

    def stop(self) -> None:
        self.process.stop()

    def access_log(self) -> str:
        return (self.prefix / "logs" / "access.log").read_text(errors="replace")


def start_nginx_origin(prefix: Path, certificates: OriginCertificates, upload_port: int,
                       websocket_port: int) -> NginxOrigin:
    _write_pages(prefix)
    for subdirectory in ("logs", "tmp"):
        (prefix / subdirectory).mkdir(parents=True, exist_ok=True)
    config = prefix / "nginx.conf"

    def command_for(ports: list[int]) -> list[str]:
        config.write_text(_config_text(prefix, *ports, certificates, upload_port, websocket_port))
        return ["nginx", "-p", str(prefix), "-c", str(config), "-e", str(prefix / "logs" / "error.log")]

    process, (http_port, https_port) = start_on_free_ports(
        "nginx", 2, prefix / "logs", command_for,
        failure_detail=lambda: (prefix / "logs" / "error.log").read_text(errors="replace")[-4000:])
    return NginxOrigin(prefix, http_port, https_port, process)


def _write_pages(prefix: Path) -> None:
    html = prefix / "html"
    (html / "static").mkdir(parents=True, exist_ok=True)
    (html / "index.html").write_text(INDEX_TEXT)
    (html / "static" / "page.html").write_text(STATIC_PAGE_TEXT)


def _config_text(prefix: Path, http_port: int, https_port: int, certificates: OriginCertificates,
                 upload_port: int, websocket_port: int) -> str:
    # As root the master would hand requests to workers running as nobody, who cannot read the test's
    # private temp dir; outside root nginx ignores the directive anyway.
    user_line = "user root;" if os.geteuid() == 0 else ""
    temp = prefix / "tmp"
    vhost_page = ('default_type text/plain; add_header X-SSL-Session-Reused $ssl_session_reused always; '
                  'return 200 "vhost={name} sni=$ssl_server_name session_reused=$ssl_session_reused '
                  'host=$http_host connection=$connection requests=$connection_requests\\n";')

    def tls_server(name: str, chain: Path, key: Path, default: bool) -> str:
        return f"""
    server {{
        listen {LOOPBACK}:{https_port} ssl{' default_server' if default else ''};
        server_name {name};
        ssl_certificate {chain};
        ssl_certificate_key {key};
        location / {{ {vhost_page.format(name=name)} }}
    }}"""

    tls_servers = tls_server(DEFAULT_HOST_NAME, certificates.default.chain, certificates.default.key, True)
    for name in VIRTUAL_HOST_NAMES:
        pair = certificates.virtual_hosts[name]
        tls_servers += tls_server(name, pair.chain, pair.key, False)
    for name, pair in certificates.failure_hosts.items():
        tls_servers += tls_server(name, pair.chain, pair.key, False)

    return f"""
{user_line}
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log info;
events {{ worker_connections {WORKER_CONNECTIONS}; }}
http {{
    log_format e2e '$remote_addr:$remote_port conn=$connection req=$connection_requests "$request" '
                   '$status $body_bytes_sent host=$http_host sni=$ssl_server_name reused=$ssl_session_reused';
    access_log {prefix}/logs/access.log e2e;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    types {{ text/html html; text/plain txt; }}
    default_type application/octet-stream;
    keepalive_requests {KEEPALIVE_REQUESTS};
    ssl_session_cache shared:e2e:1m;
    ssl_session_tickets on;
    server_tokens off;
    # The proxy's own head limit (32 KiB by default) is what the tests probe, not nginx's 8 KiB lines.
    large_client_header_buffers 4 64k;

    server {{
        listen {LOOPBACK}:{http_port} default_server;
        server_name origin.test;
        root {prefix}/html;
        location / {{ }}
        location = /echo {{
            default_type text/plain;
            return 200 "host=$http_host cookie=$http_cookie connection=$connection requests=$connection_requests\\n";
        }}
        location = /no-content {{ return 204; }}
        location = /redirect {{ return 302 "http://$http_host/echo"; }}
        location /upload {{
            client_max_body_size 0;
            proxy_request_buffering off;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Connection "";
            proxy_pass http://{LOOPBACK}:{upload_port};
        }}
        location /ws {{
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_set_header Host $http_host;
            proxy_pass http://{LOOPBACK}:{websocket_port};
        }}
    }}
{tls_servers}
}}
"""
