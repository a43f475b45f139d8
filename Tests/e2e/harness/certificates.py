"""A test CA and the server certificates the origins present, minted fresh for every test run.

Besides the good virtual hosts, the HTTPS origin serves one host per way a certificate can be wrong, so the
proxy's TLS origination can be shown to refuse each: expired, naming another host, self-signed, and issued by
a CA the proxy does not trust.
"""

import base64
import datetime
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

# Names the HTTPS origin serves as virtual hosts, each with its own good certificate. The last one is matched
# by a `*.example.test` https_upgrade rule.
VIRTUAL_HOST_NAMES = ("a.test", "b.test", "api.example.test")
# The certificate of the default server, for a client that sends no or an unknown SNI name.
DEFAULT_HOST_NAME = "default.test"
LOOPBACK_ADDRESS = "127.0.0.1"
# Hosts whose certificate is bad in one way each.
EXPIRED_HOST_NAME = "expired.test"
WRONG_HOST_NAME = "wrong.test"
SELF_SIGNED_HOST_NAME = "selfsigned.test"
UNKNOWN_CA_HOST_NAME = "unknown-ca.test"
FAILURE_HOST_NAMES = (EXPIRED_HOST_NAME, WRONG_HOST_NAME, SELF_SIGNED_HOST_NAME, UNKNOWN_CA_HOST_NAME)
# The only name on the certificate that wrong.test presents.
OTHER_HOST_NAME = "elsewhere.test"
# Names under example.test that TLS origination checks against wildcard certificates (RFC 9525 §6.3).
WILDCARD_TEST_NAMES = ("a.example.test", "a.b.example.test", "foo.example.test")
# A lifetime long enough to outlast any test run.
VALIDITY = datetime.timedelta(days=7)


@dataclass(frozen=True)
class CertificatePair:
    """A PEM certificate chain (leaf first) and its private key."""
    chain: Path
    key: Path


@dataclass(frozen=True)
class OriginCertificates:
    ca_file: Path
    virtual_hosts: dict[str, CertificatePair]
    default: CertificatePair
    expired: CertificatePair       # for expired.test, valid name, not_after in the past
    wrong_name: CertificatePair    # signed by the test CA, names only elsewhere.test; wrong.test presents it
    self_signed: CertificatePair   # for selfsigned.test, signed by itself, unknown to any trust store
    unknown_ca: CertificatePair    # for unknown-ca.test, signed by a second CA that nothing trusts
    # The CA behind `ca_file`, for servers that need a certificate of their own later (see doh_certificates).
    authority: trustme.CA | None = field(default=None, repr=False, compare=False)

    def issue(self, directory: Path, file_stem: str, *names: str) -> CertificatePair:
        """A fresh leaf from the test CA naming `names` (host names or IP addresses), written to `directory`."""
        return _issue(self.authority, directory, file_stem, *names)

    def issue_verbatim(self, directory: Path, file_stem: str, *dns_names: str) -> CertificatePair:
        """A fresh leaf from the test CA carrying `dns_names` as written, for names trustme refuses to encode
        (partial or repeated wildcards such as `f*.example.test`)."""
        return _issue_verbatim(self.authority, directory, file_stem, dns_names)

    @property
    def failure_hosts(self) -> dict[str, CertificatePair]:
        """Host name served by the HTTPS origin -> the bad certificate it presents for that name."""
        return {
            EXPIRED_HOST_NAME: self.expired,
            WRONG_HOST_NAME: self.wrong_name,
            SELF_SIGNED_HOST_NAME: self.self_signed,
            UNKNOWN_CA_HOST_NAME: self.unknown_ca,
        }


def make_test_certificates(directory: Path) -> OriginCertificates:
    directory.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA(organization_name="ipdirect e2e test CA")
    ca_file = directory / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))

    def issue(file_stem: str, *names: str, **validity) -> CertificatePair:
        return _issue(ca, directory, file_stem, *names, **validity)

    now = datetime.datetime.now(datetime.timezone.utc)
    return OriginCertificates(
        ca_file=ca_file,
        virtual_hosts={name: issue(name, name) for name in VIRTUAL_HOST_NAMES},
        # 127.0.0.1 as an IP name too: a request naming the address itself is verified against it.
        default=issue(DEFAULT_HOST_NAME, DEFAULT_HOST_NAME, LOOPBACK_ADDRESS),
        expired=issue(EXPIRED_HOST_NAME, EXPIRED_HOST_NAME,
                      not_before=now - 2 * VALIDITY, not_after=now - VALIDITY),
        wrong_name=issue(WRONG_HOST_NAME, OTHER_HOST_NAME),
        self_signed=_self_signed(directory, SELF_SIGNED_HOST_NAME, SELF_SIGNED_HOST_NAME, now),
        unknown_ca=_issue_from_untrusted_ca(directory, UNKNOWN_CA_HOST_NAME),
        authority=ca,
    )


def _issue(ca: trustme.CA, directory: Path, file_stem: str, *names: str, **validity) -> CertificatePair:
    directory.mkdir(parents=True, exist_ok=True)
    leaf = ca.issue_cert(*names, **validity)
    pair = CertificatePair(chain=directory / f"{file_stem}.crt", key=directory / f"{file_stem}.key")
    pair.chain.write_bytes(b"".join(blob.bytes() for blob in leaf.cert_chain_pems))
    leaf.private_key_pem.write_to_path(str(pair.key))
    return pair


def _issue_verbatim(ca: trustme.CA, directory: Path, file_stem: str, dns_names: tuple[str, ...]) -> CertificatePair:
    ca_certificate = x509.load_pem_x509_certificate(ca.cert_pem.bytes())
    ca_key = serialization.load_pem_private_key(ca.private_key_pem.bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([]))
        .issuer_name(ca_certificate.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + VALIDITY)
        # RFC 5280 §4.2.1.6: with an empty subject the names are in a critical SAN, and only there.
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name) for name in dns_names]), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return _write_pair(directory, file_stem, certificate, key)


def _write_pair(directory: Path, file_stem: str, certificate: x509.Certificate, key) -> CertificatePair:
    directory.mkdir(parents=True, exist_ok=True)
    pair = CertificatePair(chain=directory / f"{file_stem}.crt", key=directory / f"{file_stem}.key")
    pair.chain.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return pair


def _self_signed(directory: Path, file_stem: str, name: str, now: datetime.datetime) -> CertificatePair:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return _write_pair(directory, file_stem, certificate, key)


def _issue_from_untrusted_ca(directory: Path, name: str) -> CertificatePair:
    """A proper leaf for `name` from a CA of its own, whose certificate is written nowhere a proxy reads."""
    return _issue(trustme.CA(organization_name="ipdirect e2e untrusted CA"), directory, name, name)


def leaf_certificate(pem_file: Path) -> x509.Certificate:
    """The first certificate of a PEM file: the leaf of a chain, or the CA certificate itself."""
    return x509.load_pem_x509_certificate(pem_file.read_bytes())


def spki_sha256(pem_file: Path) -> str:
    """The pin of a certificate's key: base64 of the SHA-256 of its DER SubjectPublicKeyInfo (RFC 7469 §2.4),
    the same value as `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256
    -binary | base64`."""
    spki = leaf_certificate(pem_file).public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()
