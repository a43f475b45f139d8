import CEvent
import Glibc
import IPDirectCore

/// One connection to the admin listener: strict HTTP/1.1 heads (the proxy's own parser), origin-form
/// targets, no request bodies, keep-alive, one request at a time (pipelined ones wait their turn). Requests
/// a web page may have sent are refused before they are routed (`AdminRefusal`). Each head must arrive
/// whole within `[admin] header_timeout` (`AdminHeadDeadline`).
final class AdminConnection {
    /// An admin request is a request line and a few fields; anything larger is refused with 431 (414 when the
    /// request line alone does not fit).
    static let limits = HTTPHeadLimits(maxHeadBytes: 8 * 1024, maxFieldCount: 64)
    /// A response the client does not read for this long closes the connection. Waiting for a head has the
    /// head deadline instead: a read timeout restarts on every byte, so a trickle never meets it.
    static let writeTimeoutSeconds = 30

    unowned let server: AdminServer
    private var socket: BufferedSocket
    let peer: String
    /// The address the listener's per-client cap counted this connection under.
    let client: IPAddress?
    /// The names this connection's requests may give the listener in Host and Origin.
    let authority: AdminAuthority
    /// The `/resolve` lookup in flight; later requests on this connection wait for it.
    private var pending: ResolveHandle?
    /// The workers' answer being gathered (`/connections`); later requests wait for it too.
    private var pendingPoll: PendingAdminAnswer?
    private var isWaiting: Bool { pending != nil || pendingPoll != nil }
    private var closeAfterWrite = false
    private var closed = false
    private var deadline: AdminHeadDeadline
    private let deadlineTimer: Timer

    init(server: AdminServer, socket: consuming BufferedSocket, peer: String, client: IPAddress?, authority: AdminAuthority) {
        self.server = server
        self.socket = socket
        self.peer = peer
        self.client = client
        self.authority = authority
        deadline = AdminHeadDeadline(limitMillis: server.settings.headerTimeoutMs)
        deadlineTimer = Timer(base: server.base)
    }


    func start() {
        socket.handOver(to: self, calling: BufferEventCallbacks.admin)
        socket.setTimeouts(readMillis: nil, writeMillis: AdminConnection.writeTimeoutSeconds * 1000)
        deadlineTimer.action = { [unowned self] in deadlinePassed() }
        deadlineTimer.schedule(afterMillis: deadline.accepted(now: MonotonicClock.nowMicros()))
        socket.resumeReading()
    }

    func didRead() {
        serveBuffered()
    }

    func didDrain() {
        if closeAfterWrite { return close() }
        // A request waiting for the resolver starts the clock once its own response is out.
        if !isWaiting {
            deadlineTimer.schedule(afterMillis: deadline.responseWritten(now: MonotonicClock.nowMicros()))
        }
    }

    private func deadlinePassed() {
        switch deadline.check(now: MonotonicClock.nowMicros(), partialHead: socket.inputLength > 0) {
        case .unarmed:
            return
        case .pending(let millis):
            deadlineTimer.schedule(afterMillis: millis)
        case .expired(let reason, let answer):
            server.log(closing: peer, reason, details: "header_timeout_ms=\(deadline.limitMillis)")
            // Written without waiting: a client too slow to send a head may not read either, and its slot
            // is wanted back now.
            if let answer { AdminConnection.sendWithoutWaiting(answer, to: socket.fd) }
            close()
        }
    }

    /// A response written straight to the socket, as much as fits now, for a connection about to be closed.
    static func sendWithoutWaiting(_ response: AdminResponse, to fd: Int32) {
        let bytes = response.bytes(persistence: .close, headOnly: false)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    }

    func didReceive(events: Int16) {
        let cleanEOF = events & Int16(BEV_EVENT_EOF) != 0 && events & Int16(BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) == 0
        // A client that half-closes after its request still gets the answer.
        if cleanEOF && (isWaiting || socket.outputLength > 0) {
            closeAfterWrite = true
            socket.pauseReading()
            return
        }
        close()
    }

    /// Answers the buffered requests in order until one has to wait for the resolver.
    private func serveBuffered() {
        while !closed, !closeAfterWrite, !isWaiting {
            let length = socket.inputLength
            guard length > 0 else { return }
            let peek = min(length, AdminConnection.limits.maxHeadBytes + 1)
            guard let start = evbuffer_pullup(socket.input, peek) else { return }
            let bytes = UnsafeRawBufferPointer(start: start, count: peek)
            switch RequestHeadParser.parse(bytes, limits: AdminConnection.limits) {
            case .incomplete:
                return
            case .invalid(let failure):
                deadline.headReceived()
                return send(.text(failure.status, failure.reason), method: "-", target: "-", persistence: .close, headOnly: false)
            case .complete(let head):
                deadline.headReceived()
                let method = String(decoding: bytes[head.methodBytes], as: UTF8.self)
                let fields = AdminRequestFields(head, in: bytes)
                let originTarget: String?
                if case .origin(let range) = head.target {
                    originTarget = String(decoding: bytes[range], as: UTF8.self)
                } else {
                    originTarget = nil
                }
                evbuffer_drain(socket.input, head.headLength)
                if let refusal = AdminRefusal(method: head.method, fields: fields, authority: authority) {
                    return refuse(refusal, method: method, target: originTarget ?? "\(head.target)",
                                  headOnly: head.method == .head)
                }
                guard let target = originTarget else {
                    return send(.text(400, "admin requests use origin-form targets such as /metrics"),
                                method: method, target: "\(head.target)", persistence: .close, headOnly: false)
                }
                switch head.framing {
                case .none, .contentLength(0): break
                case .contentLength, .chunked:
                    return send(.text(400, "admin requests take no body"), method: method, target: target,
                                persistence: .close, headOnly: false)
                }
                let persistence = ResponsePersistence.lengthDelimited(clientVersion: head.version,
                                                                      clientKeepAlive: head.keepAlive, mustClose: false)
                answer(AdminRoute(method: head.method, target: target, dashboard: server.settings.ui), method: method, target: target,
                       persistence: persistence, headOnly: head.method == .head)
            }
        }
    }

    /// Logged above debug: a refusal most often means a web page tried the admin API. The connection is
    /// closed after it, so a body the request came with is never read as the next request.
    private func refuse(_ refusal: AdminRefusal, method: String, target: String, headOnly: Bool) {
        let response = refusal.response
        Logger.warning("event=admin_request_refused client=\(peer) method=\(method) target=\(LogQuote.token(target)) status=\(response.status) reason=\(refusal)")
        send(response, method: method, target: target, persistence: .close, headOnly: headOnly)
    }

    private func answer(_ route: AdminRoute, method: String, target: String, persistence: ResponsePersistence, headOnly: Bool) {
        if let response = AdminResponse.immediate(for: route) ?? server.response(to: route) {
            return send(response, method: method, target: target, persistence: persistence, headOnly: headOnly)
        }
        let poll = server.askWorkers(route) { [weak self] response in
            guard let self, !closed else { return }
            let waited = pendingPoll != nil
            pendingPoll = nil
            send(response, method: method, target: target, persistence: persistence, headOnly: headOnly)
            guard waited else { return }
            if !closeAfterWrite { socket.resumeReading() }
            serveBuffered()
        }
        if let poll {
            guard !poll.isFinished else { return }
            pendingPoll = poll
            socket.pauseReading()
            return
        }
        guard case .resolve(let name, let family) = route else { return }
        let lookup = server.resolver.resolve(name) { [weak self] result in
            guard let self, !closed else { return }
            pending = nil
            send(.json(200, AdminJSON.dnsAnswer(name: name, family: family, result: result)),
                 method: method, target: target, persistence: persistence, headOnly: headOnly)
            if !closeAfterWrite { socket.resumeReading() }
            serveBuffered()
        }
        switch lookup {
        case .done(let result):
            send(.json(200, AdminJSON.dnsAnswer(name: name, family: family, result: result)),
                 method: method, target: target, persistence: persistence, headOnly: headOnly)
        case .pending(let handle):
            guard !handle.isFinished else { return }
            pending = handle
            // Nothing is parsed while the lookup runs, so nothing more is read: a client streaming bytes
            // behind a slow /resolve would otherwise grow the input buffer without bound.
            socket.pauseReading()
        }
    }

    private func send(_ response: AdminResponse, method: String, target: String, persistence: ResponsePersistence, headOnly: Bool) {
        Logger.debug("event=admin_request client=\(peer) method=\(method) target=\(LogQuote.token(target)) status=\(response.status)")
        let bytes = response.bytes(persistence: persistence, headOnly: headOnly)
        bytes.withUnsafeBytes { socket.write($0) }
        if persistence.closes {
            closeAfterWrite = true
            socket.pauseReading()
        }
    }

    /// Frees the connection now; idempotent.
    func close() {
        guard !closed else { return }
        closed = true
        deadlineTimer.cancel()
        pending?.cancel()
        pending = nil
        pendingPoll?.cancel()
        pendingPoll = nil
        socket.close()
        server.connectionEnded(self)
    }
}
