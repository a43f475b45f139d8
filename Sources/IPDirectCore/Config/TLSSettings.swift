/// The `[tls]` section: how the certificates of upstream servers ipdirect speaks TLS to are checked.
public struct TLSSettings: Sendable, Equatable {
    /// PEM bundle of trusted CAs; nil uses the system bundle.
    public var caFile: String?
    /// Directory of CA certificates named by subject hash (`openssl rehash`); nil for none.
    public var caPath: String?
    /// From `[[tls.pin]]`: by host name (lower case, no trailing dot), the base64 SHA-256 digests of
    /// SubjectPublicKeyInfos of which the verified chain must contain at least one. Never empty lists.
    public var pins: [String: [String]] = [:]
    /// Host names (lower case, no trailing dot) whose certificates are not verified at all. For labs
    /// only; each use must be logged. Never holds a pinned host, and there is no wildcard or global form.
    public var insecureHosts: Set<String> = []

    public init() {}
}

extension TLSSettings {
    static let sectionName = "tls"
    static let insecureHostsKey = "insecure_hosts"

    static var configKeys: [ConfigKey<TLSSettings>] {
        [
            ConfigKey("ca_file", \.caFile, .nonEmptyText),
            ConfigKey("ca_path", \.caPath, .nonEmptyText),
            ConfigKey(insecureHostsKey, \.insecureHosts, insecureHosts),
            ConfigKey("pin", \.pins, .pinTables),
        ]
    }

    /// Exact host names, each at most once.
    private static var insecureHosts: ConfigReader<Set<String>> {
        ConfigReader<[String]>.list(of: .exactHostName, allowEmpty: true).then { .success(Set($0)) }
    }

    /// The keys, then the one rule that spans two of them: a pinned host cannot also go unverified,
    /// since a pin is only meaningful on a chain that was verified.
    static var section: ConfigSection {
        let keyed = ConfigSection.keyed(sectionName, \.tls, keys: configKeys)
        return ConfigSection(name: sectionName) { table, config in
            var diagnostics = keyed.apply(table, &config)
            guard case .array(let items)? = table[insecureHostsKey]?.kind else { return diagnostics }
            for item in items {
                guard case .string(let text) = item.kind, case .success(let host) = HostName.normalize(text),
                      config.tls.insecureHosts.contains(host), config.tls.pins[host] != nil
                else { continue }
                diagnostics.append(ConfigDiagnostic(
                    line: item.line,
                    message: "\(insecureHostsKey): \(LogQuote.singleQuoted(host)) is also pinned in \(TLSPinTable.header); a pinned host is always verified"))
            }
            return diagnostics
        }
    }
}
