/// One key of a section: its name, how its value is read, and where the result is stored.
/// A section's schema is a plain list of these, so a new setting is one line.
struct ConfigKey<Settings> {
    let name: String
    /// Reads the value into `settings`; returns the problems, each prefixed with the key name.
    let apply: (TOMLValue, inout Settings) -> [ConfigDiagnostic]

    init<Value>(_ name: String, _ keyPath: WritableKeyPath<Settings, Value>, _ reader: ConfigReader<Value>) {
        self.name = name
        apply = { value, settings in
            switch reader.read(value) {
            case .success(let typed):
                settings[keyPath: keyPath] = typed
                return []
            case .failure(let problems):
                return problems.items.map { ConfigDiagnostic(line: $0.line, message: "\(name): \($0.message)") }
            }
        }
    }

    /// For settings that stay unset (nil) unless the file names them.
    init<Value>(_ name: String, _ keyPath: WritableKeyPath<Settings, Value?>, _ reader: ConfigReader<Value>) {
        self.init(name, keyPath, reader.then { .success(Optional($0)) })
    }
}

extension ConfigKey {
    /// Reads every entry of `table` through the key of the same name; `unknown` words the
    /// diagnostic for an entry no key names.
    static func apply(
        _ keys: [ConfigKey], to table: TOMLTable, _ settings: inout Settings,
        unknown: (TOMLTable.Entry) -> ConfigDiagnostic
    ) -> [ConfigDiagnostic] {
        var diagnostics: [ConfigDiagnostic] = []
        for entry in table.entries {
            guard let key = keys.first(where: { $0.name == entry.key }) else {
                diagnostics.append(unknown(entry))
                continue
            }
            diagnostics += key.apply(entry.value, &settings)
        }
        return diagnostics
    }
}
