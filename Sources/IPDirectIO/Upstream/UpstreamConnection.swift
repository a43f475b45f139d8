import CEvent
import Glibc
import IPDirectCore

/// One TCP connection to an origin, owned by a session while in use and by the pool while idle.
final class UpstreamConnection {
    let bev: OpaquePointer
    let key: String
    let address: SocketAddress
    /// `address` as text, made once per connection rather than once per request it carries.
    private(set) lazy var addressText = address.description
    /// True when `bev` is an OpenSSL bufferevent: bytes must go through it, never straight to `fd`
    /// (no direct write, no splice), or they would leave unencrypted and break the TLS stream.
    let isTLS: Bool
    /// True once the connection has carried a complete exchange and been pooled.
    var reused = false
    /// The pool holding this connection while it is idle.
    weak var pool: UpstreamPool?
    private var closed = false

    init(bev: OpaquePointer, key: String, address: SocketAddress, isTLS: Bool = false) {
        self.bev = bev
        self.key = key
        self.address = address
        self.isTLS = isTLS
    }

    deinit { close() }

    var input: OpaquePointer { bufferevent_get_input(bev) }
    var output: OpaquePointer { bufferevent_get_output(bev) }
    var fd: Int32 { bufferevent_getfd(bev) }

    /// Whether the TLS handshake resumed a cached session (false for plain TCP), for the logs.
    var tlsSessionResumed: Bool {
        guard isTLS, let ssl = bufferevent_openssl_get_ssl(bev) else { return false }
        return TLSClientContext.handshakeWasResumed(ssl)
    }

    /// A pooled connection may have been closed by the server while the loop was busy: peek for EOF or
    /// stray bytes before trusting it with a request. For TLS, the socket shows a close_notify or a FIN
    /// just the same; bytes OpenSSL already took off the socket show only in SSL_has_pending.
    var looksReusable: Bool {
        guard evbuffer_get_length(input) == 0 else { return false }
        if isTLS, let ssl = bufferevent_openssl_get_ssl(bev), SSL_has_pending(ssl) != 0 { return false }
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Frees the bufferevent and socket (and for TLS the SSL, which the bufferevent owns through
    /// BEV_OPT_CLOSE_ON_FREE); idempotent. Callbacks are cleared first so none can fire later.
    func close() {
        guard !closed else { return }
        closed = true
        bufferevent_setcb(bev, nil, nil, nil, nil)
        if isTLS, let ssl = bufferevent_openssl_get_ssl(bev) {
            // Send close_notify (RFC 8446 §6.1). It also keeps the session resumable: OpenSSL marks the
            // session of an SSL freed without a shutdown as not resumable, and that session object is
            // the one the session cache holds.
            _ = SSL_shutdown(ssl)
            OpenSSLErrorQueue.drainThread()
        }
        bufferevent_free(bev)
    }
}
