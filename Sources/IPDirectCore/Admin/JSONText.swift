/// Writes JSON text for the admin API's answers (RFC 8259). Only what those answers need: objects,
/// arrays, strings, integers and booleans, built by appending members in order.
public struct JSONText: Sendable {
    public private(set) var text = ""

    public init() {}

    /// A JSON string literal: quotes, backslash and control characters escaped (RFC 8259 §7), by the same
    /// writer as the long answers' (`JSONBuffer`).
    public static func quoted(_ value: String) -> String {
        var buffer = JSONBuffer(capacity: value.utf8.count + 2)
        buffer.string(value)
        return buffer.text
    }

    /// `{"a":1,"b":"x"}` from members already rendered as JSON values.
    public static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// `[1,2]` from elements already rendered as JSON values.
    public static func array(_ elements: [String]) -> String {
        "[" + elements.joined(separator: ",") + "]"
    }
}
