/// Text from outside the daemon (a request, a config or cache file, a DNS or HTTPDNS answer) as it goes into a
/// log line or a diagnostic: escaped, so it never splits or forges a line, and cut to a short prefix, so one huge
/// input cannot make one huge line (a damaged 300 KB cache file line once became a 300 KB log line).
/// A cut is marked after the quote with the input's whole UTF-8 size, as in `"nnnn…"…(300000 bytes)`.
public enum LogQuote {
    /// Enough of a name, value or line to recognise it; the rest is counted, not shown.
    public static let defaultLimit = 120

    /// `"text"` with `"`, `\` and control characters escaped as in a JSON string (RFC 8259 §7), at most `limit`
    /// bytes between the quotes; for a log field of its own (`user="..."`). Never cuts a UTF-8 character or an
    /// escape in two.
    public static func quoted(_ value: some CustomStringConvertible, limit: Int = defaultLimit) -> String {
        enclosed(value.description, in: "\"", limit: limit)
    }

    /// The same between single quotes, with `"` escaped too: for input inside a message (`'value' is not a port`),
    /// which may itself become a quoted log field (`reason="..."`).
    public static func singleQuoted(_ value: some CustomStringConvertible, limit: Int = defaultLimit) -> String {
        enclosed(value.description, in: "'", limit: limit)
    }

    /// `text` as one bare `key=value` token: anything but printable ASCII, and `"`, becomes `?`; at most
    /// `limit` bytes, then the cut mark.
    public static func token(_ value: some CustomStringConvertible, limit: Int = defaultLimit) -> String {
        let text = value.description
        let bytes = text.utf8
        // The usual case (a host, a user name) comes back as it is, without building a new string.
        if bytes.count <= limit, bytes.allSatisfy(isTokenByte) { return text }
        var out = ""
        var kept = 0
        for scalar in text.unicodeScalars {
            guard kept < limit else { return out + cutMark(text) }
            out.unicodeScalars.append(scalar.isASCII && isTokenByte(UInt8(scalar.value)) ? scalar : "?")
            kept += 1
        }
        return out
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"")
    }

    private static func enclosed(_ text: String, in quote: Unicode.Scalar, limit: Int) -> String {
        var out = String(quote)
        var kept = 0
        for scalar in text.unicodeScalars {
            let piece = escaped(scalar, quote: quote)
            kept += piece.utf8.count
            guard kept <= limit else { return out + String(quote) + cutMark(text) }
            out += piece
        }
        return out + String(quote)
    }

    private static func escaped(_ scalar: Unicode.Scalar, quote: Unicode.Scalar) -> String {
        switch scalar {
        case quote, "\"", "\\": return "\\" + String(scalar)
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        // C0 and C1 controls, DEL and the Unicode line breaks: each could end or garble a line in a log viewer.
        case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}":
            let hex = String(scalar.value, radix: 16)
            return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: return String(scalar)
        }
    }

    private static func cutMark(_ text: String) -> String {
        "…(\(text.utf8.count) bytes)"
    }
}
