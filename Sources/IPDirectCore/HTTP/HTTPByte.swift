/// The bytes HTTP/1.1 framing is made of, and the byte classes of RFC 9110 §5.6 and RFC 3986 §2.
///
/// Classification is a `switch` per byte rather than a lookup table: a global table costs a lazy-init
/// check on every access in the scan loops, a `switch` compiles to a few compares.
enum HTTPByte {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")
    static let comma = UInt8(ascii: ",")
    static let equals = UInt8(ascii: "=")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let question = UInt8(ascii: "?")
    static let hash = UInt8(ascii: "#")
    static let at = UInt8(ascii: "@")
    static let dot = UInt8(ascii: ".")
    static let asterisk = UInt8(ascii: "*")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    /// DEL, the one control character above the C0 range (RFC 5234 Appendix B.1 CTL).
    static let delete: UInt8 = 0x7F
    /// The bit that separates an upper-case ASCII letter from its lower-case form ('a' - 'A').
    static let asciiCaseBit: UInt8 = 0x20
    /// Bytes in the CRLF that ends every line (RFC 9112 §2.1).
    static let crlfLength = 2

    /// OWS / BWS whitespace (RFC 9110 §5.6.3).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    @inline(__always)
    static func isAlpha(_ byte: UInt8) -> Bool {
        let lower = byte | asciiCaseBit
        return lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
    }

    /// tchar (RFC 9110 §5.6.2): the characters of methods, field names and list tokens.
    @inline(__always)
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// VCHAR or obs-text: a field-vchar (RFC 9110 §5.5), i.e. anything visible that is not whitespace or a CTL.
    @inline(__always)
    static func isVisible(_ byte: UInt8) -> Bool {
        byte > space && byte != delete
    }

    /// Bytes allowed in a request-target. RFC 3986 characters plus the few printable ones browsers leave
    /// unescaped in paths and queries (`{ } | ^ \` and backquote, per the WHATWG URL percent-encode sets):
    /// they cannot shift where a field or line ends, so refusing them would only break real pages.
    /// `"`, `<`, `>` are always escaped by clients; `#` starts a fragment that must never be sent
    /// (RFC 9110 §7.1); whitespace, CTLs and non-ASCII bytes are never valid in a URI (RFC 3986 §2).
    @inline(__always)
    static func isTargetChar(_ byte: UInt8) -> Bool {
        switch byte {
        case quote, UInt8(ascii: "<"), UInt8(ascii: ">"), hash:
            return false
        default:
            return byte > space && byte < delete
        }
    }

    /// Host name characters accepted in a URI authority: letters, digits, `-`, `.`, `_`.
    /// RFC 3986 reg-name also allows sub-delims and percent-encoding, which no DNS name needs and which
    /// resolvers and origins decode differently, so they are refused as ambiguous.
    @inline(__always)
    static func isHostNameChar(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == dot || byte == UInt8(ascii: "_")
    }

    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | asciiCaseBit : byte
    }

    /// The value of a HEXDIG (RFC 5234 Appendix B.1, case-insensitive), or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        if isDigit(byte) { return byte - UInt8(ascii: "0") }
        let lower = byte | asciiCaseBit
        if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f") { return lower - UInt8(ascii: "a") + 10 }
        return nil
    }
}

extension UnsafeRawBufferPointer {
    /// Whether the bytes in `range` equal the lower-case ASCII `literal`, ignoring ASCII case.
    @inline(__always)
    func equalsIgnoringCase(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        var index = 0
        for position in range {
            if HTTPByte.lowercased(self[position]) != expected[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether the token (tchar, RFC 9110 §5.6.2) bytes at `start` spell the lower-case `literal`, ignoring ASCII
    /// case, compared eight bytes at a time. Setting the case bit of a tchar turns it into a lower-case letter or
    /// '-' only when it is that letter in either case or '-' (a CR would become '-', and no token holds one), so
    /// this is exact for tokens compared with literals made of lower-case letters, digits and '-'.
    /// The caller checks that `literal` fits in the buffer from `start`.
    @inline(__always)
    func tokenEqualsLowercase(at start: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        let received = baseAddress.unsafelyUnwrapped + start
        let expected = UnsafeRawPointer(literal.utf8Start)
        let wordLength = MemoryLayout<UInt64>.size
        guard count >= wordLength else {
            var offset = 0
            while offset < count {
                if received.load(fromByteOffset: offset, as: UInt8.self) | HTTPByte.asciiCaseBit
                    != expected.load(fromByteOffset: offset, as: UInt8.self)
                {
                    return false
                }
                offset += 1
            }
            return true
        }
        let caseBits: UInt64 = 0x2020_2020_2020_2020
        var offset = 0
        while true {
            // The last word overlaps the one before it rather than reading past the token.
            let at = Swift.min(offset, count - wordLength)
            if received.loadUnaligned(fromByteOffset: at, as: UInt64.self) | caseBits
                != expected.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            {
                return false
            }
            offset += wordLength
            if offset >= count { return true }
        }
    }

    /// Whether the bytes in `first` and `second` are the same, compared eight at a time.
    @inline(__always)
    func sameBytes(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
        let count = first.count
        guard count == second.count else { return false }
        let base = baseAddress.unsafelyUnwrapped
        let wordLength = MemoryLayout<UInt64>.size
        guard count >= wordLength else {
            var offset = 0
            while offset < count {
                if base.load(fromByteOffset: first.lowerBound &+ offset, as: UInt8.self)
                    != base.load(fromByteOffset: second.lowerBound &+ offset, as: UInt8.self)
                {
                    return false
                }
                offset &+= 1
            }
            return true
        }
        var offset = 0
        while true {
            // The last word overlaps the one before it rather than reading past either range.
            let at = Swift.min(offset, count &- wordLength)
            if base.loadUnaligned(fromByteOffset: first.lowerBound &+ at, as: UInt64.self)
                != base.loadUnaligned(fromByteOffset: second.lowerBound &+ at, as: UInt64.self)
            {
                return false
            }
            offset &+= wordLength
            if offset >= count { return true }
        }
    }

    /// Whether the bytes in `range` equal `literal` exactly (case-sensitive).
    @inline(__always)
    func equals(_ range: Range<Int>, _ literal: StaticString) -> Bool {
        guard range.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        var index = 0
        for position in range {
            if self[position] != expected[index] { return false }
            index += 1
        }
        return true
    }

    /// The bytes in `range`, ASCII lower-cased, as a String. Only for short, already validated ASCII.
    func lowercasedString(_ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { buffer in
            var index = 0
            for position in range {
                buffer[index] = HTTPByte.lowercased(self[position])
                index += 1
            }
            return index
        }
    }
}
