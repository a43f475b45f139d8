/// The HTTP/1.x versions the proxy speaks (RFC 9112 §2.3). Anything else is answered with 505.
public enum HTTPVersion: Sendable, Equatable {
    case http10, http11
}

extension HTTPVersion: CustomStringConvertible {
    public var description: String {
        switch self {
        case .http10: return "HTTP/1.0"
        case .http11: return "HTTP/1.1"
        }
    }
}

extension HTTPVersion {
    /// What the bytes of an HTTP-version (RFC 9112 §2.3: `"HTTP/" DIGIT "." DIGIT`, case-sensitive) say.
    enum Parsed {
        case known(HTTPVersion)
        /// Well-formed but neither 1.0 nor 1.1, e.g. HTTP/2.0 or HTTP/0.9.
        case unsupported
        case malformed
    }

    /// Length of `HTTP/`.
    static let prefixLength = 5
    /// Length of `HTTP/x.y`.
    static let textLength = prefixLength + 3

    /// "HTTP/1.1" and "HTTP/1.0" as little-endian words, as `parse` loads the eight bytes of a version.
    static let http11Word: UInt64 = 0x312E_312F_5054_5448
    static let http10Word: UInt64 = 0x302E_312F_5054_5448

    static func parse(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Parsed {
        let start = range.lowerBound
        guard range.count == textLength else { return .malformed }
        // Nearly every message names one of the two versions, which one compare of all eight bytes settles.
        let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt64.self))
        if word == http11Word { return .known(.http11) }
        if word == http10Word { return .known(.http10) }
        guard bytes.equals(start..<start + prefixLength, "HTTP/") else { return .malformed }
        let major = bytes[start + prefixLength]
        let dot = bytes[start + prefixLength + 1]
        let minor = bytes[start + prefixLength + 2]
        guard HTTPByte.isDigit(major), dot == HTTPByte.dot, HTTPByte.isDigit(minor) else { return .malformed }
        guard major == UInt8(ascii: "1") else { return .unsupported }
        switch minor {
        case UInt8(ascii: "1"): return .known(.http11)
        case UInt8(ascii: "0"): return .known(.http10)
        default: return .unsupported
        }
    }
}
