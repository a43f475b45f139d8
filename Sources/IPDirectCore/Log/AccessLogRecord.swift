/// One access-log line: one per request or tunnel.
public struct AccessLogRecord: Sendable {
    public var unixMillis: Int64
    public var client: String
    public var method: String
    /// host:port the client asked for.
    public var target: String
    /// The address actually connected to, "-" if none.
    public var upstream: String
    /// Where the upstream address came from: `hosts`, a provider's name, `system`, `cache:NAME`,
    /// `stale:NAME`, `literal`, or `pool` for a reused connection.
    public var source: String
    /// Age of the cached answer used, nil when none was.
    public var cacheAgeMillis: Int64?
    public var status: Int
    /// Bytes received from the client and sent to the client (heads and bodies).
    public var bytesFromClient: UInt64
    public var bytesToClient: UInt64
    public var resolveMicros: Int64
    public var connectMicros: Int64
    /// Connection attempts started (0 for a reused connection) and the 1-based rank of the address used.
    public var attempts: Int
    public var addressRank: Int?
    public var totalMicros: Int64
    /// Why the exchange ended abnormally, empty when it did not.
    public var note: String
    /// The name the client authenticated as (`[access] auth_file`), nil without authentication.
    public var user: String?
    /// Set for a connection redirected to the transparent listener: where it was going, and what named its host.
    public var transparent: TransparentSummary?

    public init(unixMillis: Int64, client: String, method: String, target: String, upstream: String, source: String,
                cacheAgeMillis: Int64? = nil, status: Int, bytesFromClient: UInt64, bytesToClient: UInt64, resolveMicros: Int64,
                connectMicros: Int64, attempts: Int = 0, addressRank: Int? = nil, totalMicros: Int64, note: String,
                user: String? = nil, transparent: TransparentSummary? = nil) {
        self.unixMillis = unixMillis
        self.client = client
        self.method = method
        self.target = target
        self.upstream = upstream
        self.source = source
        self.cacheAgeMillis = cacheAgeMillis
        self.status = status
        self.bytesFromClient = bytesFromClient
        self.bytesToClient = bytesToClient
        self.resolveMicros = resolveMicros
        self.connectMicros = connectMicros
        self.attempts = attempts
        self.addressRank = addressRank
        self.totalMicros = totalMicros
        self.note = note
        self.user = user
        self.transparent = transparent
    }

    /// `key=value` pairs after an RFC 3339 UTC time, so both people and `grep`/`awk` can read it.
    public var line: String {
        var line = Timestamp.rfc3339(unixMillis: unixMillis)
        // A client chooses the method (any token, RFC 9110 §9.1) and the name it asks for.
        line += " client=\(client) method=\(LogQuote.token(method)) target=\(LogQuote.token(target))"
        line += " upstream=\(upstream) source=\(source)"
        line += " cache_age_ms=\(cacheAgeMillis.map(String.init) ?? "-")"
        line += " status=\(status) bytes_in=\(bytesFromClient) bytes_out=\(bytesToClient)"
        line += " resolve_ms=\(Timestamp.millis(resolveMicros)) connect_ms=\(Timestamp.millis(connectMicros))"
        line += " attempts=\(attempts) rank=\(addressRank.map(String.init) ?? "-")"
        line += " total_ms=\(Timestamp.millis(totalMicros)) user=\(user.map { LogQuote.token($0) } ?? "-")"
        if let transparent {
            // The server name is the client's, checked as a host name when it was read.
            line += " mode=transparent orig=\(transparent.original) sniffed=\(transparent.sniffed)"
            line += " sni=\(transparent.serverName.map { LogQuote.token($0) } ?? "-")"
        }
        if !note.isEmpty { line += " note=\"\(note)\"" }
        line += "\n"
        return line
    }
}
