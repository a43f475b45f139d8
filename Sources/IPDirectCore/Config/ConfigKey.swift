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
