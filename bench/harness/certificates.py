"""A throw-away certificate authority and a server certificate for bench.test (and the benchmark's DoH
server, doh.test), made with the openssl CLI."""

import os
import subprocess

# Short-lived: the certificates are remade on every run.
VALIDITY_DAYS = "2"
# P-256 keeps handshakes cheap; the bulk figure measures the tunnel, not key exchange.
KEY_ALGORITHM = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
# The names clients check (RFC 6125): the host name through a proxy, the address for a direct check, and
# the name in the URL of the DoH server of the resolver figures (reached by its bootstrap address).
SERVER_NAMES = "DNS:bench.test,DNS:doh.test,IP:127.0.0.1"


class Certificates:
    """Paths of the PEM files in one directory."""

    def __init__(self, directory):
        self.directory = directory
        self.ca_certificate = os.path.join(directory, "ca.pem")
        self.ca_key = os.path.join(directory, "ca.key")
        self.server_certificate = os.path.join(directory, "server.pem")
        self.server_key = os.path.join(directory, "server.key")

    def __str__(self):
        return f"certificates in {self.directory}"

    def create(self):
        os.makedirs(self.directory, exist_ok=True)
        request = os.path.join(self.directory, "server.csr")
        extensions = os.path.join(self.directory, "server.ext")
        with open(extensions, "w") as ext:
            ext.write("basicConstraints = critical, CA:FALSE\n"
                      "keyUsage = critical, digitalSignature\n"
                      "extendedKeyUsage = serverAuth\n"
                      f"subjectAltName = {SERVER_NAMES}\n")
        _openssl("req", "-x509", *KEY_ALGORITHM, "-nodes", "-days", VALIDITY_DAYS,
                 "-subj", "/CN=ipdirect benchmark CA",
                 "-addext", "basicConstraints = critical, CA:TRUE",
                 "-addext", "keyUsage = critical, keyCertSign, cRLSign",
                 "-keyout", self.ca_key, "-out", self.ca_certificate)
        _openssl("req", "-new", *KEY_ALGORITHM, "-nodes", "-subj", "/CN=bench.test",
                 "-keyout", self.server_key, "-out", request)
        _openssl("x509", "-req", "-in", request, "-CA", self.ca_certificate, "-CAkey", self.ca_key,
                 "-CAcreateserial", "-days", VALIDITY_DAYS, "-extfile", extensions,
                 "-out", self.server_certificate)
        # nginx's workers drop to an unprivileged user but read the key in the master, as root.
        os.chmod(self.server_key, 0o600)


def _openssl(*arguments):
    result = subprocess.run(["openssl", *arguments], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"openssl {arguments[0]} failed:\n{result.stderr}")
