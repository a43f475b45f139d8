/// The `[upstream]` section: how ipdirect picks and talks to upstream servers beyond resolving them.
public struct UpstreamSettings: Sendable, Equatable {
    /// Plain `http://` requests to a host matching one of these go upstream over TLS instead;
    /// tried in order, first match wins, and no rule is covered by an earlier one.
    public var httpsUpgrade: [HostPattern] = []
    /// RFC 8305 §5: how long an attempt runs alone before the next address joins the race.
    public var connectionAttemptDelayMs = 250
    public var balance: BalanceMode = .fastest
    /// The first quarantine of a failed address; each further failure doubles it up to `quarantineMaxMs`.
    public var quarantineMs = 10_000
    public var quarantineMaxMs = 300_000
    /// `[[upstream.balance_rule]]`, first match wins.
    public var balanceRules: [BalanceRule] = []
    /// `[[upstream.probe]]`, first match wins.
    public var probeRules: [ProbeRule] = []

    public init() {}

    /// The port to reach `host` on over TLS, or nil when no rule upgrades it. `host` is lower case
    /// without a trailing dot; the first matching rule decides, with 443 when it names no port.
    public func httpsUpgradePort(for host: String) -> UInt16? {
        guard let rule = httpsUpgrade.first(where: { $0.matches(host) }) else { return nil }
        return rule.port ?? Self.httpsPort
    }

    /// The balance mode for `host` (lower case, no trailing dot).
    public func balanceMode(for host: String) -> BalanceMode {
        guard !balanceRules.isEmpty else { return balance }
        return balanceRules.first { rule in rule.hosts.contains { $0.matches(host) } }?.mode ?? balance
    }

    /// The port to probe a new answer of `host` on, or nil when no `[[upstream.probe]]` names it.
    public func probePort(for host: String) -> UInt16? {
        guard !probeRules.isEmpty else { return nil }
        return probeRules.first { rule in rule.hosts.contains { $0.matches(host) } }?.port
    }

    public var healthSettings: AddressHealthSettings {
        AddressHealthSettings(quarantineMicros: Int64(quarantineMs) * 1000, quarantineMaxMicros: Int64(quarantineMaxMs) * 1000,
                              attemptDelayMicros: Int64(connectionAttemptDelayMs) * 1000)
    }
}

extension UpstreamSettings {
    /// RFC 9110 §4.2.2: the default port of the https scheme.
    static let httpsPort: UInt16 = 443
    static let sectionName = "upstream"
    /// RFC 8305 §8 recommends 250 ms and no less than 10 ms; more than 5 s would outlast most connect timeouts.
    static let attemptDelayRange = 10...5000
    static let maxQuarantineSeconds = 86_400

    static var configKeys: [ConfigKey<UpstreamSettings>] {
        [
            ConfigKey("https_upgrade", \.httpsUpgrade, .orderedHostPatterns),
            ConfigKey("connection_attempt_delay", \.connectionAttemptDelayMs, .integer(in: attemptDelayRange)),
            ConfigKey("balance", \.balance, .choice),
            ConfigKey("quarantine", \.quarantineMs, .milliseconds(fromSecondsUpTo: maxQuarantineSeconds)),
            ConfigKey("quarantine_max", \.quarantineMaxMs, .milliseconds(fromSecondsUpTo: maxQuarantineSeconds)),
            ConfigKey("balance_rule", \.balanceRules, .upstreamRuleTables(header: "[[upstream.balance_rule]]", item: "balance rule",
                                                                          keys: BalanceRuleTable.configKeys, required: ["hosts", "balance"],
                                                                          build: BalanceRuleTable.rule)),
            ConfigKey("probe", \.probeRules, .upstreamRuleTables(header: "[[upstream.probe]]", item: "probe",
                                                                  keys: ProbeRuleTable.configKeys, required: ["hosts", "port"],
                                                                  build: ProbeRuleTable.rule)),
        ]
    }

    /// The keys, then the rule that spans two of them.
    static var section: ConfigSection {
        let keyed = ConfigSection.keyed(sectionName, \.upstream, keys: configKeys)
        return ConfigSection(name: sectionName) { table, config in
            var diagnostics = keyed.apply(table, &config)
            if config.upstream.quarantineMaxMs < config.upstream.quarantineMs {
                let line = table.entries.first { $0.key == "quarantine_max" }?.line ?? 0
                diagnostics.append(ConfigDiagnostic(line: line, message: "quarantine_max must not be less than quarantine"))
            }
            return diagnostics
        }
    }
}

/// One `[[upstream.balance_rule]]` as read, before its required keys are checked.
struct BalanceRuleTable {
    var hosts: [HostPattern] = []
    var balance: BalanceMode?

    static var configKeys: [ConfigKey<BalanceRuleTable>] {
        [ConfigKey("hosts", \.hosts, .orderedHostPatterns), ConfigKey("balance", \.balance, .choice)]
    }

    static func rule(_ table: BalanceRuleTable) -> BalanceRule? {
        guard let balance = table.balance, !table.hosts.isEmpty else { return nil }
        return BalanceRule(hosts: table.hosts, mode: balance)
    }
}

/// One `[[upstream.probe]]` as read, before its required keys are checked.
struct ProbeRuleTable {
    var hosts: [HostPattern] = []
    var port: UInt16?

    static var configKeys: [ConfigKey<ProbeRuleTable>] {
        [ConfigKey("hosts", \.hosts, .orderedHostPatterns), ConfigKey("port", \.port, .port)]
    }

    static func rule(_ table: ProbeRuleTable) -> ProbeRule? {
        guard let port = table.port, !table.hosts.isEmpty else { return nil }
        return ProbeRule(hosts: table.hosts, port: port)
    }
}

extension ConfigReader {
    /// Every `[[header]]` table read through `keys` into `Table`, each with its `required` keys, then
    /// turned into a rule by `build`.
    static func upstreamRuleTables<Table, Rule>(
        header: String, item: String, keys: [ConfigKey<Table>], required: [String], build: @escaping (Table) -> Rule?
    ) -> ConfigReader<[Rule]> where Value == [Rule], Table: Initializable {
        ConfigReader<[Rule]> { value in
            let items: [TOMLValue]
            switch arrayOfTables(value, header: header, itemName: item) {
            case .success(let elements): items = elements
            case .failure(let problems): return .failure(problems)
            }
            var rules: [Rule] = []
            var problems: [(line: Int, message: String)] = []
            for element in items {
                guard case .table(let table) = element.kind else {
                    problems.append((element.line, "expected a \(header) table, found \(element.typeDescription)"))
                    continue
                }
                var parsed = Table()
                let keyProblems = ConfigKey.apply(keys, to: table, &parsed) { entry in
                    ConfigDiagnostic(line: entry.line, message: "unknown key \(LogQuote.singleQuoted(TOMLTableBuilder.display([entry.key]))) in \(header)")
                }
                problems += keyProblems.map { ($0.line, $0.message) }
                let missing = required.filter { table[$0] == nil }
                for key in missing { problems.append((element.line, "\(header) has no \(key)")) }
                if keyProblems.isEmpty, missing.isEmpty, let rule = build(parsed) {
                    rules.append(rule)
                } else if keyProblems.isEmpty, missing.isEmpty {
                    problems.append((element.line, "\(header): hosts must list at least one host"))
                }
            }
            return problems.isEmpty ? .success(rules) : .failure(ConfigValueProblems(problems))
        }
    }
}

/// Tables read key by key start from an empty value.
protocol Initializable { init() }
extension BalanceRuleTable: Initializable {}
extension ProbeRuleTable: Initializable {}
