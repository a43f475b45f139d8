/// The host and port of a URI authority (RFC 3986 §3.2), as used by absolute-form and authority-form
/// request targets (RFC 9112 §3.2.2, §3.2.3) and by the Host field (RFC 9110 §7.2).
///
/// Stricter than RFC 3986 wherever a looser reading would let the proxy resolve or connect to a different
/// host than the origin, a log or an access rule believes: no userinfo, no percent-encoding, no IPvFuture
/// or zone ids, no numeric names that are not plain dotted quads.
struct URIAuthority: Equatable {
    /// Lower-cased; IPv6 literals without brackets.
    var host: String
    /// Nil when the authority has no port.
    var port: UInt16?

    enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case missingHost
        case userinfo
        case invalidHost
        case invalidIPv6
        /// "127.1", "0x7f.0.0.1", "010.0.0.1": resolvers and browsers disagree on what these mean.
        case ambiguousNumericHost
        case hostTooLong
        case missingPort
        case emptyPort
        case invalidPort
        case portOutOfRange

        var description: String {
            switch self {
            case .missingHost: return "missing host"
            case .userinfo: return "userinfo in authority"
            case .invalidHost: return "invalid host"
            case .invalidIPv6: return "invalid IPv6 literal"
            case .ambiguousNumericHost: return "numeric host that is not a dotted-quad IPv4 address"
            case .hostTooLong: return "host name too long"
            case .missingPort: return "missing port"
            case .emptyPort: return "empty port"
            case .invalidPort: return "invalid port"
            case .portOutOfRange: return "port out of range"
            }
        }
    }

    /// A DNS name in text form has at most 253 characters (RFC 1035 §2.3.4: 255 octets on the wire).
    static let maxHostNameLength = 253
    /// Longest textual IPv6 address, "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255".
    static let maxIPv6TextLength = 45
    /// "65535".
    static let maxPortDigits = 5

    static func parse(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, portRequired: Bool)
        -> Result<URIAuthority, Failure>
    {
        switch scan(bytes, range, portRequired: portRequired) {
        case .success(let (.name(name), port)):
            return .success(URIAuthority(host: bytes.lowercasedString(name), port: port))
        case .success(let (.ipv6(text), port)):
            return .success(URIAuthority(host: text, port: port))
        case .failure(let failure):
            return .failure(failure)
        }
    }

    /// Checks an authority exactly as `parse` does, without copying its host out: for a Host field, whose
    /// value is forwarded or replaced but never looked up.
    static func check(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, portRequired: Bool) -> Failure? {
        if case .failure(let failure) = scan(bytes, range, portRequired: portRequired) { return failure }
        return nil
    }

    /// A checked host: a reg-name or IPv4 literal where it lies, or an IPv6 literal's lower-cased text (which
    /// had to be made to check it).
    private enum Host {
        case name(Range<Int>)
        case ipv6(String)
    }

    private static func scan(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, portRequired: Bool)
        -> Result<(Host, UInt16?), Failure>
    {
        guard !range.isEmpty else { return .failure(.missingHost) }
        let result = scanWithoutUserinfo(bytes, range, portRequired: portRequired)
        // No host or port character is '@', so only an authority that fails can hold userinfo; that is the
        // failure to report, wherever the '@' is.
        if case .failure = result, range.contains(where: { bytes[$0] == HTTPByte.at }) { return .failure(.userinfo) }
        return result
    }

    private static func scanWithoutUserinfo(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, portRequired: Bool)
        -> Result<(Host, UInt16?), Failure>
    {
        let host: Host
        let hostEnd: Int
        if bytes[range.lowerBound] == HTTPByte.openBracket {
            switch parseIPLiteral(bytes, range) {
            case .success(let (literal, end)):
                host = .ipv6(literal)
                hostEnd = end
            case .failure(let failure):
                return .failure(failure)
            }
        } else {
            var index = range.lowerBound
            while index < range.upperBound, HTTPByte.isHostNameChar(bytes[index]) { index += 1 }
            hostEnd = index
            if hostEnd < range.upperBound, bytes[hostEnd] != HTTPByte.colon { return .failure(.invalidHost) }
            if let failure = checkHostName(bytes, range.lowerBound..<hostEnd) { return .failure(failure) }
            host = .name(range.lowerBound..<hostEnd)
        }
        guard hostEnd < range.upperBound else {
            return portRequired ? .failure(.missingPort) : .success((host, nil))
        }
        guard bytes[hostEnd] == HTTPByte.colon else { return .failure(.invalidHost) }
        switch parsePort(bytes, hostEnd + 1..<range.upperBound) {
        case .success(let port): return .success((host, port))
        case .failure(let failure): return .failure(failure)
        }
    }

    /// `"[" IPv6address "]"`; returns the address text and the index after the bracket.
    private static func parseIPLiteral(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>)
        -> Result<(String, Int), Failure>
    {
        var index = range.lowerBound + 1
        while index < range.upperBound, bytes[index] != HTTPByte.closeBracket {
            let byte = bytes[index]
            // Hex digits, colons and an embedded IPv4 tail only: no zone id ("%25"), no IPvFuture ("v1.").
            guard HTTPByte.hexValue(byte) != nil || byte == HTTPByte.colon || byte == HTTPByte.dot else {
                return .failure(.invalidIPv6)
            }
            index += 1
        }
        let inner = range.lowerBound + 1..<index
        guard index < range.upperBound, !inner.isEmpty, inner.count <= maxIPv6TextLength else {
            return .failure(.invalidIPv6)
        }
        let text = bytes.lowercasedString(inner)
        guard let address = IPAddress(text), address.isIPv6 else { return .failure(.invalidIPv6) }
        return .success((text, index + 1))
    }

    /// Checks a reg-name already known to hold only host name characters.
    private static func checkHostName(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Failure? {
        guard !range.isEmpty else { return .missingHost }
        // One trailing dot marks a fully qualified name; it is not an empty label.
        let hasRootDot = bytes[range.upperBound - 1] == HTTPByte.dot
        let name = range.lowerBound..<(hasRootDot ? range.upperBound - 1 : range.upperBound)
        guard !name.isEmpty else { return .invalidHost }
        guard name.count <= maxHostNameLength else { return .hostTooLong }
        var labelStart = name.lowerBound
        for index in name where bytes[index] == HTTPByte.dot {
            if index == labelStart { return .invalidHost }
            labelStart = index + 1
        }
        guard labelStart < name.upperBound else { return .invalidHost }
        // WHATWG URL parsing reads a name whose last label is a number as IPv4, with octal, hex and
        // short forms; getaddrinfo agrees on some and not others. Only plain dotted quads pass.
        if isNumericLabel(bytes, labelStart..<name.upperBound) {
            let text = bytes.lowercasedString(range)
            guard let address = IPAddress(text), !address.isIPv6 else { return .ambiguousNumericHost }
        }
        return nil
    }

    /// Digits only, or "0x" followed by hex digits (WHATWG URL "ends in a number").
    private static func isNumericLabel(_ bytes: UnsafeRawBufferPointer, _ label: Range<Int>) -> Bool {
        var digits = label
        let hexPrefixLength = 2
        if label.count >= hexPrefixLength, bytes[label.lowerBound] == UInt8(ascii: "0"),
           HTTPByte.lowercased(bytes[label.lowerBound + 1]) == UInt8(ascii: "x")
        {
            digits = label.lowerBound + hexPrefixLength..<label.upperBound
            return digits.allSatisfy { HTTPByte.hexValue(bytes[$0]) != nil }
        }
        return digits.allSatisfy { HTTPByte.isDigit(bytes[$0]) }
    }

    /// `port = *DIGIT`, here 1...65535 with at most five digits; an empty port is refused as ambiguous.
    private static func parsePort(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Result<UInt16, Failure> {
        guard !range.isEmpty else { return .failure(.emptyPort) }
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard HTTPByte.isDigit(byte) else { return .failure(.invalidPort) }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            if value > Int(UInt16.max) || index - range.lowerBound >= maxPortDigits { return .failure(.portOutOfRange) }
        }
        guard value > 0 else { return .failure(.portOutOfRange) }
        return .success(UInt16(value))
    }
}
