/// One RFC 8259 JSON value, as `JSONReader` produces it.
///
/// Numbers keep their text: HTTPDNS answers only carry small integers (RCODEs, record types,
/// TTLs), and reading them from the digits avoids every floating-point rounding question.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number exactly as written, already checked against the RFC 8259 §6 grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Member names are unique: the reader refuses duplicates (RFC 8259 §4 leaves them undefined).
    case object([String: JSONValue])

    /// The member `name` of an object; nil for a missing member or when this is not an object.
    public subscript(name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value of a number written as a plain integer (no fraction, no exponent) that fits `Int`.
    public var integerValue: Int? {
        guard case .number(let text) = self, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || isDigit($0) })
        else { return nil }
        return Int(text)
    }

    /// The JSON kind, for error messages ("expected a string, found number").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
