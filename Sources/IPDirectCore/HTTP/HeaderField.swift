/// One field line of a parsed head, as offsets into the buffer that was parsed.
///
/// Offsets rather than Strings: a String per field made parsing four times slower, and the proxy forwards
/// field bytes exactly as received, which a String round trip would not (invalid UTF-8 gets replaced).
public struct HeaderField: Sendable, Equatable {
    /// The field name, as received (case preserved).
    public var name: Range<Int>
    /// The field value without leading and trailing OWS (RFC 9112 §5.1); empty values are empty ranges.
    public var value: Range<Int>
    /// What the name is to the proxy, found once when the line is scanned; nil for every other name.
    var known: KnownField?

    public init(name: Range<Int>, value: Range<Int>) {
        self.init(name: name, value: value, known: nil)
    }

    init(name: Range<Int>, value: Range<Int>, known: KnownField?) {
        self.name = name
        self.value = value
        self.known = known
    }
}
