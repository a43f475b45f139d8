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

    public init() {}
}

extension AdminSettings {
    static let sectionName = "admin"
    static let listenKey = "listen"

    static var configKeys: [ConfigKey<AdminSettings>] {
        [
            ConfigKey(listenKey, \.listen, .addresses(allowEmpty: true)),
            ConfigKey("allow_remote", \.allowRemote, .boolean),
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
