import CEvent
import Glibc
import IPDirectCore

/// Connects to the addresses of one host in turn, each with its own timeout, and hands the first
/// established connection to the caller. Failures are collected so the client learns every address tried.
final class Connector {
    struct Attempt: CustomStringConvertible {
        var address: SocketAddress
        var outcome: String
        var timedOut: Bool
        var description: String { "\(address) \(outcome)" }
    }

    private let base: EventBase
    private let key: String
    private let hostPort: String
    private var remaining: [SocketAddress]
    private let timeoutMillis: Int
    private var completion: ((Result<UpstreamConnection, ProxyError>) -> Void)?
    private var current: (bev: OpaquePointer, address: SocketAddress)?
    private var attempts: [Attempt] = []
    private let timer: Timer

    init(base: EventBase, key: String, hostPort: String, addresses: [SocketAddress], timeoutMillis: Int,
         completion: @escaping (Result<UpstreamConnection, ProxyError>) -> Void) {
        self.base = base
        self.key = key
        self.hostPort = hostPort
        self.remaining = addresses.reversed()
        self.timeoutMillis = timeoutMillis
        self.completion = completion
        timer = Timer(base: base)
        timer.action = { [unowned self] in
            abandonCurrent(outcome: "timed out after \(timeoutMillis) ms", timedOut: true)
            tryNext()
        }
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
        current = (bev, address)
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
        guard let current, current.bev == bev else { return }
        timer.cancel()
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            self.current = nil
            bufferevent_setcb(bev, nil, nil, nil, nil)
            var one: Int32 = 1
            setsockopt(bufferevent_getfd(bev), Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            finish(.success(UpstreamConnection(bev: bev, key: key, address: current.address)))
        } else {
            abandonCurrent(outcome: Connector.errnoText(Connector.connectError(bev)), timedOut: false)
            tryNext()
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
    private static func connectError(_ bev: OpaquePointer) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(bufferevent_getfd(bev), SOL_SOCKET, SO_ERROR, &code, &length) == 0, code != 0 { return code }
        let reported = errno
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
