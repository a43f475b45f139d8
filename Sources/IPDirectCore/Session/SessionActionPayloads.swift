/// What the actions that carry more than a number find on the machine when the driver performs them. Kept
/// here rather than in the actions: an action is then a few plain bytes, which a list copies and drops
/// without a reference count or a call per element.
public struct SessionActionPayloads {
    /// The bytes `sendToClient` writes.
    public internal(set) var reply: [UInt8] = []
    /// The rewritten head `forwardRequest` sends upstream.
    public internal(set) var requestHead = HeadBuffer()
    /// The rewritten head `forwardResponse` sends to the client.
    public internal(set) var responseHead = HeadBuffer()
    /// Where `connect` goes.
    public internal(set) var upstream: UpstreamRequest?
    /// How many bytes `spliceBody` moves at most; nil: until the sender's FIN.
    public internal(set) var spliceLimit: UInt64?
    /// Why `recordHostFailure` blames the upstream address.
    public internal(set) var hostFailure = ""
    /// The error `reportError` reports.
    public internal(set) var error: ProxyError?
    /// The user and password `verifyCredentials` checks, until the driver takes them.
    var credentials: (user: String, password: String)?
}

extension SessionMachine {
    mutating func sendToClient(_ bytes: [UInt8]) {
        payloads.reply = bytes
        actions.append(.sendToClient)
    }

    mutating func reportError(_ error: ProxyError) {
        payloads.error = error
        actions.append(.reportError)
    }

    mutating func recordHostFailure(_ reason: String) {
        payloads.hostFailure = reason
        actions.append(.recordHostFailure)
    }

    mutating func verifyCredentials(user: String, password: String) {
        payloads.credentials = (user, password)
        actions.append(.verifyCredentials)
    }

    /// The user and password of `verifyCredentials`, which the machine forgets once they are taken.
    public mutating func takeCredentials() -> (user: String, password: String)? {
        defer { payloads.credentials = nil }
        return payloads.credentials
    }
}
