/// What the admin API shows of a session and does to it: the row `GET /connections` lists, and the close
/// `POST /connections/close` asks for.
extension SessionMachine {
    /// The session as a row of `/connections`. The request, its upstream and its bytes are the exchange in
    /// flight's; between requests (reading the next head, lingering) only who and how are known.
    public func listing(id: UInt64, client: SocketAddress?) -> ConnectionRow {
        var row = ConnectionRow(id: id, client: client, mode: listingMode, phase: phase, startMicros: listingStartMicros)
        row.serverName = transparent?.serverName
        row.original = transparent?.original
        guard state.servesRequest else { return row }
        row.user = request.user
        if request.hostKey != .nowhere { row.authority = request.hostKey }
        if record.upstreamAddress != "-" { row.upstream = record.upstreamAddress }
        row.rank = record.addressRank
        row.attempts = record.connectAttempts
        row.bytesFromClient = record.bytesFromClient
        row.bytesToClient = record.bytesToClient
        return row
    }

    /// When the exchange in flight began (nil between requests): what a listing orders sessions by before it
    /// builds rows for the ones it shows.
    public var listingStartMicros: Int64? {
        state.servesRequest ? request.startMicros : nil
    }

    /// How the client reached ipdirect: a redirected connection stays transparent whatever it speaks.
    public var listingMode: ConnectionRow.Mode {
        if transparent != nil { return .transparent }
        switch request.frontEnd {
        case .socks5: return .socks5
        case .socks4: return .socks4
        case .transparent: return .transparent
        case .http: return request.isConnect && state.servesRequest ? .connect : .http
        }
    }

    /// An operator closed the connection through the admin API: both sides now, the exchange logged as such.
    public mutating func closedByOperator() {
        close(note: "closed through the admin API")
    }
}
