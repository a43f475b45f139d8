/// Who may use the proxy: the client ACL (`[access] clients`) and credentials (`[access] auth_file`).
extension SessionMachine {
    /// A request from a client that is not refused outright goes on once its credentials are accepted.
    /// The request waits in `resolving`, which the credentials' check takes over.
    mutating func admit(head: RequestHead, bytes: UnsafeRawBufferPointer, _ levels: BufferLevels,
                        now: Int64) {
        guard clientPermitted else { return refuseClient(levels, now: now) }
        switch ProxyCredentials.find(in: head, bytes: bytes) {
        case .none:
            return respond(with: .authenticationRequired("proxy authentication required (access.auth_file)"), levels, now: now)
        case .malformed(let reason):
            return respond(with: .authenticationRequired("unusable Proxy-Authorization: \(reason)"), levels, now: now)
        case .basic(let credentials):
            guard case .resolving(let outbound) = state else { return }
            state = .authenticating(.proxyRequest(outbound))
            return verifyCredentials(user: credentials.user, password: credentials.password)
        }
    }

    /// A client outside `[access] clients`: refused (403, or the SOCKS refusal) and the connection closed.
    mutating func refuseClient(_ levels: BufferLevels, now: Int64) {
        respond(with: ProxyError(status: 403, kind: .httpRequestDenied,
                                 details: "this client address is not allowed to use the proxy (access.clients)"),
                levels, now: now, closing: true)
    }

    /// The verifier answered: `refusal` is nil when the credentials were accepted, else why not (never
    /// the password).
    public mutating func credentialsChecked(user: String, refusal: String?, _ levels: BufferLevels,
                                            now: Int64) {
        guard case .authenticating(let purpose) = state else { return }
        switch purpose {
        case .proxyRequest(let outbound):
            guard refusal == nil else {
                return respond(with: .authenticationRequired("credentials for user \(LogQuote.token(user)) were refused"),
                               levels, now: now)
            }
            request = request.authenticated(as: user)
            if let refused = tunnelPortRefusal() { return respond(with: refused, levels, now: now) }
            return beginResolving(outbound, now: now)
        case .socks5:
            guard refusal == nil else {
                record.status = 407
                record.note = "SOCKS5 credentials for user \(LogQuote.token(user)) were refused"
                state = .socks(.credentials)
                let reply = SOCKS5Credentials.reply(accepted: false)
                record.bytesToClient += UInt64(reply.count)
                sendToClient(reply)
                finish(requestBodyComplete: true, closeClientAfter: true, releasing: nil, levels, now: now)
                return
            }
            request = request.authenticated(as: user)
            state = .socks(.request)
            let reply = SOCKS5Credentials.reply(accepted: true)
            record.bytesToClient += UInt64(reply.count)
            sendToClient(reply)
            actions.append(.readNextRequest)
        }
    }
}
