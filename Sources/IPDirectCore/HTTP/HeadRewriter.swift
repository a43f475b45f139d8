/// Head rewriting for forwarding (RFC 9110 §7.6.1, RFC 9112 §9.6).
///
/// Field lines are copied byte-exact from the received buffer, never through String, so whatever the
/// client or origin sent (obs-text included) arrives unchanged; only hop-by-hop fields are dropped.
public enum HeadRewriter {
    /// Upstream request head: "METHOD <origin-form> HTTP/1.1\r\n", a Host field = `hostValue`, then every received
    /// field byte-exact in order EXCEPT: Host (replaced), hop-by-hop fields (Connection, every field named in
    /// Connection, Keep-Alive, Proxy-Connection, Proxy-Authorization, Proxy-Authenticate, TE, Trailer, Upgrade),
    /// then "Via: <version> <viaName>" appended to an existing Via by a new field line. When `keepUpgrade` is true,
    /// Upgrade is kept and "Connection: upgrade" is emitted. When `close` is true, "Connection: close" is emitted.
    ///
    /// Via carries the version of the request as received (RFC 9110 §7.6.3), so "1.0" for HTTP/1.0 clients.
    /// `hostValue` and `viaName` must be valid field values (no CR, LF or other CTLs).
    public static func upstreamRequest(_ head: RequestHead, in bytes: UnsafeRawBufferPointer, hostValue: String,
                                       viaName: String, keepUpgrade: Bool, close: Bool) -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(head.headLength + hostValue.utf8.count + viaName.utf8.count + extraHeadCapacity)
        appendBytes(head.methodBytes, of: bytes, to: &out)
        out.append(HTTPByte.space)
        switch head.target {
        case .origin(let range):
            appendBytes(range, of: bytes, to: &out)
        case .absolute(_, _, _, _, let pathAndQuery?):
            appendBytes(pathAndQuery, of: bytes, to: &out)
        case .absolute:
            // RFC 9112 §3.2.1 and §3.2.4: an empty path is "/", or "*" for OPTIONS.
            out.append(head.method == .options ? HTTPByte.asterisk : HTTPByte.slash)
        case .authority(let host, let port):
            appendText(HostName.withPort(host, port), to: &out)
        case .asterisk:
            out.append(HTTPByte.asterisk)
        }
        appendText(" HTTP/1.1\r\nHost: ", to: &out)
        appendText(hostValue, to: &out)
        appendCRLF(to: &out)
        appendEndToEndFields(head.fields, connectionTokens: head.connectionTokens, from: bytes,
                             dropHost: true, keepUpgrade: keepUpgrade, to: &out)
        appendTrailingFields(version: head.version, viaName: viaName, keepUpgrade: keepUpgrade,
                             persistence: close ? .close : .persistent, to: &out)
        return out
    }

    /// Client response head: "HTTP/1.1 <status> <reason>\r\n" + fields minus hop-by-hop (same list; keep
    /// Upgrade and emit "Connection: upgrade" when keepUpgrade), + "Via: <version> <viaName>",
    /// + "Connection: close" or "Connection: keep-alive" as `persistence` says (nothing for `.persistent`).
    /// Interim (1xx) and 101 heads take `.persistent`: the final response decides.
    public static func clientResponse(_ head: ResponseHead, in bytes: UnsafeRawBufferPointer, viaName: String,
                                      keepUpgrade: Bool, persistence: ResponsePersistence) -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(head.headLength + viaName.utf8.count + extraHeadCapacity)
        appendText("HTTP/1.1 \(head.status) ", to: &out)
        appendBytes(head.reason, of: bytes, to: &out)
        appendCRLF(to: &out)
        appendEndToEndFields(head.fields, connectionTokens: head.connectionTokens, from: bytes,
                             dropHost: false, keepUpgrade: keepUpgrade, to: &out)
        appendTrailingFields(version: head.version, viaName: viaName, keepUpgrade: keepUpgrade,
                             persistence: persistence, to: &out)
        return out
    }

    /// Room for the request or status line changes and the fields the proxy adds.
    private static let extraHeadCapacity = 96

    private static func appendEndToEndFields(_ fields: [HeaderField], connectionTokens: [String],
                                             from bytes: UnsafeRawBufferPointer, dropHost: Bool, keepUpgrade: Bool,
                                             to out: inout [UInt8])
    {
        for field in fields {
            if let known = KnownField(bytes, name: field.name) {
                switch known {
                case .upgrade where keepUpgrade:
                    break
                case .host where dropHost:
                    continue
                case .contentLength, .transferEncoding:
                    // Framing fields stay whatever Connection says; the parser refuses such a Connection.
                    appendBytes(field.line(in: bytes), of: bytes, to: &out)
                    appendCRLF(to: &out)
                    continue
                default:
                    if known.isHopByHop { continue }
                }
            }
            if isNamed(field, in: connectionTokens, bytes: bytes, keepUpgrade: keepUpgrade) { continue }
            appendBytes(field.line(in: bytes), of: bytes, to: &out)
            appendCRLF(to: &out)
        }
    }

    /// Whether a Connection token names this field (RFC 9110 §7.6.1); tokens are already lower-cased.
    private static func isNamed(_ field: HeaderField, in tokens: [String], bytes: UnsafeRawBufferPointer,
                                keepUpgrade: Bool) -> Bool
    {
        for token in tokens where token.utf8.count == field.name.count {
            if keepUpgrade && token == "upgrade" { continue }
            if token.utf8.elementsEqual(field.name.lazy.map { HTTPByte.lowercased(bytes[$0]) }) { return true }
        }
        return false
    }

    private static func appendTrailingFields(version: HTTPVersion, viaName: String, keepUpgrade: Bool,
                                             persistence: ResponsePersistence, to out: inout [UInt8])
    {
        appendText(version == .http10 ? "Via: 1.0 " : "Via: 1.1 ", to: &out)
        appendText(viaName, to: &out)
        appendCRLF(to: &out)
        if keepUpgrade { appendText("Connection: upgrade\r\n", to: &out) }
        appendText(persistence.fieldLine, to: &out)
        appendCRLF(to: &out)
    }

    /// One contiguous copy from the received buffer.
    private static func appendBytes(_ range: Range<Int>, of bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    private static func appendText(_ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: text.utf8)
    }

    private static func appendCRLF(to out: inout [UInt8]) {
        out.append(HTTPByte.cr)
        out.append(HTTPByte.lf)
    }
}
