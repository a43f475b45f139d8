/// One problem in a configuration file, printed by `ipdirect check` as `FILE:LINE: message`.
public struct ConfigDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// 1-based; 0 when the problem is not tied to a line (for example, the file cannot be read).
    public var line: Int
    /// What is wrong, starting with the key it concerns: "connect_ports: 70000 is not a port (1-65535)".
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// `LINE: message`.
    public var description: String { "\(line): \(message)" }

    /// `FILE:LINE: message`, or `FILE: message` when not tied to a line, the form editors jump to.
    public func formatted(file: String) -> String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}

/// Every problem found in a configuration, in line order.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]

    public init(diagnostics: [ConfigDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// One `LINE: message` per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }

    /// One `FILE:LINE: message` per line.
    public func formatted(file: String) -> String {
        diagnostics.map { $0.formatted(file: file) }.joined(separator: "\n")
    }
}
