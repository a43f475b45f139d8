import CEvent
import Glibc
import IPDirectCore

/// Connects to the addresses of one host in turn, each with its own timeout, and hands the first
/// established connection to the caller. Failures are collected so the client learns every address tried.
///
/// With `tls`, a TCP connection that stands is then wrapped in TLS for `tls.host` (the name the client
/// asked for, never the IP). The handshake runs within the same per-address timeout. A failed
/// handshake ends the attempt without trying further addresses: a bad certificate or protocol is the
/// server's answer, not a reachability problem another address would solve.
final class Connector {
    struct Attempt: CustomStringConvertible {
        var address: SocketAddress
        var outcome: String
        var timedOut: Bool
        var description: String { "\(address) \(outcome)" }
    }

    /// What the connection to the current address waits for.
    private enum Phase: CustomStringConvertible {
        /// TCP connect in flight; next: handshaking (TLS), done, or the next address.
        case connecting
        /// TLS handshake in flight on the established socket; next: done or a TLS failure.
        case handshaking

        var description: String {
            switch self {
            case .connecting: return "connecting"
            case .handshaking: return "handshaking"
            }
        }
    }

    private let base: EventBase
    private let key: String
    private let hostPort: String
    private let tls: (context: TLSClientContext, host: String)?
    private var remaining: [SocketAddress]
    private let timeoutMillis: Int
    private var completion: ((Result<UpstreamConnection, ProxyError>) -> Void)?
    private var current: (bev: OpaquePointer, address: SocketAddress, phase: Phase)?
    private var attempts: [Attempt] = []
    private let timer: Timer

    init(base: EventBase, key: String, hostPort: String, addresses: [SocketAddress], timeoutMillis: Int,
         tls: (context: TLSClientContext, host: String)? = nil,
         completion: @escaping (Result<UpstreamConnection, ProxyError>) -> Void) {
        self.base = base
        self.key = key
        self.hostPort = hostPort
        self.tls = tls
        self.remaining = addresses.reversed()
        self.timeoutMillis = timeoutMillis
        self.completion = completion
        timer = Timer(base: base)
        timer.action = { [unowned self] in timerFired() }
    }

    deinit { cancel() }

    func start() { tryNext() }

    /// Stops connecting; the completion is never called afterwards.
    func cancel() {
        completion = nil
        timer.cancel()
        if let current {
            bufferevent_setcb(current.bev, nil, nil, nil, nil)
            bufferevent_free(current.bev)
            self.current = nil
        }
    }

    private func tryNext() {
        guard let address = remaining.popLast() else {
            finish(.failure(failure()))
            return
        }
        guard let bev = bufferevent_socket_new(base.raw, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            attempts.append(Attempt(address: address, outcome: "no socket", timedOut: false))
            return tryNext()
        }
        current = (bev, address, .connecting)
        bufferevent_setcb(bev, nil, nil, BufferEventCallbacks.connectEvent, Unmanaged.passUnretained(self).toOpaque())
        let started = address.withSockaddr { bufferevent_socket_connect(bev, $0, Int32($1)) }
        if started != 0 {
            // Immediate failures (e.g. ENETUNREACH for an IPv6 address on an IPv4-only host).
            abandonCurrent(outcome: Connector.errnoText(errno), timedOut: false)
            return tryNext()
        }
        timer.schedule(afterMillis: timeoutMillis)
    }

    func attempt(_ bev: OpaquePointer, didReceive events: Int16) {
        let code = errno
        guard let current, current.bev == bev else { return }
        let connected = events & Int16(BEV_EVENT_CONNECTED) != 0
        switch current.phase {
        case .connecting where connected:
            bufferevent_setcb(bev, nil, nil, nil, nil)
            var one: Int32 = 1
            setsockopt(bufferevent_getfd(bev), Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if let tls {
                // The timer keeps running: the handshake counts within the connect timeout.
                startHandshake(replacing: bev, address: current.address, tls: tls)
            } else {
                timer.cancel()
                self.current = nil
                finish(.success(UpstreamConnection(bev: bev, key: key, address: current.address)))
            }
        case .connecting:
            timer.cancel()
            abandonCurrent(outcome: Connector.errnoText(Connector.connectError(bev, reported: code)), timedOut: false)
            tryNext()
        case .handshaking:
            timer.cancel()
            handshakeEnded(bev, address: current.address, connected: connected, events: events, errnoCode: code)
        }
    }

    /// Moves the connected socket from the plain bufferevent to an OpenSSL one, which then owns it and
    /// the SSL (BEV_OPT_CLOSE_ON_FREE: freeing it frees the SSL and closes the socket).
    private func startHandshake(replacing plain: OpaquePointer, address: SocketAddress,
                                tls: (context: TLSClientContext, host: String)) {
        let fd = bufferevent_getfd(plain)
        // With no fd left, freeing the plain bufferevent no longer closes the socket.
        bufferevent_setfd(plain, -1)
        bufferevent_free(plain)
        let ssl = tls.context.makeSSL(host: tls.host, port: address.port)
        guard let bev = bufferevent_openssl_socket_new(base.raw, fd, ssl, BUFFEREVENT_SSL_CONNECTING,
                                                       Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            SSL_free(ssl)
            Glibc.close(fd)
            current = nil
            timer.cancel()
            let failure = TLSFailure(.handshakeFailed("cannot set up TLS on the connection (out of memory)"))
            return finish(.failure(failure.proxyError(host: tls.host, address: address)))
        }
        current = (bev, address, .handshaking)
        // The handshake starts once the loop sees the socket writable, so the callback is in place in time.
        bufferevent_setcb(bev, nil, nil, BufferEventCallbacks.connectEvent, Unmanaged.passUnretained(self).toOpaque())
    }

    private func handshakeEnded(_ bev: OpaquePointer, address: SocketAddress, connected: Bool, events: Int16, errnoCode: Int32) {
        guard let tls else { return }
        var failure: TLSFailure?
        if connected, let ssl = bufferevent_openssl_get_ssl(bev) {
            failure = tls.context.pinFailure(ssl, host: tls.host)
        } else {
            failure = TLSFailure.diagnose(handshakeOf: bev, events: events, errnoCode: errnoCode, host: tls.host)
        }
        bufferevent_setcb(bev, nil, nil, nil, nil)
        current = nil
        if let failure {
            bufferevent_free(bev)
            tls.context.forgetSession(host: tls.host, port: address.port)
            return finish(.failure(failure.proxyError(host: tls.host, address: address)))
        }
        finish(.success(UpstreamConnection(bev: bev, key: key, address: address, isTLS: true)))
    }

    private func timerFired() {
        guard let current else { return }
        switch current.phase {
        case .connecting:
            abandonCurrent(outcome: "timed out after \(timeoutMillis) ms", timedOut: true)
            tryNext()
        case .handshaking:
            guard let tls else { return }
            abandonCurrent(outcome: "TLS handshake timed out after \(timeoutMillis) ms", timedOut: true)
            tls.context.forgetSession(host: tls.host, port: current.address.port)
            let failure = TLSFailure(.handshakeTimedOut(millis: timeoutMillis))
            finish(.failure(failure.proxyError(host: tls.host, address: current.address)))
        }
    }

    private func abandonCurrent(outcome: String, timedOut: Bool) {
        guard let current else { return }
        attempts.append(Attempt(address: current.address, outcome: outcome, timedOut: timedOut))
        bufferevent_setcb(current.bev, nil, nil, nil, nil)
        bufferevent_free(current.bev)
        self.current = nil
    }

    /// 504 when every address timed out (the network ate the SYNs), 502 otherwise (RFC 9209 §2.3.10-12).
    private func failure() -> ProxyError {
        let tried = attempts.map(\.description).joined(separator: "; ")
        if !attempts.isEmpty && attempts.allSatisfy(\.timedOut) {
            return ProxyError(status: 504, kind: .connectionTimeout, details: "cannot connect to \(hostPort): \(tried)")
        }
        let kind: ProxyError.Kind = attempts.contains { $0.outcome.contains("refused") } ? .connectionRefused : .destinationNotFound
        return ProxyError(status: 502, kind: kind, details: "cannot connect to \(hostPort): \(tried)")
    }

    private func finish(_ result: Result<UpstreamConnection, ProxyError>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    /// Why a connect failed. libevent sets errno from SO_ERROR for most failures, but reports a refusal that
    /// connect() returned at once through a deferred callback, with errno unrelated by then.
    private static func connectError(_ bev: OpaquePointer, reported: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(bufferevent_getfd(bev), SOL_SOCKET, SO_ERROR, &code, &length) == 0, code != 0 { return code }
        switch reported {
        case ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ECONNRESET, EADDRNOTAVAIL: return reported
        default: return ECONNREFUSED
        }
    }

    static func errnoText(_ code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "refused"
        case ENETUNREACH: return "network unreachable"
        case EHOSTUNREACH: return "host unreachable"
        default: return String(cString: strerror(code))
        }
    }
}
