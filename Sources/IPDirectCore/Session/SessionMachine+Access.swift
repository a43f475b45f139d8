/// Who may use the proxy: the client ACL (`[access] clients`) and credentials (`[access] auth_file`).
extension SessionMachine {
    /// A request from a client that is not refused outright goes on once its credentials are accepted.
    mutating func admit(_ exchange: Exchange, head: RequestHead, bytes: UnsafeRawBufferPointer,
                        _ levels: BufferLevels, now: Int64) -> [SessionAction] {
        guard clientPermitted else { return refuseClient(levels, now: now) }
        switch ProxyCredentials.find(in: head, bytes: bytes) {
        case .none:
            return respond(with: .authenticationRequired("proxy authentication required (access.auth_file)"), levels, now: now)
        case .malformed(let reason):
            return respond(with: .authenticationRequired("unusable Proxy-Authorization: \(reason)"), levels, now: now)
        case .basic(let credentials):
            state = .authenticating(exchange, .proxyRequest)
            return [.verifyCredentials(user: credentials.user, password: credentials.password)]
        }
    }

    /// A client outside `[access] clients`: refused (403, or the SOCKS refusal) and the connection closed.
    mutating func refuseClient(_ levels: BufferLevels, now: Int64) -> [SessionAction] {
        respond(with: ProxyError(status: 403, kind: .httpRequestDenied,
                                 details: "this client address is not allowed to use the proxy (access.clients)"),
                levels, now: now, closing: true)
    }

    /// The verifier answered: `refusal` is nil when the credentials were accepted, else why not (never
    /// the password).
    public mutating func credentialsChecked(user: String, refusal: String?, _ levels: BufferLevels,
                                            now: Int64) -> [SessionAction] {
        guard case .authenticating(let exchange, let purpose) = state else { return [] }
        switch purpose {
        case .proxyRequest:
            guard refusal == nil else {
                return respond(with: .authenticationRequired("credentials for user \(LogQuote.token(user)) were refused"),
                               levels, now: now)
            }
            exchange.user = user
            if let refused = tunnelPortRefusal(exchange) { return respond(with: refused, levels, now: now) }
            return beginResolving(exchange, now: now)
        case .socks5:
            guard refusal == nil else {
                exchange.status = 407
                exchange.note = "SOCKS5 credentials for user \(LogQuote.token(user)) were refused"
                state = .socks(exchange, .credentials)
                let reply = SOCKS5Credentials.reply(accepted: false)
                exchange.bytesToClient += UInt64(reply.count)
                var actions: [SessionAction] = [.sendToClient(reply)]
                actions += finish(exchange, closeClientAfter: true, releasing: nil, levels, now: now)
                return actions
            }
            exchange.user = user
            state = .socks(exchange, .request)
            let reply = SOCKS5Credentials.reply(accepted: true)
            exchange.bytesToClient += UInt64(reply.count)
            return [.sendToClient(reply), .readNextRequest]
        }
    }
}
