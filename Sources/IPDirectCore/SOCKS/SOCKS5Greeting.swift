/// The first message of a SOCKS5 client: the authentication methods it offers (RFC 1928 §3).
///
///     +----+----------+----------+
///     |VER | NMETHODS | METHODS  |
///     | 1  |    1     | 1 to 255 |
///     +----+----------+----------+
public struct SOCKS5Greeting: Equatable, Sendable, CustomStringConvertible {
    /// The method codes in the client's order, unknown ones included.
    public var methods: [UInt8]

    public init(methods: [UInt8]) {
        self.methods = methods
    }

    /// VER 5.
    public static let version: UInt8 = 5
    /// VER, NMETHODS and 255 methods.
    public static let maximumLength = 2 + 255

    public var offersNoAuthentication: Bool { methods.contains(SOCKS5Method.noAuthentication.rawValue) }
    public var offersUsernamePassword: Bool { methods.contains(SOCKS5Method.usernamePassword.rawValue) }

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> SOCKSParse<SOCKS5Greeting> {
        guard bytes.count >= 1 else { return .incomplete }
        guard bytes[0] == version else { return .invalid("version \(bytes[0]) in a SOCKS5 greeting") }
        guard bytes.count >= 2 else { return .incomplete }
        let methodCount = Int(bytes[1])
        guard methodCount > 0 else { return .invalid("no authentication methods offered") }
        let length = 2 + methodCount
        guard bytes.count >= length else { return .incomplete }
        return .complete(SOCKS5Greeting(methods: Array(bytes[2..<length])), length: length)
    }

    /// The server's choice: VER 5 and the method, or `noAcceptable` before closing.
    public static func reply(method: SOCKS5Method) -> [UInt8] {
        [version, method.rawValue]
    }

    public var description: String {
        "methods " + methods.map { SOCKS5Method(rawValue: $0)?.description ?? "\($0)" }.joined(separator: ",")
    }
}
