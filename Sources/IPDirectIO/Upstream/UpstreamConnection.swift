import CEvent
import Glibc
import IPDirectCore

/// One TCP connection to an origin, owned by a session while in use and by the pool while idle.
final class UpstreamConnection {
    /// Its callbacks go to whoever holds the connection: a session, the pool, an HTTPDNS transport.
    var socket: BufferedSocket
    /// The pool that may keep it; nil for one that is never pooled (a probe, an HTTPDNS or DoT connection).
    let key: UpstreamPoolKey?
    let address: SocketAddress
    /// `address` as text, made once per connection rather than once per request it carries.
    private(set) lazy var addressText = address.description
    /// True when `socket` speaks TLS: bytes must go through OpenSSL, never straight to its descriptor
    /// (no direct write, no splice), or they would leave unencrypted and break the TLS stream.
    let isTLS: Bool
    /// True once the connection has carried a complete exchange and been pooled.
    var reused = false
    /// The pool holding this connection while it is idle; nil otherwise, and once closed. Set only while the pool
    /// keeps the connection in its idle list, so the pool (which the worker keeps) is there whenever a pooled
    /// callback reads it. Not counted: a weak reference would give the pool a side table, whose weak count each
    /// check-in and check-out would change and through which every retain and release of the pool would go.
    unowned(unsafe) var pool: UpstreamPool?
    /// The read high watermark a session gave the socket (nil: none yet); its flow settings outlive each request.
    private var flowReadHighWater: Int?
    /// The read timeout set on the socket (nil: none). Setting a bufferevent's timeouts re-adds its events to the
    /// loop's timer heap, so "none" is not set twice; a timeout is always set again, as that restarts it.
    private var readTimeoutMillis: Int?
    /// The read timeout its last exchange left, which the session that takes the connection from the pool keeps,
    /// replaces or clears. The pool does not reset it: its own sweep times idle connections out.
    private(set) var leftoverReadTimeout: LeftoverReadTimeout?
    /// When the pool took it, for the pool's idle timeout.
    var pooledAtMicros: Int64 = 0
    /// Where its list in the pool was when the pool last handed it out.
    var rememberedList: UpstreamPool.RememberedList?

    var hasStaleReadTimeout: Bool { leftoverReadTimeout != nil }

    init(socket: consuming BufferedSocket, key: UpstreamPoolKey?, address: SocketAddress) {
        isTLS = socket.ssl != nil
        self.socket = socket
        self.key = key
        self.address = address
    }

    deinit { close() }

    /// Whether the TLS handshake resumed a cached session (false for plain TCP), for the logs.
    var tlsSessionResumed: Bool {
        guard isTLS, let ssl = socket.ssl else { return false }
        return TLSClientContext.handshakeWasResumed(ssl)
    }

    /// Whether an idle connection shows nothing from the server: stray bytes (for TLS also those OpenSSL
    /// already took off the socket, seen only in SSL_has_pending). An idle connection keeps reading, so a
    /// FIN or bytes that arrived while it waited have already dropped it; one that arrives as it is reused
    /// fails that request before its first response byte, which is retried on a fresh connection. No system
    /// call is made: a peek here would fail on every healthy reuse.
    var looksReusable: Bool {
        guard socket.inputLength == 0 else { return false }
        if isTLS, let ssl = socket.ssl, SSL_has_pending(ssl) != 0 { return false }
        return true
    }

    /// A BEV_EVENT_TIMEOUT after this long without reading while reading (nil: never). Writes to an upstream
    /// have no timeout of their own.
    func setReadTimeout(_ millis: Int?) {
        leftoverReadTimeout = nil
        guard millis != nil || readTimeoutMillis != nil else { return }
        readTimeoutMillis = millis
        socket.setTimeouts(readMillis: millis, writeMillis: nil)
    }

    /// The whole request is on its way: bytes of the response must come within `millis`. A timeout its last
    /// exchange left runs on when it serves (`LeftoverReadTimeout`).
    func armResponseTimeout(_ millis: Int, now: Int64) {
        if leftoverReadTimeout?.serves(asResponseTimeout: millis, now: now) == true {
            leftoverReadTimeout = nil
            return
        }
        setReadTimeout(millis)
    }

    /// The pool took the connection at `now`; the read timeout set stays until the next exchange keeps,
    /// replaces or clears it.
    func keepReadTimeoutUntilReused(pooledAt now: Int64) {
        pooledAtMicros = now
        leftoverReadTimeout = readTimeoutMillis.map { LeftoverReadTimeout(millis: $0, pooledAtMicros: now) }
    }

    /// Gives the socket the flow settings of the sessions it carries: once, and again only when the read high
    /// watermark changed since (a reload changed the head limit), rather than on every request.
    func setFlow(readHighWater: Int, drainAt: Int, maxSingleIO: Int) {
        guard flowReadHighWater != readHighWater else { return }
        flowReadHighWater = readHighWater
        socket.setWatermarks(readHigh: readHighWater, drainAt: drainAt)
        socket.setMaxSingleIO(maxSingleIO)
    }

    /// Closes the socket (for TLS after a close_notify); idempotent.
    func close() {
        pool = nil
        guard socket.isOpen else { return }
        socket.dropCallbacks()
        if isTLS { socket.sendCloseNotify() }
        socket.close()
    }
}
