/// What a redirected connection's first bytes are, as far as choosing where it goes: a TLS ClientHello (its
/// server name is read by `ClientHelloReader`), an HTTP/1.x request (its Host field names the origin), or
/// something else, which keeps the address the client chose.
public enum FirstBytesKind: Equatable, Sendable {
    /// Too few bytes to tell yet.
    case undecided
    case tls
    case http
    case other

    /// Longest method token taken for HTTP: RFC 9110's methods and the WebDAV ones are shorter.
    static let maximumMethodLength = 20

    /// The kind of the bytes received so far. HTTP is an upper-case method token, one space and a target
    /// that begins as origin-form, absolute-form or asterisk-form does (RFC 9112 §3.2): a server-speaks-first
    /// protocol's client, or plain bytes that happen to start with a capital letter ("SSH-2.0-..."), is
    /// not mistaken for it.
    public static func of(_ bytes: UnsafeRawBufferPointer) -> FirstBytesKind {
        guard let first = bytes.first else { return .undecided }
        if ClientHelloReader.beginsHandshake(first) { return .tls }
        var index = 0
        while index < bytes.count, isUpperCaseLetter(bytes[index]) {
            index += 1
            if index > maximumMethodLength { return .other }
        }
        guard index < bytes.count else { return .undecided }
        guard index > 0, bytes[index] == UInt8(ascii: " ") else { return .other }
        guard index + 1 < bytes.count else { return .undecided }
        switch bytes[index + 1] {
        case UInt8(ascii: "/"), UInt8(ascii: "*"), UInt8(ascii: "h"), UInt8(ascii: "H"): return .http
        default: return .other
        }
    }

    private static func isUpperCaseLetter(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
    }
}
