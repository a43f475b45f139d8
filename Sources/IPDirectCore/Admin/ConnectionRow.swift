/// What a client connection is doing now, as `GET /connections` lists it: taken from its session on the
/// worker that owns it when someone asks, never kept up to date while nobody does.
public struct ConnectionRow: Sendable, Equatable {
    /// How the client reached ipdirect, as a person would name it.
    public enum Mode: String, Sendable, CaseIterable {
        /// A plain HTTP request through the proxy (absolute-form target).
        case http
        /// An HTTP CONNECT tunnel.
        case connect
        case socks5
        case socks4
        /// A connection redirected to the transparent listener.
        case transparent

        /// Its place in `allCases`, where a listing counts it.
        public var index: Int {
            switch self {
            case .http: return 0
            case .connect: return 1
            case .socks5: return 2
            case .socks4: return 3
            case .transparent: return 4
            }
        }
    }

    /// Unique in the daemon; `POST /connections/close?id=` names it.
    public var id: UInt64
    public var client: SocketAddress?
    public var user: String?
    public var mode: Mode
    public var phase: SessionPhase
    /// Where the request goes; nil until the client has named it.
    public var authority: UpstreamHostKey?
    /// A transparent connection's ClientHello server name.
    public var serverName: String?
    /// A transparent connection's destination before the redirect.
    public var original: SocketAddress?
    /// The upstream address carrying the exchange, with its place in the plan's order.
    public var upstream: String?
    public var rank: Int?
    public var attempts: Int
    public var bytesFromClient: UInt64
    public var bytesToClient: UInt64
    /// When the exchange in flight began (monotonic microseconds): a tunnel's age, or the request's; nil
    /// between requests.
    public var startMicros: Int64?

    public init(id: UInt64, client: SocketAddress?, user: String? = nil, mode: Mode, phase: SessionPhase,
                authority: UpstreamHostKey? = nil, serverName: String? = nil, original: SocketAddress? = nil,
                upstream: String? = nil, rank: Int? = nil, attempts: Int = 0, bytesFromClient: UInt64 = 0,
                bytesToClient: UInt64 = 0, startMicros: Int64? = nil) {
        self.id = id
        self.client = client
        self.user = user
        self.mode = mode
        self.phase = phase
        self.authority = authority
        self.serverName = serverName
        self.original = original
        self.upstream = upstream
        self.rank = rank
        self.attempts = attempts
        self.bytesFromClient = bytesFromClient
        self.bytesToClient = bytesToClient
        self.startMicros = startMicros
    }
}

/// One worker's answer to `GET /connections`: its newest sessions, at most the limit asked for, and counts
/// of all it holds, so the listing stays small however many connections are open.
public struct ConnectionListing: Sendable, Equatable {
    /// Newest first.
    public var rows: [ConnectionRow] = []
    /// Sessions, listed or not.
    public var total = 0
    /// Sessions by mode, in `ConnectionRow.Mode.allCases` order.
    public var byMode = ConnectionRow.Mode.allCases.map { _ in 0 }
    /// Kept-alive clients parked between requests, and accepted ones that have sent nothing: counted only.
    public var idle = 0
    public var silent = 0

    public init() {}

    /// Rows listed when the request names no limit (what the dashboard asks for every 2 s), and the most it
    /// may name: a screen shows a few dozen rows, and 200 keep a poll under a millisecond of the admin
    /// thread's time with 10,000 connections open.
    public static let defaultLimit = 200
    public static let maximumLimit = 5_000

    /// The newest `limit` of `rows` (each listing already newest first), and every count added up. The
    /// listings are merged as they are ordered, so each row kept is copied once.
    public static func merged(_ listings: [ConnectionListing], limit: Int) -> ConnectionListing {
        var merged = ConnectionListing()
        for listing in listings {
            merged.total += listing.total
            merged.idle += listing.idle
            merged.silent += listing.silent
            for index in merged.byMode.indices { merged.byMode[index] += listing.byMode[index] }
        }
        var next = listings.map { _ in 0 }
        merged.rows.reserveCapacity(min(limit, listings.reduce(0) { $0 + $1.rows.count }))
        while merged.rows.count < limit {
            var newest: Int?
            for (position, listing) in listings.enumerated() where next[position] < listing.rows.count {
                guard let best = newest else {
                    newest = position
                    continue
                }
                if isNewer(listing.rows[next[position]], than: listings[best].rows[next[best]]) { newest = position }
            }
            guard let newest else { break }
            merged.rows.append(listings[newest].rows[next[newest]])
            next[newest] += 1
        }
        return merged
    }

    static func isNewer(_ row: ConnectionRow, than other: ConnectionRow) -> Bool {
        ListingOrder.isNewer((row.startMicros, row.id), than: (other.startMicros, other.id))
    }

    /// The `limit` rows whose exchange began last, newest first, then those between requests; ties broken by
    /// id so the order is stable between polls.
    public static func newestFirst(_ rows: [ConnectionRow], limit: Int) -> [ConnectionRow] {
        let order = ListingOrder(rows.map { ($0.startMicros, $0.id) })
        return order.newestFirst(limit: limit).map { rows[$0] }
    }
}

/// The order of a listing, worked out from each session's start and id alone, so a worker builds rows only
/// for the sessions it returns: of 5,000, the 500 newest.
public struct ListingOrder {
    private var keys: [(start: Int64?, id: UInt64, position: Int)] = []

    public init() {}

    public init(_ entries: some Sequence<(start: Int64?, id: UInt64)>) {
        for entry in entries { append(start: entry.start, id: entry.id) }
    }

    public mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
    }

    /// The next session, at the next position.
    public mutating func append(start: Int64?, id: UInt64) {
        keys.append((start, id, keys.count))
    }

    /// Positions of the `limit` newest, newest first.
    public func newestFirst(limit: Int) -> [Int] {
        keys.sorted { Self.isNewer(($0.start, $0.id), than: ($1.start, $1.id)) }.prefix(max(0, limit)).map(\.position)
    }

    /// Whether a session that began at `start` comes before `other` in a listing: newest first, those between
    /// requests (no start) last, ties to the higher id, so the order is the same from one poll to the next.
    static func isNewer(_ session: (start: Int64?, id: UInt64), than other: (start: Int64?, id: UInt64)) -> Bool {
        (session.start ?? -1, session.id) > (other.start ?? -1, other.id)
    }
}
