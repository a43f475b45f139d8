/// The field names that framing, connection management and forwarding act on.
enum KnownField {
    case host
    case contentLength
    case transferEncoding
    case connection
    case expect
    case upgrade
    case via
    // Hop-by-hop fields (RFC 9110 §7.6.1) that are not named above.
    case keepAlive
    case proxyConnection
    case proxyAuthorization
    case proxyAuthenticate
    case te
    case trailer

    /// Classifies a field name, ignoring ASCII case (RFC 9110 §5.1). Dispatches on length, and for the two
    /// lengths that two names share on the first letter, so a name costs at most one comparison against
    /// static bytes. `name` must hold only token characters, as a scanned field name does, or bytes of a field
    /// value (no CTLs), where setting the case bit turns only a letter's two cases into that lower-case letter.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer, name: Range<Int>) {
        let start = name.lowerBound
        let candidate: KnownField
        let spelling: StaticString
        switch name.count {
        case 2: (candidate, spelling) = (.te, "te")
        case 3: (candidate, spelling) = (.via, "via")
        case 4: (candidate, spelling) = (.host, "host")
        case 6: (candidate, spelling) = (.expect, "expect")
        case 7:
            (candidate, spelling) = bytes[start] | HTTPByte.asciiCaseBit == UInt8(ascii: "u")
                ? (.upgrade, "upgrade") : (.trailer, "trailer")
        case 10:
            (candidate, spelling) = bytes[start] | HTTPByte.asciiCaseBit == UInt8(ascii: "c")
                ? (.connection, "connection") : (.keepAlive, "keep-alive")
        case 14: (candidate, spelling) = (.contentLength, "content-length")
        case 16: (candidate, spelling) = (.proxyConnection, "proxy-connection")
        case 17: (candidate, spelling) = (.transferEncoding, "transfer-encoding")
        case 18: (candidate, spelling) = (.proxyAuthenticate, "proxy-authenticate")
        case 19: (candidate, spelling) = (.proxyAuthorization, "proxy-authorization")
        default: return nil
        }
        guard bytes.tokenEqualsLowercase(at: start, spelling) else { return nil }
        self = candidate
    }

    /// Fields that describe one connection and are never forwarded (RFC 9110 §7.6.1). Upgrade is listed
    /// here; the rewriter keeps it when the proxy relays the upgrade. Proxy-Connection is a pre-standard
    /// alias of Connection still sent by browsers.
    var isHopByHop: Bool {
        switch self {
        case .connection, .keepAlive, .proxyConnection, .proxyAuthorization, .proxyAuthenticate, .te, .trailer,
             .upgrade:
            return true
        case .host, .contentLength, .transferEncoding, .expect, .via:
            return false
        }
    }
}
