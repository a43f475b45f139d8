/// What a client session takes from the configuration, fixed when the connection is accepted: a
/// reload changes what later connections get, never half of what an open one uses.
public final class SessionRules: Sendable {
    /// Output buffered toward one side past which the other side stops being read (le-proxy's MAX_OUTPUT).
    public static let outputHighWater = 512 * 1024
    /// Interim (1xx) responses passed on for one request before the server counts as misbehaving.
    public static let maxInterimResponses = 32
    /// How long a closing connection keeps reading (and discarding) so an early error response is not
    /// destroyed by a TCP reset for unread request bytes (nginx's lingering close).
    public static let lingerMillis = 2000
    /// Bodies with fewer bytes still to pass than one pipe holds stay in the buffers: taking a pipe and
    /// watching the sockets directly costs more syscalls than it saves on so few bytes.
    public static let spliceMinimumBytes: UInt64 = 64 * 1024
    /// How long a kept-alive connection waits with nothing buffered before it gives up its buffers and is
    /// parked: back-to-back requests never pay for parking, an idle client soon holds almost nothing. Kept
    /// short because every session still waiting to park during a burst of new clients raises the heap's
    /// high-water mark, which stays resident after they park.
    public static let parkAfterMillis = 5

    public let proxy: ProxySettings
    public let upstream: UpstreamSettings
    public let pac: PACSettings
    public let headLimits: HTTPHeadLimits
    public let policy: UpstreamPolicy
    /// `max_pipes` is above 0 when the connection was accepted: bodies and tunnels between plain sockets
    /// may move in the kernel. A reload does not change it under an open connection.
    public let splices: Bool
    /// `[transparent]`: how redirected connections are sniffed and where they go.
    public let transparent: TransparentSettings

    /// `ownEndpoints`: the listeners bound at startup, which no request may reach (they are not in `config`,
    /// which may say port 0).
    public init(config: Config, ownEndpoints: OwnEndpoints) {
        proxy = config.proxy
        upstream = config.upstream
        pac = config.pac
        headLimits = HTTPHeadLimits(maxHeadBytes: config.proxy.maxHeaderBytes)
        policy = UpstreamPolicy(allowPrivateUpstreams: config.access.allowPrivateUpstreams,
                                connectPorts: config.access.connectPorts, ownEndpoints: ownEndpoints)
        splices = config.proxy.maxPipes > 0
        transparent = config.transparent
    }

    // Asked of every request. Calling UpstreamSettings' own methods through `upstream` copied the whole
    // settings value (its arrays retained and released) each time; reading one field does not.

    /// The port `host` is reached on over TLS (`[upstream] https_upgrade`), or nil.
    public func httpsUpgradePort(for host: String) -> UInt16? {
        upstream.httpsUpgrade.isEmpty ? nil : upstream.httpsUpgradePort(for: host)
    }

    /// `policy.permittedAddresses`: called on `rules.policy` from outside, the whole policy was copied first.
    public func permittedAddresses(_ resolution: Resolution, host: String, port: UInt16) -> Result<[IPAddress], ProxyError> {
        policy.permittedAddresses(resolution, host: host, port: port)
    }

    /// How the addresses of `host` are ranked (`[upstream] balance` and its rules).
    public func balanceMode(for host: String) -> BalanceMode {
        upstream.balanceRules.isEmpty ? upstream.balance : upstream.balanceMode(for: host)
    }
}
