/// The URI schemes a forward proxy fetches in absolute-form; any other scheme is refused (400).
public enum URIScheme: Sendable, Hashable {
    case http, https

    /// RFC 9110 §4.2.1, §4.2.2.
    public var defaultPort: UInt16 {
        switch self {
        case .http: return 80
        case .https: return 443
        }
    }
}

extension URIScheme: CustomStringConvertible {
    public var description: String {
        switch self {
        case .http: return "http"
        case .https: return "https"
        }
    }
}

/// The four forms of request-target (RFC 9112 §3.2). Ranges are offsets into the parsed buffer.
public enum RequestTarget: Sendable, Equatable {
    /// "/path?q" as received.
    case origin(Range<Int>)
    /// absolute-form "scheme://authority/path?q". host is lower-cased, IPv6 without brackets.
    /// port: explicit port, or 80 for http / 443 for https. authority = exact received authority bytes
    /// (used verbatim as the upstream Host header). pathAndQuery: "/..." range, or nil when the URI has an
    /// empty path (the rewriter then sends "/"; for OPTIONS it sends "*" per RFC 9112 §3.2.4).
    /// A query after an empty path ("http://h?q") is refused rather than rewritten.
    case absolute(scheme: URIScheme, host: String, port: UInt16, authority: Range<Int>, pathAndQuery: Range<Int>?)
    /// CONNECT host:port, [v6]:port; port required, 1...65535.
    case authority(host: String, port: UInt16)
    /// OPTIONS *
    case asterisk
}

extension RequestTarget: CustomStringConvertible {
    public var description: String {
        switch self {
        case .origin: return "origin-form"
        case .absolute(let scheme, let host, let port, _, _):
            return "absolute-form \(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .authority(let host, let port):
            return "authority-form \(host.contains(":") ? "[\(host)]" : host):\(port)"
        case .asterisk: return "asterisk-form"
        }
    }
}

extension RequestTarget {
    /// Parses the request-target bytes of a request line for `method`; the request line has checked that they
    /// are all `HTTPByte.isTargetChar`.
    static func parse(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, method: HTTPMethod)
        -> Result<RequestTarget, HTTPParseError>
    {
        guard !range.isEmpty else { return .failure(.badRequest("missing request target")) }
        let first = bytes[range.lowerBound]
        if method == .connect {
            // RFC 9112 §3.2.3: CONNECT takes only host:port.
            guard !range.contains(where: { bytes[$0] == HTTPByte.slash }), first != HTTPByte.asterisk else {
                return .failure(.badRequest("CONNECT requires an authority-form target"))
            }
            switch URIAuthority.parse(bytes, range, portRequired: true) {
            case .success(let authority): return .success(.authority(host: authority.host, port: authority.port!))
            case .failure(let failure): return .failure(.badRequest("CONNECT target: \(failure)"))
            }
        }
        if first == HTTPByte.slash { return .success(.origin(range)) }
        if range.count == 1, first == HTTPByte.asterisk {
            // RFC 9112 §3.2.4.
            return method == .options
                ? .success(.asterisk) : .failure(.badRequest("asterisk-form is only valid for OPTIONS"))
        }
        return parseAbsolute(bytes, range)
    }

    /// absolute-form (RFC 9112 §3.2.2) with an http or https URI (RFC 9110 §4.2).
    private static func parseAbsolute(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>)
        -> Result<RequestTarget, HTTPParseError>
    {
        guard let schemePrefix = schemePrefix(bytes, range) else {
            if URIAuthority.check(bytes, range, portRequired: true) == nil {
                return .failure(.badRequest("authority-form is only valid for CONNECT"))
            }
            return .failure(.badRequest("invalid request target"))
        }
        let scheme = schemePrefix.lowerBound..<schemePrefix.upperBound - 1
        let hierarchyStart = schemePrefix.upperBound
        let hasAuthority = hierarchyStart + 1 < range.upperBound && bytes[hierarchyStart] == HTTPByte.slash
            && bytes[hierarchyStart + 1] == HTTPByte.slash
        let uriScheme: URIScheme
        if bytes.equalsIgnoringCase(scheme, "http") {
            uriScheme = .http
        } else if bytes.equalsIgnoringCase(scheme, "https") {
            uriScheme = .https
        } else {
            // "localhost:8080" reads as scheme "localhost": say what the client most likely meant.
            if !hasAuthority, URIAuthority.check(bytes, range, portRequired: true) == nil {
                return .failure(.badRequest("authority-form is only valid for CONNECT"))
            }
            return .failure(.badRequest("unsupported URI scheme"))
        }
        guard hasAuthority else { return .failure(.badRequest("absolute-form URI without authority")) }
        let authorityStart = hierarchyStart + "//".utf8.count
        var authorityEnd = authorityStart
        while authorityEnd < range.upperBound, bytes[authorityEnd] != HTTPByte.slash,
              bytes[authorityEnd] != HTTPByte.question
        {
            authorityEnd += 1
        }
        let authority = authorityStart..<authorityEnd
        let parsed: URIAuthority
        switch URIAuthority.parse(bytes, authority, portRequired: false) {
        case .success(let value): parsed = value
        case .failure(let failure): return .failure(.badRequest("absolute-form target: \(failure)"))
        }
        var pathAndQuery: Range<Int>?
        if authorityEnd < range.upperBound {
            // RFC 9112 §3.2.1 wants "/?q" for an empty path with a query; the rewriter cannot prepend the
            // slash to a received range, and clients always send one, so this form is refused.
            guard bytes[authorityEnd] == HTTPByte.slash else {
                return .failure(.badRequest("absolute-form URI with a query but no path"))
            }
            pathAndQuery = authorityEnd..<range.upperBound
        }
        return .success(.absolute(scheme: uriScheme, host: parsed.host, port: parsed.port ?? uriScheme.defaultPort,
                                  authority: authority, pathAndQuery: pathAndQuery))
    }

    /// The range of `scheme ":"` (RFC 3986 §3.1) at the start of `range`, or nil.
    private static func schemePrefix(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Range<Int>? {
        guard HTTPByte.isAlpha(bytes[range.lowerBound]) else { return nil }
        var index = range.lowerBound + 1
        while index < range.upperBound {
            let byte = bytes[index]
            if byte == HTTPByte.colon { return range.lowerBound..<index + 1 }
            guard HTTPByte.isAlpha(byte) || HTTPByte.isDigit(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == HTTPByte.dot
            else { return nil }
            index += 1
        }
        return nil
    }
}
