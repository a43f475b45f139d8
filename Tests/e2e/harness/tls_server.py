"""TLS for the small threaded Python servers: a server context from a test certificate, and a
`ThreadingHTTPServer` that runs each handshake on the connection's own thread."""

import ssl
from http.server import ThreadingHTTPServer

from .certificates import CertificatePair


def server_context(certificate: CertificatePair | None, alpn: list[str] | None = None) -> ssl.SSLContext | None:
    """A server-side context presenting `certificate`; None (clear text) without one."""
    if certificate is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(certificate.chain), str(certificate.key))
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


class HandshakeOnConnectionThread(ThreadingHTTPServer):
    """Speaks TLS when `tls_context` is set. Wrapping the listening socket instead would run every handshake
    on the accepting thread, so one client that never finishes its handshake would block every other."""
    tls_context: ssl.SSLContext | None = None

    def finish_request(self, request, client_address):
        if self.tls_context is not None:
            try:
                request = self.tls_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                request.close()
                return
        super().finish_request(request, client_address)
