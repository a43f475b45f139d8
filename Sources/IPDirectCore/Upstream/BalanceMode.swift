/// How the connections to one host are shared among its addresses (`[upstream] balance`).
public enum BalanceMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The best-scored address wins; addresses whose scores tie share the load.
    case fastest
    /// Every healthy address in turn: a load test that must reach every node.
    case spread
    /// One address per host until it fails: a load test of a single node.
    case sticky

    public var description: String { rawValue }
}

/// A `[[upstream.balance_rule]]`: hosts that use another mode than `[upstream] balance`.
public struct BalanceRule: Sendable, Equatable {
    public var hosts: [HostPattern]
    public var mode: BalanceMode

    public init(hosts: [HostPattern], mode: BalanceMode) {
        self.hosts = hosts
        self.mode = mode
    }
}

/// A `[[upstream.probe]]`: hosts whose every new answer is probed by TCP connect to `port` in the
/// background, so its addresses are ranked before they carry traffic (the HTTPDNS SDKs' IP ranking).
public struct ProbeRule: Sendable, Equatable {
    public var hosts: [HostPattern]
    public var port: UInt16

    public init(hosts: [HostPattern], port: UInt16) {
        self.hosts = hosts
        self.port = port
    }
}
