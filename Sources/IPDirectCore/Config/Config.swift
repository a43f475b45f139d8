/// The whole daemon configuration, as read from a TOML file such as config/ipdirect.toml.
/// Every setting has a default, so an empty file (or none) is a working configuration.
public struct Config: Sendable, Equatable {
    public var proxy = ProxySettings()
    public var resolver = ResolverSettings()
    /// Fixed addresses by host name; names are lower-case without a trailing dot.
    public var hosts: [String: [IPAddress]] = [:]
    public var access = AccessSettings()
    public var upstream = UpstreamSettings()
    public var tls = TLSSettings()
    public var admin = AdminSettings()
    public var pac = PACSettings()
    public var dns = DNSSettings()
    public var transparent = TransparentSettings()

    public init() {}

    /// Every setting at its default, with no HTTPDNS provider: what every file starts from, so a
    /// file without `[[resolver.httpdns]]` tables has no providers.
    public static let defaults = Config()

    /// What `ipdirect` runs on with no config file: the defaults plus two public DoH providers,
    /// Cloudflare then Google, so HTTPDNS works out of the box. config/ipdirect.toml spells it out.
    public static let builtIn: Config = {
        var config = Config.defaults
        config.resolver.httpdns = [.cloudflare, .google]
        return config
    }()

    /// Parses and validates; unknown sections/keys, wrong types, out-of-range values are diagnostics.
    /// Every problem is reported, in line order. After a TOML syntax error the rest of the file
    /// is not read, but the part before it is still checked.
    public static func parse(_ text: String) -> Result<Config, ConfigError> {
        let document = TOMLParser.parse(text)
        var diagnostics = document.problems.map { ConfigDiagnostic(line: $0.line, message: $0.message) }
        var config = Config.defaults
        var dnsListenLine: Int?
        var transparentListenLine: Int?
        for entry in document.root.entries {
            guard let section = sections.first(where: { $0.name == entry.key }) else {
                diagnostics.append(unknownTopLevel(entry))
                continue
            }
            guard case .table(let table) = entry.value.kind else {
                diagnostics.append(ConfigDiagnostic(
                    line: entry.line, message: "\(LogQuote.singleQuoted(entry.key)) must be a section, written [\(LogQuote.token(entry.key))]"))
                continue
            }
            diagnostics += section.apply(table, &config)
            if entry.key == DNSSettings.sectionName, let listen = table.entries.first(where: { $0.key == "listen" }) {
                dnsListenLine = listen.line
            }
            if entry.key == TransparentSettings.sectionName {
                transparentListenLine = table.entries.first(where: { $0.key == "listen" })?.line ?? entry.line
            }
        }
        if let dnsListenLine { diagnostics += DNSSettings.loopProblems(config, listenLine: dnsListenLine) }
        if let transparentListenLine { diagnostics += TransparentSettings.problems(config, listenLine: transparentListenLine) }
        guard diagnostics.isEmpty else {
            let inLineOrder = diagnostics.enumerated()
                .sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }
                .map(\.element)
            return .failure(ConfigError(diagnostics: inLineOrder))
        }
        return .success(config)
    }

    /// The sections a file may contain; a new section is one more line here.
    static var sections: [ConfigSection] {
        [
            .keyed("proxy", \.proxy, keys: ProxySettings.configKeys),
            ResolverSettings.section,
            HostsSection.section,
            .keyed("access", \.access, keys: AccessSettings.configKeys),
            UpstreamSettings.section,
            TLSSettings.section,
            AdminSettings.section,
            .keyed("pac", \.pac, keys: PACSettings.configKeys),
            DNSSettings.section,
            TransparentSettings.section,
        ]
    }

    private static func unknownTopLevel(_ entry: TOMLTable.Entry) -> ConfigDiagnostic {
        let key = TOMLTableBuilder.display([entry.key])
        switch entry.value.kind {
        case .table:
            return ConfigDiagnostic(line: entry.line, message: "unknown section [\(key)]")
        case .array(let items) where !items.isEmpty && items.allSatisfy({ if case .table = $0.kind { true } else { false } }):
            return ConfigDiagnostic(line: entry.line, message: "unknown section [[\(key)]]")
        default:
            let names = sections.map(\.name).joined(separator: "], [")
            return ConfigDiagnostic(
                line: entry.line, message: "unknown key \(LogQuote.singleQuoted(key)) outside any section; keys belong in [\(names)]")
        }
    }
}
