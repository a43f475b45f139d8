/// Everything one client connection decides, as a pure machine: the driver (`ClientSession` in the I/O
/// module) reports what happened on the sockets, the resolver and the connector, with the time and the
/// buffer levels; each event queues what to do (`actions`). Requests on one connection are served strictly in
/// order, so pipelined requests are answered in order; bytes never pass through here.
public struct SessionMachine {
    public internal(set) var state: SessionState = .readingHead
    public internal(set) var rules: SessionRules
    public internal(set) var deadline = SessionDeadline()
    /// The client's FIN was read: no more requests, but what it asked is still answered.
    public internal(set) var clientReadClosed = false
    @usableFromInline var clientWriteShut = false
    /// The last exchange's client asked for the connection to end (RFC 9112 §9.6) and sent all of its
    /// request: it sends nothing more, so once the answer is out there is nothing to linger for.
    @usableFromInline var clientAskedToClose = false
    /// The daemon is stopping: a finished exchange ends its connection.
    public internal(set) var draining: Bool
    /// The client's address is in `[access] clients`; other clients are refused and logged.
    public internal(set) var clientPermitted: Bool
    /// `[access] auth_file` is set: requests and SOCKS clients must present accepted credentials.
    public internal(set) var requiresAuthentication: Bool
    /// The connection's first bytes have said which protocol it speaks.
    @usableFromInline var protocolChosen = false
    /// What the client asked in the exchange in flight (between requests, the last one's), replaced by a
    /// new value when something is learned about it. Kept here, beside its record, rather than in every
    /// state that serves a request: the states' payloads stay small enough to be copied cheaply at each
    /// event (with the request in them, a keep-alive request took 4.5 % more instructions).
    public internal(set) var request = ProxyRequest.unparsed(at: 0)
    /// The figures of the exchange in flight for its log line (between requests, the last one's); events
    /// that add a byte count or a duration change it in place.
    public internal(set) var record = ExchangeRecord()
    /// What the events asked for and the driver has not yet performed, in order: each event appends its
    /// actions here instead of returning a list, and the driver drops them once performed, so the capacity
    /// stays and a request allocates no list of actions.
    public internal(set) var actions = SessionActionQueue()
    /// What the queued actions carry beyond plain values.
    public internal(set) var payloads = SessionActionPayloads()
    /// The rewritten request head, kept only while a dropped reused connection may still make it go out again
    /// on a fresh one. Here rather than in the forwarding state, which is copied at every event.
    /// The request head in the payloads may be sent again on a fresh connection, should the reused one it
    /// went on be dropped before any response byte.
    @usableFromInline var mayRetryOnFreshConnection = false
    /// The failed lookup of a request in `connecting` that only a pooled connection can still serve.
    @usableFromInline var lookupFailure: ProxyError?
    /// Set for a connection redirected to the transparent listener: where it was going, and what its first
    /// bytes named.
    public internal(set) var transparent: TransparentConnection?

    public init(rules: SessionRules, clientPermitted: Bool = true, requiresAuthentication: Bool = false,
                draining: Bool = false) {
        self.rules = rules
        self.clientPermitted = clientPermitted
        self.requiresAuthentication = requiresAuthentication
        self.draining = draining
    }

    /// Room for the longest list one event asks for (an error answer after a request head: up to nine
    /// actions), and for an event reported while the driver performs an earlier one's.
    static let actionCapacity = 16

    public var phase: SessionPhase { state.phase }

    /// Forgets the queued actions from index `first` on, once the driver has performed them.
    public mutating func dropActions(from first: Int) {
        actions.drop(from: first)
    }

    /// The method of the request being answered, for response framing (a HEAD response has no body).
    @inlinable
    public var requestMethod: HTTPMethod {
        // Asked once per response head: only the one state that has a response is answered.
        if case .forwarding = state { return request.methodKind }
        return .other
    }

    /// Whether the request's body has been read to its end (a request without one has).
    var requestBodyComplete: Bool {
        if case .forwarding(let forwarding) = state { return forwarding.requestBody.isComplete }
        return !(state.servesRequest && request.hasBody)
    }

    /// The request body still to forward. Inlinable, as the driver asks it of its session's machine on
    /// every pump: a call would copy the whole machine out of the session.
    @inlinable
    public var requestBody: BodyProgress {
        if case .forwarding(let forwarding) = state { return forwarding.requestBody }
        return .complete
    }

    /// The response body still to relay; nil until the final response head went to the client.
    @inlinable
    public var responseBody: BodyProgress? {
        if case .forwarding(let forwarding) = state, case .streamingBody(let body, _, _) = forwarding.response {
            return body
        }
        return nil
    }

    /// A keep-alive connection waiting for its next request with nothing received or still to send:
    /// closing it loses nothing (RFC 9112 §9.6 lets either side close an idle connection).
    public func isIdleBetweenRequests(_ levels: BufferLevels) -> Bool {
        state.isParked || (state.isReadingHead && levels.clientInput == 0 && levels.clientOutput == 0)
    }

    // MARK: - Request heads

    /// The connection was accepted: the head deadline runs from now.
    public mutating func started(now: Int64) {
        if transparent != nil { return beginSniffing(now: now) }
        actions.append(deadline.arm(.header, millis: rules.proxy.headerTimeoutMs, now: now))
    }

    /// Bytes of a request arrived: after an idle keep-alive wait, the head deadline starts now.
    public mutating func requestBegan(now: Int64) {
        guard state.isReadingHead, deadline.reason == .clientIdle else { return }
        actions.append(deadline.arm(.header, millis: rules.proxy.headerTimeoutMs, now: now))
    }

    /// What is buffered holds no complete head. A client that has closed will send no more of it.
    public mutating func headIncomplete(_ levels: BufferLevels, now: Int64) {
        guard state.isReadingHead, clientReadClosed else { return }
        return levels.clientInput == 0 ? beginClosing() : close()
    }

    /// Whether a connection between requests may give up its buffers: nothing received or still to send,
    /// no head begun, the client still open and the daemon not stopping (pipelined bytes or an answer
    /// being written keep them).
    // Inlined into the mutating events that ask it, which would otherwise copy the whole machine to call it.
    @inline(__always)
    func mayPark(_ levels: BufferLevels) -> Bool {
        waitsForNextRequest(levels) && levels.clientOutput == 0
    }

    /// Kept alive between requests with nothing received and no head begun, the client still open and the
    /// daemon not stopping: parkable once nothing is left to send.
    @inline(__always)
    func waitsForNextRequest(_ levels: BufferLevels) -> Bool {
        // A transparent connection's machine is never reduced: its original destination would be lost.
        state.isReadingHead && deadline.reason == .clientIdle && levels.clientInput == 0
            && !clientReadClosed && !draining && transparent == nil
    }

    /// Bytes arrived in `side`'s buffer: what to do with them in this state, if anything. Not for a parked
    /// client, whose socket has no buffer (`clientReadable`). One action, not a list: this is asked on every
    /// read, and a list would be an allocation each time. Inlinable: a call would copy the whole machine out
    /// of the session that holds it.
    @inlinable
    // Mutating though it changes nothing: a driver holds the machine in a class, and calling a non-mutating
    // method there copies the whole machine (over 600 bytes) first.
    public mutating func bytesArrived(from side: SessionSide) -> SessionAction? {
        // Only the upstream's bytes in forwarding bind a payload: a binding copies the whole state.
        switch state {
        case .readingHead: return side == .client ? .readNextRequest : nil
        case .sniffing: return side == .client ? .sniffClientInput : nil
        case .socks: return side == .client ? .readSOCKSMessage : nil
        case .forwarding:
            return side == .upstream ? upstreamBytesWhileForwarding() : .pumpRequestBody
        case .tunneling: return .relay(from: side)
        case .flushing, .lingering: return side == .client ? .discardClientInput : nil
        case .parked, .servingPAC, .authenticating, .resolving, .connecting, .closed: return nil
        }
    }

    /// Kept out of `bytesArrived`, so that only the upstream's bytes pay for the copy its binding makes.
    @inline(never) @usableFromInline
    func upstreamBytesWhileForwarding() -> SessionAction {
        if case .forwarding(let forwarding) = state, case .streamingBody = forwarding.response { return .pumpResponseBody }
        return .readResponseHead
    }

    /// The parked client's socket is readable (bytes, or a FIN the driver reports as `clientClosed`): its
    /// buffers are back and the next head is read. The timer, which was the socket's watch, runs on for
    /// the rest of the idle window, in case no byte came after all.
    public mutating func clientReadable(now: Int64) {
        guard state.isParked else { return }
        state = .readingHead
        switch deadline.check(now: now) {
        case .pending(let millis): actions.append(.armTimer(millis: millis))
        case .expired: actions.append(.armTimer(millis: 1))
        case .unarmed: break
        }
        actions.append(.readNextRequest)
    }

    /// The buffered head cannot be parsed: 400, 414 or 431, then the connection closes.
    public mutating func headInvalid(_ failure: HTTPParseError, _ levels: BufferLevels, now: Int64) {
        guard state.isReadingHead else { return }
        return respond(with: .badRequest(failure), levels, now: now)
    }

    /// A complete request head, parsed from `bytes` (which the driver drops from the client's input once
    /// this returns). `bufferedBodyFailure`: chunked framing already known to be broken in the body bytes
    /// that came with the head, so the request never causes an upstream connection.
    public mutating func headReceived(_ head: RequestHead, in bytes: UnsafeRawBufferPointer,
                                      bufferedBodyFailure: HTTPParseError?, _ levels: BufferLevels,
                                      now: Int64) {
        guard state.isReadingHead else { return }
        protocolChosen = true
        let method = String(decoding: bytes[head.methodBytes], as: UTF8.self)
        let body = BodyProgress(head.framing)
        func asked(scheme: URIScheme = .http, host: String = "-", port: UInt16 = 0, connect: Bool = false,
                     upgrade: Bool = false) -> ProxyRequest {
            ProxyRequest(method: method, methodKind: head.method, scheme: scheme, host: host, port: port,
                         isConnect: connect, keepAlive: head.keepAlive && !connect, upgradeRequested: upgrade,
                         clientVersion: head.version, hasBody: !connect && !body.isComplete, startMicros: now)
        }
        record = ExchangeRecord(bytesFromClient: UInt64(head.headLength))
        actions.append(deadline.cancel())
        if let connection = transparent {
            return transparentHeadReceived(head, in: bytes, method: method, connection, bufferedBodyFailure, levels, now: now)
        }
        switch head.target {
        case .authority(let host, let port):
            request = asked(host: host, port: port, connect: true)
            state = .resolving(.tunnel)
        case .absolute(let scheme, let host, let port, let authority, _):
            // [upstream] https_upgrade: the client speaks plain HTTP to us, the wire carries TLS.
            let upgradedPort = scheme == .http ? rules.httpsUpgradePort(for: host) : nil
            request = asked(scheme: upgradedPort == nil ? scheme : .https, host: host, port: upgradedPort ?? port,
                               upgrade: head.upgradeRequested)
            // Written where the previous exchange's head lies, which nothing holds any more.
            HeadRewriter.upstreamRequest(head, in: bytes, hostRange: authority, viaName: rules.proxy.viaName,
                                         keepUpgrade: head.upgradeRequested, close: false, into: &payloads.requestHead)
            state = .resolving(OutboundRequest(body: body))
            if let failure = bufferedBodyFailure {
                return respond(with: .badRequest(failure), levels, now: now)
            }
        case .origin(let target) where SessionMachine.asksForPAC(head.method, UnsafeRawBufferPointer(rebasing: bytes[target])):
            request = asked()
            state = .servingPAC(headOnly: head.method == .head)
            guard clientPermitted else { return refuseClient(levels, now: now) }
            return actions.append(.lookUpListenerAddress)
        case .origin, .asterisk:
            request = asked()
            state = .resolving(OutboundRequest(body: body))
            return respond(with: ProxyError(status: 400, kind: .httpRequestError,
                                            details: "not a proxy request: send absolute-form (http://host/path) or CONNECT host:port"),
                           levels, now: now)
        }
        if !clientPermitted || requiresAuthentication {
            return admit(head: head, bytes: bytes, levels, now: now)
        }
        // Asked only of a CONNECT: calling a non-mutating method from here copies the whole machine first.
        if request.isConnect, let refused = tunnelPortRefusal() {
            return respond(with: refused, levels, now: now)
        }
        // Every request looks its host up, pooled connection or not (a cache hit costs microseconds):
        // a changed answer or ranking moves keep-alive traffic too.
        record.resolveStartMicros = now
        actions.append(.resolve)
    }

    /// GET or HEAD of `/proxy.pac`, with or without a query.
    static func asksForPAC(_ method: HTTPMethod, _ target: UnsafeRawBufferPointer) -> Bool {
        guard method == .get || method == .head else { return false }
        let pathEnd = target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex
        return target[..<pathEnd].elementsEqual(PACFile.path.utf8)
    }

    /// The address the client reached, to name in the PAC file (a listener on 0.0.0.0 is named by the
    /// address the client used); nil when the socket cannot tell.
    public mutating func listenerAddressKnown(_ address: SocketAddress?, _ levels: BufferLevels, now: Int64) {
        guard case .servingPAC(let headOnly) = state else { return }
        guard let address else {
            return respond(with: ProxyError(status: 500, kind: .proxyInternalError,
                                            details: "cannot tell which address this connection arrived on"),
                           levels, now: now)
        }
        let file = PACFile(proxy: address, direct: rules.pac.direct, socks: rules.pac.socks)
        let persistence = ResponsePersistence.lengthDelimited(
            clientVersion: request.clientVersion, clientKeepAlive: request.keepAlive,
            mustClose: request.hasBody || clientHasNoMoreRequests(levels))
        let answer = AdminResponse(status: 200, contentType: PACFile.contentType, body: file.script)
            .bytes(persistence: persistence, headOnly: headOnly)
        record.status = 200
        record.bytesToClient += UInt64(answer.count)
        sendToClient(answer)
        finish(requestBodyComplete: !request.hasBody, closeClientAfter: persistence.closes, releasing: nil, levels, now: now)
    }

    // MARK: - Resolving and connecting

    /// A tunnel (CONNECT, SOCKS) to a port outside `connect_ports`. Asked only once the client is admitted
    /// (client ACL, login): refusing it earlier would tell anyone without a login which ports are open.
    func tunnelPortRefusal() -> ProxyError? {
        guard request.isConnect, !rules.policy.permitsTunnel(toPort: request.port) else { return nil }
        return ProxyError(status: 403, kind: .httpRequestDenied,
                          details: "CONNECT to port \(request.port) is not allowed (access.connect_ports)")
    }

    mutating func beginResolving(_ outbound: OutboundRequest, now: Int64) {
        record.resolveStartMicros = now
        state = .resolving(outbound)
        actions.append(.resolve)
    }

    /// The lookup ended.
    public mutating func resolved(_ result: Result<Resolution, ResolveFailure>, _ levels: BufferLevels,
                                  now: Int64) {
        guard case .resolving = state, let outbound = state.takeOutbound() else { return }
        record.resolveMicros = now - record.resolveStartMicros
        record.resolveFinished = true
        switch result {
        case .failure(let failure):
            if let original = observedOriginal(because: failure.proxyError.details) {
                return beginConnecting(outbound, toOriginal: original, levels, now: now)
            }
            // A live pooled connection to an address that works still serves the request when the name
            // cannot be looked up now (every source down past serve_stale).
            if !request.isConnect && !outbound.retriedOnFreshConnection {
                state = .connecting(outbound)
                lookupFailure = failure.proxyError
                return actions.append(.reusePooled)
            }
            state = .resolving(outbound)
            return respond(with: failure.proxyError, levels, now: now)
        case .success(let resolution):
            record.source = resolution.sourceLabel
            record.cacheAgeMillis = resolution.cache.ageMillis
            switch rules.permittedAddresses(resolution, host: request.host, port: request.port) {
            case .failure(let denied):
                if let original = observedOriginal(because: denied.details) {
                    return beginConnecting(outbound, toOriginal: original, levels, now: now)
                }
                state = .resolving(outbound)
                return respond(with: denied, levels, now: now)
            case .success(let permitted):
                beginConnecting(outbound, to: transparent == nil ? permitted : transparentResolved(permitted), now: now)
            }
        }
    }

    mutating func beginConnecting(_ outbound: OutboundRequest, to addresses: [IPAddress], now: Int64) {
        var outbound = outbound
        outbound.firstByteWanted = addresses.count > 1
        record.connectStartMicros = now
        payloads.upstream = UpstreamRequest(
            scheme: request.scheme, hostKey: request.hostKey, addresses: addresses,
            mayReusePooled: !request.isConnect && !outbound.retriedOnFreshConnection)
        state = .connecting(outbound)
        lookupFailure = nil
        actions.append(.connect)
    }

    /// Every address failed (the error names each attempt).
    public mutating func connectFailed(_ error: ProxyError, attempts: Int, _ levels: BufferLevels, now: Int64) {
        guard case .connecting = state else { return }
        record.connectAttempts = attempts
        record.connectMicros = now - record.connectStartMicros
        record.connectFinished = true
        lookupFailure = nil
        return respond(with: error, levels, now: now)
    }

    /// The lookup had failed and no pooled connection could stand in.
    public mutating func noPooledConnection(_ levels: BufferLevels, now: Int64) {
        guard case .connecting = state, let lookupFailure else { return }
        self.lookupFailure = nil
        return respond(with: lookupFailure, levels, now: now)
    }

    /// An upstream connection is the session's now: a CONNECT becomes a tunnel, a request goes out.
    /// False (and no action) when the session no longer waits for one: the driver closes it.
    @discardableResult
    /// `address` is the connection's "ip:port", for logs and error details.
    public mutating func upstreamReady(_ link: UpstreamLink, address: String, _ arrival: UpstreamArrival,
                                       now: Int64) -> Bool {
        guard case .connecting = state, let outbound = state.takeOutbound() else { return false }
        let lookupFailure = self.lookupFailure
        self.lookupFailure = nil
        record.upstreamAddress = address
        switch arrival {
        case .pooled(let rank):
            record.source = "pool"
            record.addressRank = rank
            if let lookupFailure {
                record.note = "resolution failed, a pooled connection was reused: \(lookupFailure.details)"
            }
        case .connected(let attempts, let rank):
            record.connectAttempts = attempts
            record.addressRank = rank
            record.connectMicros = now - record.connectStartMicros
            record.connectFinished = true
        }
        if request.isConnect {
            record.status = 200
            let established = Self.tunnelEstablished(request.frontEnd)
            if !established.isEmpty {
                record.bytesToClient += UInt64(established.count)
                sendToClient(established)
            }
            beginTunnel(link, now: now)
            return true
        }
        if !outbound.body.isComplete {
            // A slow upload is the client's pace, bounded by its idle timeout, until the body is sent.
            actions.append(deadline.arm(.clientIdle, millis: rules.proxy.clientIdleTimeoutMs, now: now))
        }
        actions.append(.forwardRequest)
        // A pooled connection the server dropped just as it was reused may be retried once on a fresh one,
        // when nothing of the request can have been consumed (RFC 9110 §9.2.2): no body went with it.
        mayRetryOnFreshConnection = link.reused && !request.hasBody && !outbound.retriedOnFreshConnection
        state = .forwarding(Forwarding(upstream: link, sending: outbound))
        return true
    }

    /// The driver moved request body bytes upstream; `progress` is where the body stands now.
    public mutating func requestBodyPumped(_ progress: BodyProgress, moved: UInt64, failure: HTTPParseError?,
                                           _ levels: BufferLevels, now: Int64) {
        guard var forwarding = state.takeForwarding() else { return }
        forwarding.requestBody = progress
        record.bytesFromClient += moved
        if progress.isComplete { forwarding.splicingRequestBody = false }
        if failure == nil, progress.isComplete, !forwarding.responseTimeoutArmed {
            // The response timeout runs only once the whole request is on its way: a slow upload is
            // the client's pace, not a silent server.
            forwarding.responseTimeoutArmed = true
            record.requestSentMicros = now
            actions.append(deadline.cancel())
            actions.append(.armResponseTimeout(millis: rules.proxy.responseTimeoutMs))
        }
        let splice = failure == nil && !progress.isComplete && !forwarding.splicingRequestBody
            ? bodySplice(from: .client, progress, forwarding.upstream, levels) : nil
        if splice != nil { forwarding.splicingRequestBody = true }
        state = .forwarding(forwarding)
        if let failure {
            return failInvalidBody(failure, fromClient: true, levels, now: now)
        }
        if !progress.isComplete {
            if moved > 0 { deadline.noteActivity(now: now) }
            if clientReadClosed && levels.clientInput == 0 {
                return close(note: "client closed before sending the whole request body")
            }
        }
        if let splice { return actions.append(splice) }
        if forwarding.splicingRequestBody { return }
        if levels.upstreamOutput >= SessionRules.outputHighWater { actions.append(.pauseReading(.client)) }
    }
}
