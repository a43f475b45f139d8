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

    /// Classifies a field name, ignoring ASCII case (RFC 9110 §5.1). Dispatches on length first so most
    /// fields cost one comparison.
    init?(_ bytes: UnsafeRawBufferPointer, name: Range<Int>) {
        switch name.count {
        case 2:
            if bytes.equalsIgnoringCase(name, "te") { self = .te; return }
        case 3:
            if bytes.equalsIgnoringCase(name, "via") { self = .via; return }
        case 4:
            if bytes.equalsIgnoringCase(name, "host") { self = .host; return }
        case 6:
            if bytes.equalsIgnoringCase(name, "expect") { self = .expect; return }
        case 7:
            if bytes.equalsIgnoringCase(name, "upgrade") { self = .upgrade; return }
            if bytes.equalsIgnoringCase(name, "trailer") { self = .trailer; return }
        case 10:
            if bytes.equalsIgnoringCase(name, "connection") { self = .connection; return }
            if bytes.equalsIgnoringCase(name, "keep-alive") { self = .keepAlive; return }
        case 14:
            if bytes.equalsIgnoringCase(name, "content-length") { self = .contentLength; return }
        case 16:
            if bytes.equalsIgnoringCase(name, "proxy-connection") { self = .proxyConnection; return }
        case 17:
            if bytes.equalsIgnoringCase(name, "transfer-encoding") { self = .transferEncoding; return }
        case 18:
            if bytes.equalsIgnoringCase(name, "proxy-authenticate") { self = .proxyAuthenticate; return }
        case 19:
            if bytes.equalsIgnoringCase(name, "proxy-authorization") { self = .proxyAuthorization; return }
        default:
            break
        }
        return nil
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
