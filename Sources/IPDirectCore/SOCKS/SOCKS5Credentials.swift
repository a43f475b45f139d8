/// A SOCKS5 client's username and password (RFC 1929 §2), sent after the server chose method 0x02.
///
///     +----+------+----------+------+----------+
///     |VER | ULEN |  UNAME   | PLEN |  PASSWD  |
///     | 1  |  1   | 1 to 255 |  1   | 1 to 255 |
///     +----+------+----------+------+----------+
public struct SOCKS5Credentials: Equatable, Sendable, CustomStringConvertible {
    /// Any UTF-8, control characters included: escape it before it goes into a log line.
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// VER 1, the version of the subnegotiation, not of SOCKS.
    public static let version: UInt8 = 1
    /// VER, ULEN, 255 bytes of name, PLEN, 255 bytes of password.
    public static let maximumLength = 1 + 1 + 255 + 1 + 255

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> SOCKSParse<SOCKS5Credentials> {
        guard bytes.count >= 1 else { return .incomplete }
        guard bytes[0] == version else { return .invalid("version \(bytes[0]) in SOCKS5 credentials") }
        return field(bytes, at: 1, what: "username").then { username, passwordStart in
            field(bytes, at: passwordStart, what: "password").then { password, end in
                .complete(SOCKS5Credentials(username: username, password: password), length: end)
            }
        }
    }

    /// RFC 1929 §2 STATUS: 0 lets the client go on; anything else and the server must close.
    public static func reply(accepted: Bool) -> [UInt8] {
        [version, accepted ? 0 : 1]
    }

    /// Never the password.
    public var description: String { "user \(LogQuote.quoted(username))" }

    /// A length byte at `start` and that many bytes of UTF-8, complete with the offset after it.
    /// Invalid UTF-8 is refused rather than repaired, so what is compared is what the client sent.
    private static func field(_ bytes: UnsafeRawBufferPointer, at start: Int, what: String) -> SOCKSParse<String> {
        guard bytes.count > start else { return .incomplete }
        let length = Int(bytes[start])
        guard length > 0 else { return .invalid("empty \(what)") }
        let end = start + 1 + length
        guard bytes.count >= end else { return .incomplete }
        guard let text = String(validating: bytes[(start + 1)..<end], as: UTF8.self) else {
            return .invalid("\(what) is not UTF-8")
        }
        return .complete(text, length: end)
    }
}
