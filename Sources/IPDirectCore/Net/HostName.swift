/// DNS host names as RFC 1123 §2.1 allows them: dot-separated labels of ASCII letters, digits
/// and hyphens, matched without regard to case (RFC 4343) and without the root's trailing dot.
public enum HostName {
    /// RFC 1035 §2.3.4: 255 octets on the wire is 253 characters of text without a trailing dot.
    static let maximumLength = 253
    /// RFC 1035 §2.3.4.
    static let maximumLabelLength = 63

    /// The form names are compared and looked up by, without validating them: ASCII letters lower-cased
    /// and nothing else, because DNS names compare without regard to ASCII case only (RFC 4343 §3), and
    /// one trailing dot dropped. The one normaliser for the config, the resolver, its cache, DNS
    /// messages and TLS, so a name is the same key everywhere.
    public static func normalized(_ name: String) -> String {
        // Asked on every proxied lookup of a name the request parser has already lower-cased: such a name is
        // returned as it is, without a copy, and read where its bytes lie.
        guard !isNormalized(name) else { return name }
        var bytes = Array(name.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        for index in bytes.indices where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") {
            bytes[index] += UInt8(ascii: "a") - UInt8(ascii: "A")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `normalized` would return `name` unchanged.
    public static func isNormalized(_ name: String) -> Bool {
        !(name.utf8.withContiguousStorageIfAvailable(needsNormalizing) ?? needsNormalizing(name.utf8))
    }

    private static func needsNormalizing(_ bytes: some BidirectionalCollection<UInt8>) -> Bool {
        bytes.last == UInt8(ascii: ".") || bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// `host:port`, an IPv6 address in brackets (RFC 3986 §3.2.2), as logs, errors and request lines write it.
    public static func withPort(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The lower-case form without a trailing dot, or why `text` is not a host name.
    static func normalize(_ text: String) -> Result<String, ConfigRejection> {
        guard text.unicodeScalars.allSatisfy(\.isASCII) else {
            return .failure("\(LogQuote.singleQuoted(text)) is not ASCII; write internationalised names in their xn-- form")
        }
        if IPAddress(text) != nil {
            return .failure("\(LogQuote.singleQuoted(text)) is an IP address, not a host name")
        }
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return .failure("\(LogQuote.singleQuoted(text)) is not a host name") }
        guard name.utf8.count <= maximumLength else {
            return .failure("\(LogQuote.singleQuoted(text)) is longer than \(maximumLength) characters")
        }
        let labels = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            if let reason = problem(with: label) {
                return .failure("\(LogQuote.singleQuoted(text)) is not a host name: \(reason)")
            }
        }
        // RFC 3696 §2: a top-level label is never all digits, which keeps names apart from addresses.
        if labels.last!.allSatisfy(isDigit) {
            return .failure("\(LogQuote.singleQuoted(text)) is not a host name: the last label is all digits")
        }
        return .success(name)
    }

    private static func problem(with label: Substring.UTF8View.SubSequence) -> String? {
        guard !label.isEmpty else { return "empty label" }
        guard label.count <= maximumLabelLength else { return "a label is longer than \(maximumLabelLength) characters" }
        let hyphen = UInt8(ascii: "-")
        guard label.allSatisfy({ isLetter($0) || isDigit($0) || $0 == hyphen }) else {
            return "only letters, digits, hyphens and dots are allowed"
        }
        guard label.first != hyphen, label.last != hyphen else { return "a label starts or ends with a hyphen" }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

extension ConfigReader where Value == String {
    /// A DNS host name, kept lower case without a trailing dot; IP addresses and wildcards are
    /// refused, so a setting that weakens or tightens checks names each host it applies to.
    static var exactHostName: ConfigReader {
        string.then { text in
            if text.contains("*") { return .failure("\(LogQuote.singleQuoted(text)): wildcards are not allowed here; name each host") }
            return HostName.normalize(text)
        }
    }
}
