/// A parsed TOML value and the line it starts on, so every later problem can name its line.
struct TOMLValue: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case boolean(Bool)
        /// A static array, or an array of tables (`[[name]]`), whose elements are tables.
        case array([TOMLValue])
        case table(TOMLTable)
    }

    var kind: Kind
    /// 1-based line where the value starts; for a table, the line of its header or key.
    var line: Int

    init(_ kind: Kind, line: Int) {
        self.kind = kind
        self.line = line
    }

    /// The type as a user reads it in "expected an integer, found a string".
    var typeDescription: String {
        switch kind {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a float"
        case .boolean: return "a boolean"
        case .array: return "an array"
        case .table: return "a table"
        }
    }
}

/// A TOML table whose entries keep document order, so diagnostics come out in reading order.
struct TOMLTable: Equatable, Sendable {
    struct Entry: Equatable, Sendable {
        var key: String
        /// Line of the key (for a `[table]`, of the header that first named it).
        var line: Int
        var value: TOMLValue
    }

    var entries: [Entry] = []

    subscript(key: String) -> TOMLValue? {
        entries.first { $0.key == key }?.value
    }
}

/// What stopped or troubled the TOML reader, tied to a line.
struct TOMLProblem: Error, Equatable, Sendable, CustomStringConvertible {
    var line: Int
    var message: String

    var description: String { "\(line): \(message)" }
}

/// The outcome of reading a document: the tree as far as it could be read, and every problem met.
struct TOMLDocument: Equatable, Sendable {
    var root: TOMLTable
    /// Empty when the text is valid TOML 1.0 (date/time values count as problems here).
    var problems: [TOMLProblem]
}
