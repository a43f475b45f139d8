/// The `[proxy]` section: where the daemon listens, how much it accepts, and how long it waits.
/// Durations are written in seconds in the file and kept in milliseconds here.
public struct ProxySettings: Sendable, Equatable {
    /// Addresses to accept proxy clients on; never empty, no duplicates.
    public var listen: [SocketAddress] = [SocketAddress(ip: .v4(0x7F00_0001), port: 8080)]
    /// Event loops to run; 0 means one per CPU core.
    public var workers = 0
    /// Client connections open at once across the whole daemon; more wait in the kernel backlog.
    public var maxConnections = 10_000
    /// Pipe pairs open at once across the daemon for moving bytes in the kernel (splice); a tunnel or
    /// body holds one only while bytes are in flight. 0 moves every byte through user-space buffers.
    public var maxPipes = 2_500
    /// Largest request or response head (start line plus header fields) accepted, in bytes.
    public var maxHeaderBytes = 32_768
    /// Time to receive a whole request head once a request has begun.
    public var headerTimeoutMs = 10_000
    /// Time a keep-alive client may stay silent between requests.
    public var clientIdleTimeoutMs = 60_000
    /// Time a CONNECT tunnel may pass no bytes in either direction.
    public var tunnelIdleTimeoutMs = 300_000
    /// Time to establish a TCP connection to one upstream address before trying the next.
    public var connectTimeoutMs = 5_000
    /// Time to wait for the next upstream bytes while a response is outstanding.
    public var responseTimeoutMs = 60_000
    /// Time requests and tunnels in flight get to finish after SIGTERM/SIGINT before they are cut.
    public var drainTimeoutMs = 30_000
    /// Time a pooled, idle upstream connection is kept for reuse.
    public var upstreamIdleTimeoutMs = 30_000
    /// Idle upstream connections pooled per host and port; 0 disables pooling.
    public var upstreamMaxIdlePerHost = 32
    /// `-` for stdout, `off`, or a file path to append access log lines to.
    public var accessLog = "-"
    /// Least severe event written to stderr.
    public var logLevel = LogLevel.info
    /// Pseudonym sent in `Via: 1.1 <name>` (RFC 9110 §7.6.3).
    public var viaName = "ipdirect"

    public init() {}
}

extension ProxySettings {
    /// Descriptors kept for what is not counted per connection: listeners, the resolver's and the
    /// admin listener's sockets, log files, loop wake-ups and pooled idle upstream connections.
    static let descriptorReserve = 1_024

    /// Descriptors the daemon may hold at once: a client and an upstream socket per connection (an
    /// idle tunnel holds no more), two per pipe in `max_pipes`, and the reserve.
    public var descriptorsNeeded: Int {
        maxConnections * 2 + maxPipes * 2 + ProxySettings.descriptorReserve
    }

    /// Each worker's share of `max_pipes`: at least one while splicing is on.
    public func pipesPerWorker(workerCount: Int) -> Int {
        maxPipes == 0 ? 0 : max(1, maxPipes / max(1, workerCount))
    }

    /// More event loops than this gains nothing on the machines ipdirect targets.
    static let workersRange = 0...64
    /// The upper end stays below common file-descriptor limits (two descriptors per tunnel).
    static let maxConnectionsRange = 1...1_000_000
    /// 1 KiB still fits any sane request line; 1 MiB bounds per-connection memory.
    static let maxHeaderBytesRange = 1_024...1_048_576
    static let upstreamMaxIdlePerHostRange = 0...4_096
    /// Two descriptors per pipe pair; as many as the largest `max_connections` is generous.
    static let maxPipesRange = 0...1_000_000
    /// A `Via` pseudonym this long is a mistake, not a name.
    static let maximumViaNameLength = 64
    /// Upper bounds in seconds: one hour for handshakes and heads, one day for idle periods.
    static let maximumShortTimeoutSeconds = 3_600
    static let maximumConnectTimeoutSeconds = 300
    static let maximumIdleTimeoutSeconds = 86_400

    static var configKeys: [ConfigKey<ProxySettings>] {
        [
            ConfigKey("listen", \.listen, .addresses(allowEmpty: false)),
            ConfigKey("workers", \.workers, .integer(in: workersRange)),
            ConfigKey("max_connections", \.maxConnections, .integer(in: maxConnectionsRange)),
            ConfigKey("max_pipes", \.maxPipes, .integer(in: maxPipesRange)),
            ConfigKey("max_header_bytes", \.maxHeaderBytes, .integer(in: maxHeaderBytesRange)),
            ConfigKey("header_timeout", \.headerTimeoutMs, .milliseconds(fromSecondsUpTo: maximumShortTimeoutSeconds)),
            ConfigKey("client_idle_timeout", \.clientIdleTimeoutMs, .milliseconds(fromSecondsUpTo: maximumIdleTimeoutSeconds)),
            ConfigKey("tunnel_idle_timeout", \.tunnelIdleTimeoutMs, .milliseconds(fromSecondsUpTo: maximumIdleTimeoutSeconds)),
            ConfigKey("connect_timeout", \.connectTimeoutMs, .milliseconds(fromSecondsUpTo: maximumConnectTimeoutSeconds)),
            ConfigKey("response_timeout", \.responseTimeoutMs, .milliseconds(fromSecondsUpTo: maximumIdleTimeoutSeconds)),
            ConfigKey("drain_timeout", \.drainTimeoutMs, .milliseconds(fromSecondsUpTo: maximumShortTimeoutSeconds)),
            ConfigKey("upstream_idle_timeout", \.upstreamIdleTimeoutMs, .milliseconds(fromSecondsUpTo: maximumShortTimeoutSeconds)),
            ConfigKey("upstream_max_idle_per_host", \.upstreamMaxIdlePerHost, .integer(in: upstreamMaxIdlePerHostRange)),
            ConfigKey("access_log", \.accessLog, .nonEmptyText),
            ConfigKey("log_level", \.logLevel, .choice),
            ConfigKey("via", \.viaName, .string.then(validViaName)),
        ]
    }

    /// A pseudonym is an RFC 9110 §5.6.2 token, so it cannot break the `Via` field.
    private static func validViaName(_ name: String) -> Result<String, ConfigRejection> {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)
        let isTokenByte: (UInt8) -> Bool = { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || tokenPunctuation.contains(byte)
        }
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            return .failure("\(LogQuote.singleQuoted(name)) is not a token (letters, digits and !#$%&'*+-.^_`|~)")
        }
        guard name.utf8.count <= maximumViaNameLength else {
            return .failure("is longer than \(maximumViaNameLength) characters")
        }
        return .success(name)
    }
}

extension ConfigReader where Value == SocketAddress {
    /// `127.0.0.1:8080` or `[::1]:8080`; the port is required. Port 0 lets the kernel pick one,
    /// which suits tests that read the bound address back.
    static var socketAddress: ConfigReader {
        ConfigReader<String>.string.then { text in
            guard let address = SocketAddress(text) else {
                return .failure("\(LogQuote.singleQuoted(text)) is not an address with a port, such as 127.0.0.1:8080 or [::1]:8080")
            }
            return .success(address)
        }
    }
}

extension ConfigReader where Value == [SocketAddress] {
    /// Listen addresses: `"127.0.0.1:8080"` or `["127.0.0.1:8080", "[::1]:8080"]`.
    static func addresses(allowEmpty: Bool) -> ConfigReader {
        oneOrList(of: .socketAddress, allowEmpty: allowEmpty, expected: "an address or an array of addresses")
    }
}
