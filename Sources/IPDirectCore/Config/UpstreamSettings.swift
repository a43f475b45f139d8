/// The `[upstream]` section: how ipdirect talks to upstream servers beyond resolving and connecting.
public struct UpstreamSettings: Sendable, Equatable {
    /// Plain `http://` requests to a host matching one of these go upstream over TLS instead;
    /// tried in order, first match wins, and no rule is covered by an earlier one.
    public var httpsUpgrade: [HostPattern] = []

    public init() {}

    /// The port to reach `host` on over TLS, or nil when no rule upgrades it. `host` is lower case
    /// without a trailing dot; the first matching rule decides, with 443 when it names no port.
    public func httpsUpgradePort(for host: String) -> UInt16? {
        guard let rule = httpsUpgrade.first(where: { $0.matches(host) }) else { return nil }
        return rule.port ?? Self.httpsPort
    }
}

extension UpstreamSettings {
    /// RFC 9110 §4.2.2: the default port of the https scheme.
    static let httpsPort: UInt16 = 443

    static var configKeys: [ConfigKey<UpstreamSettings>] {
        [
            ConfigKey("https_upgrade", \.httpsUpgrade, .orderedHostPatterns),
        ]
    }
}
