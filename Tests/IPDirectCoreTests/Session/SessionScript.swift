import Testing
@testable import IPDirectCore

/// Drives a `SessionMachine` the way the I/O driver does: each event is what a callback, a lookup or
/// the timer would report, with the time and the buffer levels the script keeps. Heads are parsed
/// from text by the real parsers.
struct SessionScript {
    enum Event {
        case start
        /// A complete request head arrived (the bytes after it stay in the client's input as `levels` says).
        case head(String)
        case headWithBrokenBody(String, HTTPParseError)
        case invalidHead(HTTPParseError)
        case headIncomplete
        case requestBegan
        case resolved([String], ResolutionSource = .hosts)
        case lookupFailed(ResolveFailure.Reason)
        case ready(reused: Bool = false, tls: Bool = false, attempts: Int = 1)
        case pooled
        case connectFailed(ProxyError, attempts: Int)
        case noPooledConnection
        case requestPumped(BodyProgress, moved: UInt64)
        case requestBroken(HTTPParseError)
        case responseHead(String)
        case responseIncomplete
        case responseInvalid(HTTPParseError)
        case responsePumped(BodyProgress, moved: UInt64)
        case responseBroken(HTTPParseError)
        case clientFIN
        /// The parked client's socket became readable.
        case readable
        case clientError(String)
        case upstreamEnded(UpstreamEnd, String = "closed")
        case drained(SessionSide)
        /// The driver's answer to `countUnreadClientInput`: bytes the kernel holds unread from the client.
        case unreadCounted(Int)
        case relayed(SessionSide, Int)
        case startRelayed
        /// The kernel relay moved bytes one way; `closed`: that way's source sent its FIN.
        case spliced(HalfCloseTracker.Direction, Int, closed: Bool = false)
        case spliceEnded(String?)
        case listenerAddress(SocketAddress?)
        /// The connection's first byte is a SOCKS version.
        case socksVersion(UInt8)
        /// These bytes are buffered from a SOCKS client (the script counts what the machine consumes).
        case socksBytes([UInt8])
        /// A redirected connection's client has sent these bytes so far (all of them, as the driver hands them).
        case sniffed([UInt8])
        /// The verifier answered for `user`: accepted when `refusal` is nil.
        case credentialsChecked(String, refusal: String?)
        case timer
        case drain
        case close
        /// Time passes; nothing is reported.
        case wait(millis: Int)
        /// The buffers now hold this much; nothing is reported.
        case buffers(BufferLevels)
    }

    static let startMicros: Int64 = 5_000_000_000
    static let address = "203.0.113.7:80"

    var machine: SessionMachine
    var now = SessionScript.startMicros
    var levels = BufferLevels()

    /// A connection redirected to the transparent listener, on its way to `original`.
    init(redirectedTo original: SocketAddress, answeredName: String? = nil, clientPermitted: Bool = true,
         _ configure: (inout Config) -> Void = { _ in }) {
        var config = Config()
        configure(&config)
        machine = SessionMachine(.redirected(rules: SessionRules(config: config, ownEndpoints: OwnEndpoints()),
                                             clientPermitted: clientPermitted, draining: false,
                                             TransparentConnection(original: original, answeredName: answeredName)))
    }

    init(draining: Bool = false, clientPermitted: Bool = true, requiresAuthentication: Bool = false,
         ownEndpoints: OwnEndpoints = OwnEndpoints(), _ configure: (inout Config) -> Void = { _ in }) {
        var config = Config()
        configure(&config)
        machine = SessionMachine(rules: SessionRules(config: config, ownEndpoints: ownEndpoints), clientPermitted: clientPermitted,
                                 requiresAuthentication: requiresAuthentication, draining: draining)
    }

    /// What a `logExchange` action logs: the machine's request and record when the driver performs it,
    /// right after the event that asked for it.
    struct Logged {
        /// The event's position in the `run` (or `all`) call that applied it.
        var step: Int
        var request: ProxyRequest
        var record: ExchangeRecord
    }

    /// Every exchange logged by the latest `run` (or `all`) call, in order.
    private(set) var logs: [Logged] = []

    /// Runs the events in order; one list of actions per event.
    mutating func run(_ events: [Event]) -> [[Action]] {
        logs = []
        queued = []
        return events.enumerated().map { step, event in
            let actions = apply(event)
            if actions.contains(.logExchange) {
                logs.append(Logged(step: step, request: machine.request, record: machine.record))
            }
            return actions
        }
    }

    /// The record of the first exchange the latest run logged, if it logged one.
    var logged: ExchangeRecord? { logs.first?.record }

    /// The request of the first exchange the latest run logged, if it logged one.
    var loggedRequest: ProxyRequest? { logs.first?.request }

    /// The record logged by the latest run's event at `step`, if that event logged one.
    func logged(at step: Int) -> ExchangeRecord? { logs.first { $0.step == step }?.record }

    /// The request logged by the latest run's event at `step`, if that event logged one.
    func loggedRequest(at step: Int) -> ProxyRequest? { logs.first { $0.step == step }?.request }

    /// Runs the events and returns every action they caused, in order.
    mutating func all(_ events: [Event]) -> [Action] {
        run(events).flatMap { $0 }
    }

    /// The actions each event of the latest `run` (or `all`) call queued, as the machine holds them.
    private(set) var queued: [[SessionAction]] = []

    /// Reports the event and returns the actions it queued as the driver would perform them, taking them off
    /// the machine's queue as the driver does. Any of them that may report an event back at once must be the last.
    mutating func apply(_ event: Event) -> [Action] {
        let first = machine.actions.count
        report(event)
        let actions = Array(machine.actions[first...])
        queued.append(actions)
        if let early = actions.dropLast().first(where: \.reportsBackAtOnce) {
            Issue.record("\(early) may report an event back at once but is not the last action of \(actions)")
        }
        let performed = actions.map { Action($0, of: machine) }
        machine.dropActions(from: first)
        return performed
    }

    private mutating func report(_ event: Event) {
        switch event {
        case .start: machine.started(now: now)
        case .head(let text): receiveHead(text, brokenBody: nil)
        case .headWithBrokenBody(let text, let failure): receiveHead(text, brokenBody: failure)
        case .invalidHead(let failure): machine.headInvalid(failure, levels, now: now)
        case .headIncomplete: machine.headIncomplete(levels, now: now)
        case .requestBegan: machine.requestBegan(now: now)
        case .resolved(let texts, let source):
            let addresses = texts.map { IPAddress($0)! }
            machine.resolved(.success(Resolution(addresses: addresses, source: source)), levels, now: now)
        case .lookupFailed(let reason):
            let host = machine.state.servesRequest ? machine.request.host : "-"
            machine.resolved(.failure(ResolveFailure(host: host, reason: reason)), levels, now: now)
        case .ready(let reused, let tls, let attempts):
            let link = UpstreamLink(reused: reused, isTLS: tls)
            machine.upstreamReady(link, address: SessionScript.address, .connected(attempts: attempts, rank: 1), now: now)
        case .pooled:
            let link = UpstreamLink(reused: true, isTLS: false)
            machine.upstreamReady(link, address: SessionScript.address, .pooled(rank: nil), now: now)
        case .connectFailed(let error, let attempts): machine.connectFailed(error, attempts: attempts, levels, now: now)
        case .noPooledConnection: machine.noPooledConnection(levels, now: now)
        case .requestPumped(let progress, let moved):
            machine.requestBodyPumped(progress, moved: moved, failure: nil, levels, now: now)
        case .requestBroken(let failure):
            machine.requestBodyPumped(machine.requestBody, moved: 0, failure: failure, levels, now: now)
        case .responseHead(let text): receiveResponseHead(text)
        case .responseIncomplete: machine.responseHeadIncomplete()
        case .responseInvalid(let failure): machine.responseHeadInvalid(failure, levels, now: now)
        case .responsePumped(let progress, let moved):
            machine.responseBodyPumped(progress, moved: moved, failure: nil, levels, now: now)
        case .responseBroken(let failure):
            machine.responseBodyPumped(machine.responseBody ?? .complete, moved: 0, failure: failure, levels, now: now)
        case .clientFIN: machine.clientClosed(clean: true, reason: "closed", levels)
        case .readable: machine.clientReadable(now: now)
        case .clientError(let reason): machine.clientClosed(clean: false, reason: reason, levels)
        case .upstreamEnded(let end, let reason): machine.upstreamClosed(end, reason: reason, levels, now: now)
        case .drained(let side): machine.outputDrained(side, levels)
        case .unreadCounted(let unread): machine.unreadClientInputCounted(unread, levels)
        case .relayed(let side, let count): machine.tunnelRelayed(from: side, moved: count, levels, now: now)
        case .startRelayed: machine.tunnelStartRelayed(levels)
        case .spliced(let direction, let moved, let closed):
            machine.spliceProgressed(direction, moved: moved, sourceClosed: closed, now: now)
        case .spliceEnded(let failure): machine.tunnelFinished(failure: failure)
        case .listenerAddress(let address): machine.listenerAddressKnown(address, levels, now: now)
        case .socksVersion(let version): machine.socksStarted(version: version, now: now)
        case .socksBytes(let bytes):
            bytes.withUnsafeBytes { raw in machine.socksReceived(raw, levels, now: now) }
        case .sniffed(let bytes):
            bytes.withUnsafeBytes { raw in machine.clientBytesSniffed(raw, levels, now: now) }
        case .credentialsChecked(let user, let refusal):
            machine.credentialsChecked(user: user, refusal: refusal, levels, now: now)
        case .timer: machine.deadlinePassed(levels, now: now)
        case .drain: machine.drainRequested(levels)
        case .close: machine.close()
        case .wait(let millis):
            now += Int64(millis) * 1000
        case .buffers(let newLevels):
            levels = newLevels
        }
    }

    private mutating func receiveHead(_ text: String, brokenBody: HTTPParseError?) {
        let bytes = Array(text.utf8)
        let limits = machine.rules.headLimits
        bytes.withUnsafeBytes { raw in
            guard case .complete(let head) = RequestHeadParser.parse(raw, limits: limits) else {
                Issue.record("not a complete request head: \(text.debugDescription)")
                return
            }
            machine.headReceived(head, in: UnsafeRawBufferPointer(rebasing: raw[..<head.headLength]),
                                 bufferedBodyFailure: brokenBody, levels, now: now)
        }
    }

    private mutating func receiveResponseHead(_ text: String) {
        let bytes = Array(text.utf8)
        let limits = machine.rules.headLimits
        let method = machine.requestMethod
        bytes.withUnsafeBytes { raw in
            guard case .complete(let head) = ResponseHeadParser.parse(raw, requestMethod: method, limits: limits) else {
                Issue.record("not a complete response head: \(text.debugDescription)")
                return
            }
            machine.responseHeadReceived(head, in: raw, levels, now: now)
        }
    }
}

/// Reading actions in assertions.
extension Sequence where Element == SessionScript.Action {
    /// Everything sent to the client, as text.
    var sentText: String {
        var bytes: [UInt8] = []
        for case .sendToClient(let sent) in self { bytes += sent }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The head sent upstream with `forwardRequest`, as text.
    var forwardedRequest: String? {
        for case .forwardRequest(let head) in self { return String(decoding: head, as: UTF8.self) }
        return nil
    }

    /// The head sent to the client with `forwardResponse`, as text.
    var forwardedResponse: String? {
        for case .forwardResponse(let head) in self { return String(decoding: head, as: UTF8.self) }
        return nil
    }

    /// Every SOCKS reply or other bytes sent, as bytes.
    var sentBytes: [UInt8] {
        var bytes: [UInt8] = []
        for case .sendToClient(let sent) in self { bytes += sent }
        return bytes
    }

    var closes: Bool { contains(.close) }
}

/// Heads used across the tables.
enum Heads {
    static func get(_ url: String = "http://a.test/x", version: String = "1.1", fields: String = "") -> String {
        "GET \(url) HTTP/\(version)\r\nHost: a.test\r\n\(fields)\r\n"
    }

    static func post(length: Int) -> String {
        "POST http://a.test/upload HTTP/1.1\r\nHost: a.test\r\nContent-Length: \(length)\r\n\r\n"
    }

    static let chunkedPost = "POST http://a.test/upload HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n"
    static let connect = "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n"
    /// `Proxy-Authorization: Basic` for alice:s3cret:word (a colon inside the password).
    static let aliceCredentials = "Proxy-Authorization: Basic YWxpY2U6czNjcmV0OndvcmQ=\r\n"
    static let upgrade = "GET http://a.test/ws HTTP/1.1\r\nHost: a.test\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n"
    static func ok(length: Int = 5, fields: String = "") -> String {
        "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\(fields)\r\n"
    }

    static let untilClose = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
    static let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
}

extension SessionScript {
    /// A plain GET for a.test up to the point where its request is on its way upstream.
    static let sentGet: [Event] = [.start, .head(Heads.get()), .resolved(["203.0.113.7"]), .ready(),
                                   .requestPumped(.complete, moved: 0)]
    /// A CONNECT up to an open tunnel.
    static let openTunnel: [Event] = [.start, .head(Heads.connect), .resolved(["203.0.113.7"]), .ready()]
}
