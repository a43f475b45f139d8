/// Parses a request head strictly by RFC 9112. Anything ambiguous is refused, never repaired: the proxy
/// answers the error's status and closes, so no two parsers along the path can read the bytes differently.
public enum RequestHeadParser {
    /// `bytes` = everything buffered so far from the client, starting at the request line.
    /// incomplete if no CRLFCRLF yet and bytes.count <= limits.maxHeadBytes; once over the limit, 414 when the
    /// request line has not ended there (its target is what is long), 431 when the header fields have not.
    /// A request line or field line that is already wrong is refused before the head is complete.
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits) -> RequestHeadParseResult {
        var fieldStorage: [HeaderField] = []
        return parse(bytes, limits: limits, fieldStorage: &fieldStorage)
    }

    /// `parse`, with the head's fields kept in `fieldStorage`: a connection that passes the same array for
    /// every head, and drops each head before the next, allocates field storage once instead of per head.
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits,
                             fieldStorage: inout [HeaderField]) -> RequestHeadParseResult
    {
        let lineStart: Int
        switch requestLineStart(bytes) {
        case .start(let start): lineStart = start
        case .incomplete: return .incomplete
        case .invalid(let error): return .invalid(error)
        }
        let end = min(bytes.count, limits.maxHeadBytes)
        let requestLine: RequestLine
        let fieldsStart: Int
        switch HeadScanner.findLineEnd(bytes, from: lineStart, end: end) {
        case .found(let lineEnd):
            switch RequestLine.parse(bytes, lineStart..<lineEnd) {
            case .success(let line): requestLine = line
            case .failure(let error): return .invalid(error)
            }
            fieldsStart = lineEnd + HTTPByte.crlfLength
        case .incomplete:
            return bytes.count > limits.maxHeadBytes ? .invalid(overlongRequestLine(bytes, from: lineStart, end: end))
                : .incomplete
        case .invalid(let failure):
            return .invalid(error(failure))
        }
        var summary = HeadFieldSummary(checkHost: true)
        if case .absolute(_, _, _, let authority, _) = requestLine.target { summary.checkedAuthority = authority }
        switch HeadScanner.scanFields(bytes, from: fieldsStart, limits: limits, into: &fieldStorage,
                                      summary: &summary)
        {
        case .complete(let headLength):
            return interpret(requestLine, fieldStorage, consume summary, headLength: headLength)
        case .incomplete:
            return .incomplete
        case .invalid(let failure):
            return .invalid(error(failure))
        }
    }

    private enum LineStart {
        case start(Int)
        case incomplete
        case invalid(HTTPParseError)
    }

    /// RFC 9112 §2.2 says a server SHOULD ignore at least one empty line before the request line (left
    /// over by clients that end a body with an extra CRLF). Exactly one is ignored; more, or any leading
    /// whitespace, is refused.
    private static func requestLineStart(_ bytes: UnsafeRawBufferPointer) -> LineStart {
        guard !bytes.isEmpty else { return .incomplete }
        var start = 0
        if bytes[0] == HTTPByte.cr {
            guard bytes.count > 1 else { return .incomplete }
            guard bytes[1] == HTTPByte.lf else { return .invalid(error(.bareCR)) }
            start = HTTPByte.crlfLength
            guard bytes.count > start else { return .incomplete }
            if bytes[start] == HTTPByte.cr || bytes[start] == HTTPByte.lf {
                return .invalid(.badRequest("more than one empty line before the request line"))
            }
        }
        if bytes[start] == HTTPByte.lf { return .invalid(error(.bareLF)) }
        if HTTPByte.isWhitespace(bytes[start]) { return .invalid(.badRequest("whitespace before the request line")) }
        return .start(start)
    }

    /// A request line that has not ended within the head limit. RFC 9112 §3: a server that receives a
    /// request-target longer than it wishes to parse MUST answer 414 (RFC 9110 §15.5.15). The line is taken
    /// for a long target only when what arrived reads as one (method, SP, target bytes up to the limit), so
    /// a line that is already malformed gets the 400 it would get at any length.
    private static func overlongRequestLine(_ bytes: UnsafeRawBufferPointer, from start: Int, end: Int)
        -> HTTPParseError
    {
        var index = start
        while index < end, HTTPByte.isTokenChar(bytes[index]) { index += 1 }
        guard index > start, index < end, bytes[index] == HTTPByte.space else { return .badRequest("invalid method") }
        index += 1
        let targetStart = index
        while index < end, HTTPByte.isTargetChar(bytes[index]) { index += 1 }
        if index < end {
            if bytes[index] != HTTPByte.space { return .badRequest("invalid character in request target") }
            if index == targetStart { return .badRequest("extra space in request line") }
            // The target ended just before the limit: the line is still long because of it only if what
            // follows is the start of "HTTP/x.y" CR (the CRLF straddling the limit), not an endless version.
            guard isVersionPrefix(bytes, index + 1..<end) else { return .badRequest("invalid HTTP version") }
        }
        return HTTPParseError(status: HTTPParseError.uriTooLongStatus, reason: "request target too long")
    }

    /// Whether `range` is a prefix of `"HTTP/" DIGIT "." DIGIT CR` (RFC 9112 §2.3).
    private static func isVersionPrefix(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        let pattern = Array("HTTP/#.#\r".utf8)
        guard range.count <= pattern.count else { return false }
        for (offset, index) in range.enumerated() {
            let expected = pattern[offset]
            let matches = expected == UInt8(ascii: "#") ? HTTPByte.isDigit(bytes[index]) : bytes[index] == expected
            if !matches { return false }
        }
        return true
    }

    /// Takes the line and the summary over, so that the head is built from them rather than from copies.
    private static func interpret(_ line: consuming RequestLine, _ fields: [HeaderField],
                                  _ summary: consuming HeadFieldSummary, headLength: Int) -> RequestHeadParseResult
    {
        if let failure = summary.failure { return .invalid(.badRequest(failure.description)) }
        // RFC 9112 §3.2: 400 for a 1.1 request without Host and for any request with more than one.
        if summary.hostCount > 1 { return .invalid(.badRequest("multiple Host fields")) }
        if summary.hostCount == 0, line.version == .http11 { return .invalid(.badRequest("missing Host field")) }
        let framing: RequestBodyFraming
        switch framingOf(line, summary) {
        case .success(let value): framing = value
        case .failure(let error): return .invalid(error)
        }
        let isHTTP11 = line.version == .http11
        let keepAlive = summary.connection.close ? false : isHTTP11 || summary.connection.keepAlive
        var head = RequestHead(
            method: line.method, methodBytes: line.methodBytes, target: line.target, version: line.version,
            fields: fields, framing: framing, keepAlive: keepAlive, connectionTokens: summary.connectionTokens,
            expectsContinue: isHTTP11 && summary.expectsContinue,
            upgradeRequested: isHTTP11 && summary.hasUpgrade && summary.connection.upgrade,
            headLength: headLength)
        head.connectionNamesOtherFields = summary.connection.namesOtherFields
        return .complete(head)
    }

    /// RFC 9112 §6.3 for requests, taking every MAY-reject as a reject.
    private static func framingOf(_ line: RequestLine, _ summary: HeadFieldSummary)
        -> Result<RequestBodyFraming, HTTPParseError>
    {
        let codings = summary.transferCodings
        if codings.isPresent {
            // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
            guard line.version == .http11 else {
                return .failure(.badRequest("Transfer-Encoding in an HTTP/1.0 request"))
            }
            // RFC 9112 §6.3 item 3: CL with TE is a smuggling attempt until proven otherwise.
            guard summary.contentLength == nil else {
                return .failure(.badRequest("Content-Length and Transfer-Encoding together"))
            }
            // RFC 9112 §6.1: a sender MUST NOT apply chunked more than once.
            guard codings.chunkedCount <= 1 else { return .failure(.badRequest("chunked applied more than once")) }
            // RFC 9112 §6.3 item 4: without chunked last the length cannot be determined.
            guard codings.chunkedCount == 0 || codings.lastIsChunked else {
                return .failure(.badRequest("chunked is not the final transfer coding"))
            }
            // Item 4 is a MUST (400 and close); an unknown coding under a final chunked is only a SHOULD-501 (§6.1).
            guard codings.lastIsChunked else { return .failure(.badRequest("final transfer coding is not chunked")) }
            guard !codings.hasUnknown else {
                return .failure(HTTPParseError(status: HTTPParseError.notImplementedStatus,
                                               reason: "unsupported transfer coding"))
            }
            // RFC 9110 §9.3.6: CONNECT has no content; bytes after its head are tunnel data.
            guard line.method != .connect else { return .failure(.badRequest("CONNECT request with a body")) }
            return .success(.chunked)
        }
        if let length = summary.contentLength {
            if line.method == .connect {
                return length == 0 ? .success(.none) : .failure(.badRequest("CONNECT request with a body"))
            }
            return .success(.contentLength(length))
        }
        return .success(.none)
    }

    private static func error(_ failure: HeadScanner.Failure) -> HTTPParseError {
        HTTPParseError(status: failure.isLimit ? HTTPParseError.headTooLargeStatus : HTTPParseError.badRequestStatus,
                       reason: failure.description)
    }
}
