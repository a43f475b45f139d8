/// Why the admin listener closed a connection it did not finish serving; the `reason=` of
/// `event=admin_connection_closed`.
public enum AdminClosure: String, Sendable, Hashable, CustomStringConvertible {
    /// A request head was begun, or none came on a fresh connection, before `[admin] header_timeout`.
    case headTimeout = "head_timeout"
    /// Nothing more came on a connection kept alive after a response: what a scraper does between scrapes.
    case idle = "idle_timeout"
    /// The client's address already held `[admin] max_connections_per_client` connections.
    case perClientLimit = "per_client_limit"
    /// The listener already held `AdminSettings.maxConnections` connections.
    case connectionLimit = "connection_limit"

    public var description: String { rawValue }

    /// Whether an operator should hear of it: all but `idle`, which is routine.
    public var isWorthAWarning: Bool { self != .idle }
}
