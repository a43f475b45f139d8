/// Connections redirected to the transparent listener: their first bytes are read without being taken from
/// the buffer, and decide where the connection goes. A ClientHello's server name (or, with none, the DNS
/// listener's last name for the original address) opens a tunnel to that name at the original port, which the
/// buffered bytes start; an HTTP request goes the request path with its Host; anything else keeps the
/// original address, or is closed (`unsniffed`). Nothing is ever sent to such a client but what the origin
/// sends, or an HTTP error answer to an HTTP request.
extension SessionMachine {
    /// A redirected connection's session begins: its first bytes are awaited for `sniff_timeout`.
    mutating func beginSniffing(now: Int64) {
        state = .sniffing
        guard clientPermitted else {
            return refuseTransparent(ProxyError(status: 403, kind: .httpRequestDenied,
                                                details: "this client address is not allowed (access.clients)"),
                                     now: now)
        }
        actions.append(deadline.arm(.sniff, millis: rules.transparent.sniffTimeoutMs, now: now))
    }

    /// What the client has sent so far, all of it (at most `ClientHelloReader.maximumBytes`), left in the
    /// buffer: the tunnel that follows sends it on as it is.
    public mutating func clientBytesSniffed(_ bytes: UnsafeRawBufferPointer, _ levels: BufferLevels, now: Int64) {
        guard case .sniffing = state else { return }
        switch FirstBytesKind.of(bytes) {
        case .undecided:
            return
        case .http:
            return beginTransparentHTTP(now: now)
        case .other:
            return sniffEnded(serverName: nil, now: now)
        case .tls:
            switch ClientHelloReader.read(bytes) {
            case .incomplete:
                if bytes.count >= ClientHelloReader.maximumBytes { sniffEnded(serverName: nil, now: now) }
            case .serverName(let name):
                sniffEnded(serverName: name, now: now)
            case .noServerName, .notClientHello:
                sniffEnded(serverName: nil, now: now)
            }
        }
    }

    /// `sniff_timeout` passed with no name: a server-speaks-first protocol, or bytes still short of a whole
    /// ClientHello.
    mutating func sniffTimedOut(now: Int64) {
        sniffEnded(serverName: nil, now: now)
    }

    /// An HTTP request: read as any other head, its target taken from Host (`headReceived`).
    private mutating func beginTransparentHTTP(now: Int64) {
        transparent?.sniffed = .http
        protocolChosen = true
        state = .readingHead
        actions.append(deadline.arm(.header, millis: rules.proxy.headerTimeoutMs, now: now))
        actions.append(.readNextRequest)
    }

    /// The first bytes said what they will: a tunnel to the server name, the DNS listener's name for the
    /// original address, or the original address itself, at the original port.
    private mutating func sniffEnded(serverName: String?, now: Int64) {
        guard let connection = transparent else { return close() }
        actions.append(deadline.cancel())
        let host: String
        if let serverName {
            connection.sniffed = .tls
            connection.serverName = serverName
            host = serverName
        } else if let answered = connection.answeredName {
            connection.sniffed = .dns
            host = answered
        } else {
            connection.sniffed = .none
            host = connection.original.ip.unmapped.description
        }
        request = ProxyRequest(method: serverName == nil ? "TCP" : "TLS", methodKind: .connect, host: host,
                               port: connection.original.port, isConnect: true, frontEnd: .transparent,
                               keepAlive: false, upgradeRequested: false, clientVersion: .http11, startMicros: now)
        record = ExchangeRecord()
        if connection.sniffed == .none && rules.transparent.unsniffed == .reset {
            return refuseTransparent(ProxyError(status: 403, kind: .httpRequestDenied,
                                                details: "the first bytes name no host (transparent.unsniffed = \"reset\")"),
                                     now: now)
        }
        if let refused = tunnelPortRefusal() { return refuseTransparent(refused, now: now) }
        beginResolving(.tunnel, now: now)
    }

    /// A request head on a transparent connection: an origin-form (or asterisk-form) request for the Host it
    /// names, forwarded with the head as the client wrote it but for the hop-by-hop fields; the client
    /// meant the origin, so no proxy request (CONNECT, the PAC file) is taken from it.
    mutating func transparentHeadReceived(_ head: RequestHead, in bytes: UnsafeRawBufferPointer, method: String,
                                          _ connection: TransparentConnection, _ bufferedBodyFailure: HTTPParseError?,
                                          _ levels: BufferLevels, now: Int64) {
        let body = BodyProgress(head.framing)
        let target = Self.transparentTarget(head, in: bytes, connection)
        let connect = head.method == .connect
        request = ProxyRequest(method: method, methodKind: head.method, host: target.host, port: connection.original.port,
                               isConnect: false, keepAlive: head.keepAlive && !connect,
                               upgradeRequested: head.upgradeRequested, clientVersion: head.version,
                               hasBody: !body.isComplete, startMicros: now)
        state = .resolving(OutboundRequest(body: body))
        switch head.target {
        case .authority:
            return respond(with: ProxyError(status: 400, kind: .httpRequestError,
                                            details: "CONNECT on a redirected connection: this is not a proxy"),
                           levels, now: now)
        case .absolute(let scheme, _, let port, _, _) where scheme != .http || port != connection.original.port:
            return respond(with: ProxyError(status: 400, kind: .httpRequestError,
                                            details: "absolute-form target for another scheme or port than the connection's"),
                           levels, now: now)
        case .origin, .absolute, .asterisk:
            break
        }
        if let hostRange = target.hostRange {
            HeadRewriter.upstreamRequest(head, in: bytes, hostRange: hostRange, viaName: rules.proxy.viaName,
                                         keepUpgrade: head.upgradeRequested, close: false, into: &payloads.requestHead)
        } else {
            payloads.requestHead = HeadBuffer(HeadRewriter.upstreamRequest(
                head, in: bytes, hostValue: HostName.withPort(target.host, connection.original.port),
                viaName: rules.proxy.viaName, keepUpgrade: head.upgradeRequested, close: false))
        }
        if let failure = bufferedBodyFailure { return respond(with: .badRequest(failure), levels, now: now) }
        record.resolveStartMicros = now
        actions.append(.resolve)
    }

    /// Where a transparent HTTP request goes: the Host it names (its port is the original port, whatever
    /// Host says, since the rules served only that port), or with none the DNS listener's name or the original
    /// address. The upstream head carries the Host as the client wrote it, or the name chosen.
    static func transparentTarget(_ head: RequestHead, in bytes: UnsafeRawBufferPointer,
                                  _ connection: TransparentConnection) -> (host: String, hostRange: Range<Int>?) {
        if let field = head.fields.first(where: { $0.known == .host }),
           case .success(let authority) = URIAuthority.parse(bytes, field.value, portRequired: false) {
            return (authority.host, field.value)
        }
        return (connection.answeredName ?? connection.original.ip.unmapped.description, nil)
    }

    /// Closes a transparent connection that will not be served, with a log line for it; a TLS or other
    /// client is told nothing (an HTTP answer would be garbage to it).
    mutating func refuseTransparent(_ error: ProxyError, now: Int64) {
        if !state.servesRequest, request.frontEnd != .transparent {
            request = ProxyRequest(method: "TCP", methodKind: .connect, host: "-", port: 0, isConnect: true,
                                   frontEnd: .transparent, keepAlive: false, upgradeRequested: false,
                                   clientVersion: .http11, startMicros: now)
            record = ExchangeRecord()
        }
        record.status = error.status
        record.note = error.details
        reportError(error)
        if state.hasUpstreamWork { actions.append(.abandonUpstream) }
        actions.append(.logExchange)
        state = .closed
        actions.append(.close)
    }

    /// The original address of a connection observe mode watches, when its name did not resolve or resolved
    /// only to addresses the policy refuses (`reason`, kept in the log's note): observing never changes where a
    /// connection goes, nor whether it is served. Nil when not observing a named connection.
    mutating func observedOriginal(because reason: String) -> IPAddress? {
        guard let connection = transparent, connection.sniffed != .none, rules.transparent.mode == .observe else {
            return nil
        }
        record.note = "observe: " + reason
        return connection.original.ip.unmapped
    }

    /// Observe mode connects to the original address after all, which the policy must permit as any literal.
    mutating func beginConnecting(_ outbound: OutboundRequest, toOriginal original: IPAddress, _ levels: BufferLevels,
                                  now: Int64) {
        let literal = Resolution(addresses: [original], source: .literal)
        switch rules.policy.permittedAddresses(literal, host: original.description, port: request.port) {
        case .failure(let denied):
            state = .resolving(outbound)
            respond(with: denied, levels, now: now)
        case .success(let permitted):
            beginConnecting(outbound, to: permitted, now: now)
        }
    }

    /// The lookup of a transparent connection's name succeeded with `addresses`: they are kept for the log,
    /// a disagreement with the client's own address is reported (a hijack signal), and in observe mode the
    /// connection goes to the original address after all.
    mutating func transparentResolved(_ addresses: [IPAddress]) -> [IPAddress] {
        guard let connection = transparent, connection.sniffed != .none else { return addresses }
        connection.answer = addresses
        if connection.originalInAnswer == false { actions.append(.reportTransparentMismatch) }
        return rules.transparent.mode == .observe ? [connection.original.ip.unmapped] : addresses
    }
}
