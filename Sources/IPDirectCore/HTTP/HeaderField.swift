/// One field line of a parsed head, as offsets into the buffer that was parsed.
///
/// Offsets rather than Strings: a String per field made parsing four times slower, and the proxy forwards
/// field bytes exactly as received, which a String round trip would not (invalid UTF-8 gets replaced).
public struct HeaderField: Sendable, Equatable {
    /// The field name, as received (case preserved).
    public var name: Range<Int>
    /// The field value without leading and trailing OWS (RFC 9112 §5.1); empty values are empty ranges.
    public var value: Range<Int>

    public init(name: Range<Int>, value: Range<Int>) {
        self.name = name
        self.value = value
    }
}

extension HeaderField {
    /// The whole field line without its CRLF, trailing OWS included, for byte-exact forwarding.
    /// Only OWS can sit between the value and the CR, so this scans at most that whitespace.
    func line(in bytes: UnsafeRawBufferPointer) -> Range<Int> {
        var end = value.upperBound
        while end < bytes.count, HTTPByte.isWhitespace(bytes[end]) { end += 1 }
        return name.lowerBound..<end
    }
}
