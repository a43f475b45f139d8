"""A test CA and the server certificates the origins present, minted fresh for every test run."""

import datetime
from dataclasses import dataclass
from pathlib import Path

import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

# Names the HTTPS origin serves as virtual hosts, each with its own certificate.
VIRTUAL_HOST_NAMES = ("a.test", "b.test")
# The certificate of the default server, for a client that sends no or an unknown SNI name.
DEFAULT_HOST_NAME = "default.test"
# Name on the certificate that is deliberately wrong for whichever host presents it.
WRONG_HOST_NAME = "wrong.test"
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
    expired: CertificatePair       # for a.test, valid name, not_after in the past
    wrong_name: CertificatePair    # signed by the test CA, names only wrong.test
    self_signed: CertificatePair   # for a.test, signed by itself, unknown to any trust store


def make_test_certificates(directory: Path) -> OriginCertificates:
    directory.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA(organization_name="ipdirect e2e test CA")
    ca_file = directory / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))

    def issue(file_stem: str, *names: str, **validity) -> CertificatePair:
        leaf = ca.issue_cert(*names, **validity)
        pair = CertificatePair(chain=directory / f"{file_stem}.crt", key=directory / f"{file_stem}.key")
        pair.chain.write_bytes(b"".join(blob.bytes() for blob in leaf.cert_chain_pems))
        leaf.private_key_pem.write_to_path(str(pair.key))
        return pair

    now = datetime.datetime.now(datetime.timezone.utc)
    return OriginCertificates(
        ca_file=ca_file,
        virtual_hosts={name: issue(name, name) for name in VIRTUAL_HOST_NAMES},
        default=issue(DEFAULT_HOST_NAME, DEFAULT_HOST_NAME),
        expired=issue("expired.a.test", "a.test",
                      not_before=now - 2 * VALIDITY, not_after=now - VALIDITY),
        wrong_name=issue(WRONG_HOST_NAME, WRONG_HOST_NAME),
        self_signed=_self_signed(directory, "self-signed.a.test", "a.test", now),
    )


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
    pair = CertificatePair(chain=directory / f"{file_stem}.crt", key=directory / f"{file_stem}.key")
    pair.chain.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return pair
