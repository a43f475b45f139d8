/// SOCKS5 (RFC 1928, with RFC 1929 username/password) and SOCKS4/4a on the proxy port: the first byte
/// of a connection tells them from HTTP. A SOCKS CONNECT takes the same path as an HTTP CONNECT:
/// resolution through the chain, `connect_ports`, the private-address guard, the tunnel relay.
extension SessionMachine {
    /// SOCKS5 messages are at most this long (a request with a 255-byte name); SOCKS4a's two
    /// NUL-terminated strings are bounded the same way by its parser.
    public static let maxSOCKSMessageBytes = 8 + 256 + 256

    /// A SOCKS version byte can start a connection only before any HTTP request on it.
    @inlinable
    public var mayStartSOCKS: Bool { !protocolChosen && state.isReadingHead }

    /// A connection whose first byte is one of these speaks SOCKS (RFC 1928, or SOCKS4); anything else is HTTP.
    public static func isSOCKSVersion(_ firstByte: UInt8) -> Bool {
        firstByte == SOCKS5Greeting.version || firstByte == SOCKS4Request.version
    }

    /// The connection's first byte is a SOCKS version (5 or 4).
    public mutating func socksStarted(version: UInt8, now: Int64) {
        guard mayStartSOCKS, Self.isSOCKSVersion(version) else { return }
        protocolChosen = true
        let isSOCKS5 = version == SOCKS5Greeting.version
        record = ExchangeRecord()
        request = .socks(isSOCKS5 ? .socks5 : .socks4, at: now)
        state = .socks(isSOCKS5 ? .greeting : .socks4Request)
    }

    /// SOCKS bytes are buffered from the client (the driver passes at most `maxSOCKSMessageBytes`).
    public mutating func socksReceived(_ bytes: UnsafeRawBufferPointer, _ levels: BufferLevels, now: Int64) {
        guard case .socks(let phase) = state else { return }
        switch phase {
        case .greeting:
            switch SOCKS5Greeting.parse(bytes) {
            case .incomplete: return waitForMore(bytes, levels)
            case .invalid(let reason): return close(note: "socks5 greeting: \(reason)")
            case .complete(let greeting, let length):
                record.bytesFromClient += UInt64(length)
                return chooseMethod(for: greeting, consumed: length, levels, now: now)
            }
        case .credentials:
            switch SOCKS5Credentials.parse(bytes) {
            case .incomplete: return waitForMore(bytes, levels)
            case .invalid(let reason): return close(note: "socks5 credentials: \(reason)")
            case .complete(let credentials, let length):
                record.bytesFromClient += UInt64(length)
                guard clientPermitted else { return refuseLoginOutsideClients(consumed: length, levels, now: now) }
                state = .authenticating(.socks5)
                actions.append(.consumeClientInput(length))
                verifyCredentials(user: credentials.username, password: credentials.password)
            }
        case .request:
            if SOCKS5Request.unsupportedAddressType(bytes) {
                return refuseSOCKS(code: .addressTypeNotSupported, note: "socks5 request: unsupported address type",
                                   levels, now: now)
            }
            switch SOCKS5Request.parse(bytes) {
            case .incomplete: return waitForMore(bytes, levels)
            case .invalid(let reason): return close(note: "socks5 request: \(reason)")
            case .complete(let message, let length):
                actions.append(.consumeClientInput(length))
                connect(command: message.command, address: message.address, port: message.port,
                        consumed: length, levels, now: now)
                return
            }
        case .socks4Request:
            switch SOCKS4Request.parse(bytes) {
            case .incomplete: return waitForMore(bytes, levels)
            case .invalid(let reason): return close(note: "socks4 request: \(reason)")
            case .complete(let message, let length):
                actions.append(.consumeClientInput(length))
                guard !requiresAuthentication else {
                    record.bytesFromClient += UInt64(length)
                    refuseSOCKS(code: .notAllowedByRuleset,
                                note: "SOCKS4 carries no password and access.auth_file asks for one", levels, now: now)
                    return
                }
                connect(command: message.command, address: message.address, port: message.port,
                        consumed: length, levels, now: now)
                return
            }
        }
    }

    /// An incomplete message: wait, unless the client has closed or it cannot fit any message.
    private mutating func waitForMore(_ bytes: UnsafeRawBufferPointer, _ levels: BufferLevels) {
        if clientReadClosed && levels.clientInput <= bytes.count { return close(note: "client closed during the SOCKS negotiation") }
    }

    /// RFC 1928 §3: the server picks one of the offered methods, or 0xFF and closes.
    private mutating func chooseMethod(for greeting: SOCKS5Greeting, consumed: Int,
                                       _ levels: BufferLevels, now: Int64) {
        let method: SOCKS5Method?
        if !clientPermitted {
            // Its request is refused with 0x02 whatever it sends, so no password of it is ever checked:
            // a client outside the ACL must not learn through SOCKS5 whether a password is right.
            method = greeting.offersNoAuthentication ? .noAuthentication
                : (greeting.offersUsernamePassword ? .usernamePassword : nil)
        } else if requiresAuthentication {
            method = greeting.offersUsernamePassword ? .usernamePassword : nil
        } else {
            method = greeting.offersNoAuthentication ? .noAuthentication : nil
        }
        actions.append(.consumeClientInput(consumed))
        guard let method else {
            record.status = 407
            record.note = requiresAuthentication ? "socks5 client offered no username/password method"
                                                   : "socks5 client offered no method without authentication"
            let reply = SOCKS5Greeting.reply(method: .noAcceptable)
            record.bytesToClient += UInt64(reply.count)
            sendToClient(reply)
            finish(requestBodyComplete: true, closeClientAfter: true, releasing: nil, levels, now: now)
            return
        }
        state = .socks(method == .usernamePassword ? .credentials : .request)
        let reply = SOCKS5Greeting.reply(method: method)
        record.bytesToClient += UInt64(reply.count)
        sendToClient(reply)
        actions.append(.readNextRequest)
    }

    /// A client outside `[access] clients` that could only offer a login: refused unchecked, as RFC 1929
    /// §2 allows only success or failure here.
    private mutating func refuseLoginOutsideClients(consumed: Int, _ levels: BufferLevels,
                                                    now: Int64) {
        let error = ProxyError(status: 403, kind: .httpRequestDenied,
                               details: "this client address is not allowed to use the proxy (access.clients)")
        let reply = SOCKS5Credentials.reply(accepted: false)
        record.status = error.status
        record.note = error.details
        record.bytesToClient += UInt64(reply.count)
        actions.append(.consumeClientInput(consumed))
        reportError(error)
        sendToClient(reply)
        finish(requestBodyComplete: true, closeClientAfter: true, releasing: nil, levels, now: now)
    }

    /// A SOCKS CONNECT, checked like an HTTP CONNECT, then resolved.
    private mutating func connect(command: SOCKSCommand, address: SOCKSAddress, port: UInt16,
                                  consumed: Int, _ levels: BufferLevels, now: Int64) {
        record.bytesFromClient += UInt64(consumed)
        request = request.going(to: address.description, port: port)
        guard command == .connect else {
            return refuseSOCKS(code: .commandNotSupported, note: "only CONNECT is supported (not BIND or UDP ASSOCIATE)",
                               levels, now: now)
        }
        // A SOCKS5 login, when one is asked for, was accepted in the negotiation before this request.
        guard clientPermitted else { return refuseClient(levels, now: now) }
        if let refused = tunnelPortRefusal() { return respond(with: refused, levels, now: now) }
        return beginResolving(.tunnel, now: now)
    }

    /// The SOCKS reply that tells a client what failed (RFC 1928 §6): a client can act on "not allowed"
    /// (0x02), "host unreachable" (0x04: the name did not resolve), "refused" (0x05) and "TTL expired"
    /// (0x06: the connect timed out).
    static func socksReplyCode(for error: ProxyError) -> SOCKS5ReplyCode {
        switch error.kind {
        case .httpRequestDenied, .destinationIPProhibited: return .notAllowedByRuleset
        case .dnsError, .dnsTimeout, .destinationNotFound: return .hostUnreachable
        case .connectionRefused: return .connectionRefused
        case .connectionTimeout: return .ttlExpired
        default: return .generalFailure
        }
    }

    /// Answers a SOCKS request with its failure and closes; the error is logged like an HTTP error.
    mutating func refuseSOCKS(_ error: ProxyError, _ levels: BufferLevels, now: Int64) {
        reportError(error)
        record.status = error.status
        record.note = error.details
        socksFailure(code: Self.socksReplyCode(for: error), levels, now: now)
    }

    private mutating func refuseSOCKS(code: SOCKS5ReplyCode, note: String,
                                      _ levels: BufferLevels, now: Int64) {
        record.status = 400
        record.note = note
        return socksFailure(code: code, levels, now: now)
    }

    private mutating func socksFailure(code: SOCKS5ReplyCode, _ levels: BufferLevels,
                                       now: Int64) {
        let reply = request.frontEnd == .socks5 ? SOCKS5Reply.bytes(code) : SOCKS4Request.reply(granted: false)
        record.bytesToClient += UInt64(reply.count)
        sendToClient(reply)
        if state.hasUpstreamWork { actions.append(.abandonUpstream) }
        finish(requestBodyComplete: true, closeClientAfter: true, releasing: nil, levels, now: now)
    }

    /// What tells a client its tunnel is open: the 200 to a CONNECT, the SOCKS success reply, and nothing
    /// to a redirected client, which believes it is talking to the origin already.
    static func tunnelEstablished(_ frontEnd: SessionFrontEnd) -> [UInt8] {
        switch frontEnd {
        case .http: return connectEstablished
        case .socks5: return SOCKS5Reply.bytes(.succeeded)
        case .socks4: return SOCKS4Request.reply(granted: true)
        case .transparent: return []
        }
    }

    static let connectEstablished = Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)
}
