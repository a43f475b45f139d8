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
        var host = hostValue
        var output = HeadBuffer()
        host.withUTF8 {
            upstreamRequest(head, in: bytes, hostValue: UnsafeRawBufferPointer($0), viaName: viaName,
                            keepUpgrade: keepUpgrade, close: close, into: &output)
        }
        return output.bytes
    }

    /// `upstreamRequest` with the Host value taken from `hostRange` of the received bytes (the authority of
    /// an absolute-form target), so no String is made of it, written into `output` (whose storage the next
    /// head reuses).
    public static func upstreamRequest(_ head: RequestHead, in bytes: UnsafeRawBufferPointer, hostRange: Range<Int>,
                                       viaName: String, keepUpgrade: Bool, close: Bool, into output: inout HeadBuffer)
    {
        upstreamRequest(head, in: bytes, hostValue: UnsafeRawBufferPointer(rebasing: bytes[hostRange]),
                        viaName: viaName, keepUpgrade: keepUpgrade, close: close, into: &output)
    }

    private static func upstreamRequest(_ head: RequestHead, in bytes: UnsafeRawBufferPointer,
                                        hostValue: UnsafeRawBufferPointer, viaName: String, keepUpgrade: Bool,
                                        close: Bool, into output: inout HeadBuffer)
    {
        let capacity = head.headLength + hostValue.count + viaName.utf8.count + extraHeadCapacity
        output.write(capacity: capacity) { out in
            out.append(bytes, head.methodBytes)
            out.append(HTTPByte.space)
            switch head.target {
            case .origin(let range):
                out.append(bytes, range)
            case .absolute(_, _, _, _, let pathAndQuery?):
                out.append(bytes, pathAndQuery)
            case .absolute:
                // RFC 9112 §3.2.1 and §3.2.4: an empty path is "/", or "*" for OPTIONS.
                out.append(head.method == .options ? HTTPByte.asterisk : HTTPByte.slash)
            case .authority(let host, let port):
                out.append(text: HostName.withPort(host, port))
            case .asterisk:
                out.append(HTTPByte.asterisk)
            }
            out.append(" HTTP/1.1\r\nHost: ")
            out.append(hostValue, 0..<hostValue.count)
            out.append("\r\n")
            appendEndToEndFields(of: head.fields, fieldsEnd: head.headLength - HTTPByte.crlfLength,
                                 connectionTokens: head.connectionNamesOtherFields ? head.connectionTokens : nil,
                                 from: bytes, dropHost: true, keepUpgrade: keepUpgrade, to: &out)
            appendTrailingFields(version: head.version, viaName: viaName, keepUpgrade: keepUpgrade,
                                 persistence: close ? .close : .persistent, to: &out)
        }
    }

    /// Client response head: "HTTP/1.1 <status> <reason>\r\n" + fields minus hop-by-hop (same list; keep
    /// Upgrade and emit "Connection: upgrade" when keepUpgrade), + "Via: <version> <viaName>",
    /// + "Connection: close" or "Connection: keep-alive" as `persistence` says (nothing for `.persistent`).
    /// Interim (1xx) and 101 heads take `.persistent`: the final response decides.
    public static func clientResponse(_ head: ResponseHead, in bytes: UnsafeRawBufferPointer, viaName: String,
                                      keepUpgrade: Bool, persistence: ResponsePersistence) -> [UInt8]
    {
        var output = HeadBuffer()
        clientResponse(head, in: bytes, viaName: viaName, keepUpgrade: keepUpgrade, persistence: persistence, into: &output)
        return output.bytes
    }

    /// `clientResponse`, written into `output` (whose storage the next head reuses).
    public static func clientResponse(_ head: ResponseHead, in bytes: UnsafeRawBufferPointer, viaName: String,
                                      keepUpgrade: Bool, persistence: ResponsePersistence, into output: inout HeadBuffer)
    {
        let capacity = head.headLength + viaName.utf8.count + extraHeadCapacity
        output.write(capacity: capacity) { out in
            out.append("HTTP/1.1 ")
            out.appendStatus(head.status)
            out.append(HTTPByte.space)
            out.append(bytes, head.reason)
            out.append("\r\n")
            appendEndToEndFields(of: head.fields, fieldsEnd: head.headLength - HTTPByte.crlfLength,
                                 connectionTokens: head.connectionNamesOtherFields ? head.connectionTokens : nil,
                                 from: bytes, dropHost: false, keepUpgrade: keepUpgrade, to: &out)
            appendTrailingFields(version: head.version, viaName: viaName, keepUpgrade: keepUpgrade,
                                 persistence: persistence, to: &out)
        }
    }

    /// Room for the request or status line changes and the fields the proxy adds: the longest of them
    /// (" HTTP/1.1\r\nHost: \r\n", "Via: 1.1 \r\n", "Connection: upgrade\r\n", "Connection: keep-alive\r\n",
    /// the final CRLF and the status line's SP) take 73 bytes besides the host and Via names.
    private static let extraHeadCapacity = 96

    /// Copies the field lines that are forwarded, as received: the lines lie one after the other in `bytes`,
    /// so each run of forwarded lines is one copy. `fieldsEnd` is where the last line's CRLF ends.
    /// `connectionTokens` is nil when no token names a field that is not dropped anyway.
    private static func appendEndToEndFields(of fields: [HeaderField], fieldsEnd: Int, connectionTokens: [String]?,
                                             from bytes: UnsafeRawBufferPointer, dropHost: Bool, keepUpgrade: Bool,
                                             to out: inout HeadOutput)
    {
        var runStart: Int?
        for field in fields {
            let forwarded = isForwarded(field, connectionTokens: connectionTokens, bytes: bytes, dropHost: dropHost,
                                        keepUpgrade: keepUpgrade)
            if forwarded {
                if runStart == nil { runStart = field.name.lowerBound }
            } else if let start = runStart {
                out.append(bytes, start..<field.name.lowerBound)
                runStart = nil
            }
        }
        if let start = runStart { out.append(bytes, start..<fieldsEnd) }
    }

    private static func isForwarded(_ field: HeaderField, connectionTokens: [String]?, bytes: UnsafeRawBufferPointer,
                                    dropHost: Bool, keepUpgrade: Bool) -> Bool
    {
        switch field.known {
        case .contentLength?, .transferEncoding?:
            // Framing fields stay whatever Connection says; the parser refuses such a Connection.
            return true
        case .upgrade?:
            return keepUpgrade
        case .host? where dropHost:
            return false
        case let known? where known.isHopByHop:
            return false
        default:
            guard let connectionTokens else { return true }
            return !isNamed(field, in: connectionTokens, bytes: bytes)
        }
    }

    /// Whether a Connection token names this field (RFC 9110 §7.6.1); tokens are already lower-cased.
    private static func isNamed(_ field: HeaderField, in tokens: [String], bytes: UnsafeRawBufferPointer) -> Bool {
        for token in tokens where token.utf8.count == field.name.count {
            if token.utf8.elementsEqual(field.name.lazy.map { HTTPByte.lowercased(bytes[$0]) }) { return true }
        }
        return false
    }

    private static func appendTrailingFields(version: HTTPVersion, viaName: String, keepUpgrade: Bool,
                                             persistence: ResponsePersistence, to out: inout HeadOutput)
    {
        out.append(version == .http10 ? "Via: 1.0 " : "Via: 1.1 ")
        out.append(text: viaName)
        out.append("\r\n")
        if keepUpgrade { out.append("Connection: upgrade\r\n") }
        out.append(persistence.fieldLineBytes)
        out.append("\r\n")
    }
}
