/// The `[pac]` section: what the proxy auto-config file served at `/proxy.pac` sends DIRECT besides
/// private networks, plain host names and `localhost`, which always go DIRECT.
public struct PACSettings: Sendable, Equatable {
    /// `shExpMatch` patterns on the host (`*.corp.example`, `intranet?.example`), lower case.
    public var direct: [String] = []
    /// Name the listener as `SOCKS5` before `PROXY`, for programs that prefer SOCKS (the same port serves both).
    public var socks = false

    public init() {}
}

extension PACSettings {
    static var configKeys: [ConfigKey<PACSettings>] {
        [
            ConfigKey("direct", \.direct, .list(of: .pacHostPattern, allowEmpty: true)),
            ConfigKey("socks", \.socks, .boolean),
        ]
    }
}

extension ConfigReader where Value == String {
    /// A host glob for PAC's `shExpMatch`: letters, digits, `.`, `-`, `_`, `:` and the wildcards `*` and
    /// `?`. Nothing else, since the pattern is written into JavaScript inside a string literal.
    static var pacHostPattern: ConfigReader {
        string.then { text in
            let allowedPunctuation = Set(".-_:*?".utf8)
            let lowered = HostName.normalized(text)
            guard !lowered.isEmpty else { return .failure("a pattern must not be empty") }
            let valid = lowered.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || allowedPunctuation.contains(byte)
            }
            guard valid else {
                return .failure("\(LogQuote.singleQuoted(text)) is not a host pattern (letters, digits, '.', '-', '_', ':', '*' and '?')")
            }
            return .success(lowered)
        }
    }
}
