/// A top-level `[section]` of the configuration file and how its table is read into `Config`.
struct ConfigSection {
    let name: String
    /// Reads the section's table into the configuration; returns every problem found.
    let apply: (TOMLTable, inout Config) -> [ConfigDiagnostic]

    init(name: String, apply: @escaping (TOMLTable, inout Config) -> [ConfigDiagnostic]) {
        self.name = name
        self.apply = apply
    }

    /// A section with a fixed set of keys; anything else in it is reported as unknown.
    static func keyed<Settings>(
        _ name: String, _ keyPath: WritableKeyPath<Config, Settings>, keys: [ConfigKey<Settings>]
    ) -> ConfigSection {
        ConfigSection(name: name) { table, config in
            ConfigKey.apply(keys, to: table, &config[keyPath: keyPath]) { unknownEntry($0, in: name) }
        }
    }

    /// "unknown key 'listn' in [proxy]", or "unknown section [proxy.extra]" for a sub-table.
    static func unknownEntry(_ entry: TOMLTable.Entry, in section: String) -> ConfigDiagnostic {
        let key = TOMLTableBuilder.display([entry.key])
        if case .table = entry.value.kind {
            return ConfigDiagnostic(line: entry.line, message: "unknown section [\(section).\(key)]")
        }
        return ConfigDiagnostic(line: entry.line, message: "unknown key \(LogQuote.singleQuoted(key)) in [\(section)]")
    }
}
