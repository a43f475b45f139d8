/// The `[admin]` section: where the admin listener (`/healthz`, `/metrics`, `/cache`, `/resolve`)
/// accepts requests. It has no authentication and can flush the cache, so it stays on loopback
/// unless `allow_remote` says otherwise.
public struct AdminSettings: Sendable, Equatable {
    /// Addresses to serve the admin API on; empty turns the admin listener off.
    public var listen: [SocketAddress] = [SocketAddress(ip: .v4(0x7F00_0001), port: 8081)]
    /// Whether `listen` may name addresses other than loopback.
    public var allowRemote = false
    /// Whether the file wrote `listen`. An address written there that cannot be bound stops startup; the
    /// built-in default only turns the admin listener off with a warning, because another instance on the
    /// same machine (one per user, one per load-test worker) holds it, and the proxy must still run.
    public var listenIsExplicit = false
    /// Time to receive a whole request head, counted from the accept or from the end of the last response.
    /// Bytes arriving do not extend it, so a client trickling a head cannot hold a connection for ever.
    public var headerTimeoutMs = 10_000
    /// Connections one client address may hold at once, so one local process cannot take all of
    /// `maxConnections` and shut scrapers and operators out.
    public var maxConnectionsPerClient = 16
    /// Whether the dashboard (`GET /ui`) is served. The JSON endpoints it reads stay either way.
    public var ui = true

    /// Admin connections open at once; more are refused on accept. Scrapers and operators need a handful.
    public static let maxConnections = 64

    public init() {}
}

extension AdminSettings {
    static let sectionName = "admin"
    static let listenKey = "listen"
    /// A head is a line and a few fields: a client that needs longer than this is not sending one.
    static let maximumHeaderTimeoutSeconds = 300

    static var configKeys: [ConfigKey<AdminSettings>] {
        [
            ConfigKey(listenKey, \.listen, .addresses(allowEmpty: true)),
            ConfigKey("allow_remote", \.allowRemote, .boolean),
            ConfigKey("header_timeout", \.headerTimeoutMs, .milliseconds(fromSecondsUpTo: maximumHeaderTimeoutSeconds)),
            ConfigKey("max_connections_per_client", \.maxConnectionsPerClient, .integer(in: 1...maxConnections)),
            ConfigKey("ui", \.ui, .boolean),
        ]
    }

    /// The keys, then the rule spanning two of them: an address off loopback needs `allow_remote = true`.
    static var section: ConfigSection {
        let keyed = ConfigSection.keyed(sectionName, \.admin, keys: configKeys)
        return ConfigSection(name: sectionName) { table, config in
            var diagnostics = keyed.apply(table, &config)
            let listenLine = table.entries.first(where: { $0.key == listenKey })?.line
            config.admin.listenIsExplicit = listenLine != nil
            let settings = config.admin
            guard !settings.allowRemote, let line = listenLine else {
                return diagnostics
            }
            for address in settings.listen where !address.ip.isLoopbackAddress {
                diagnostics.append(ConfigDiagnostic(
                    line: line, message: "\(listenKey): \(address) is not a loopback address; the admin API has no authentication (set allow_remote = true to serve it there anyway)"))
            }
            return diagnostics
        }
    }
}
