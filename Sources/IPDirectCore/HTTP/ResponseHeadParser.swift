/// Parses an upstream response head with the same strictness as requests; every failure is a 502.
public enum ResponseHeadParser {
    /// `bytes` = everything buffered so far from the upstream, starting at the status line.
    /// `requestMethod` decides framing for HEAD (RFC 9112 §6.3 item 1).
    public static func parse(_ bytes: UnsafeRawBufferPointer, requestMethod: HTTPMethod, limits: HTTPHeadLimits)
        -> ResponseHeadParseResult
    {
        var fieldStorage: [HeaderField] = []
        return parse(bytes, requestMethod: requestMethod, limits: limits, fieldStorage: &fieldStorage)
    }

    /// `parse`, with the head's fields kept in `fieldStorage`, as `RequestHeadParser.parse` does.
    public static func parse(_ bytes: UnsafeRawBufferPointer, requestMethod: HTTPMethod, limits: HTTPHeadLimits,
                             fieldStorage: inout [HeaderField]) -> ResponseHeadParseResult
    {
        let end = min(bytes.count, limits.maxHeadBytes)
        let statusLine: StatusLine
        let fieldsStart: Int
        switch HeadScanner.findLineEnd(bytes, from: 0, end: end) {
        case .found(let lineEnd):
            switch StatusLine.parse(bytes, 0..<lineEnd) {
            case .success(let line): statusLine = line
            case .failure(let error): return .invalid(error)
            }
            fieldsStart = lineEnd + HTTPByte.crlfLength
        case .incomplete:
            return bytes.count > limits.maxHeadBytes ? .invalid(badGateway(.headTooLarge)) : .incomplete
        case .invalid(let failure):
            return .invalid(badGateway(failure))
        }
        var summary = HeadFieldSummary(checkHost: false)
        switch HeadScanner.scanFields(bytes, from: fieldsStart, limits: limits, into: &fieldStorage,
                                      summary: &summary)
        {
        case .complete(let headLength):
            return interpret(statusLine, fieldStorage, consume summary, requestMethod: requestMethod,
                             headLength: headLength)
        case .incomplete:
            return .incomplete
        case .invalid(let failure):
            return .invalid(badGateway(failure))
        }
    }

    /// Takes the summary over, so that the head is built from it rather than from a copy.
    private static func interpret(_ line: StatusLine, _ fields: [HeaderField], _ summary: consuming HeadFieldSummary,
                                  requestMethod: HTTPMethod, headLength: Int) -> ResponseHeadParseResult
    {
        if let failure = summary.failure { return .invalid(badGateway(failure.description)) }
        let framing: ResponseBodyFraming
        switch framingOf(line, summary, requestMethod: requestMethod) {
        case .success(let value): framing = value
        case .failure(let error): return .invalid(error)
        }
        let keepAlive = framing != .untilClose && !summary.connection.close
            && (line.version == .http11 || summary.connection.keepAlive)
        var head = ResponseHead(
            status: line.status, version: line.version, reason: line.reason, fields: fields, framing: framing,
            keepAlive: keepAlive, connectionTokens: summary.connectionTokens, headLength: headLength)
        head.connectionNamesOtherFields = summary.connection.namesOtherFields
        return .complete(head)
    }

    /// Informational status codes (RFC 9110 §15.2).
    private static let informational = 100...199
    /// Successful status codes (RFC 9110 §15.3).
    private static let successful = 200...299
    /// RFC 9110 §15.3.5.
    private static let noContent = 204
    /// RFC 9110 §15.4.5.
    private static let notModified = 304

    /// RFC 9112 §6.3. Content-Length and Transfer-Encoding are checked on every response, even where the
    /// status makes them irrelevant to framing, because they are forwarded to a client that may not know.
    private static func framingOf(_ line: StatusLine, _ summary: HeadFieldSummary, requestMethod: HTTPMethod)
        -> Result<ResponseBodyFraming, HTTPParseError>
    {
        let codings = summary.transferCodings
        if codings.isPresent {
            guard line.version == .http11 else {
                return .failure(badGateway("Transfer-Encoding in an HTTP/1.0 response"))
            }
            guard summary.contentLength == nil else {
                return .failure(badGateway("Content-Length and Transfer-Encoding together"))
            }
            guard codings.chunkedCount <= 1 else { return .failure(badGateway("chunked applied more than once")) }
            guard codings.chunkedCount == 0 || codings.lastIsChunked else {
                return .failure(badGateway("chunked is not the final transfer coding"))
            }
        }
        // Item 1: these responses end at the empty line whatever their fields say.
        if requestMethod == .head || informational.contains(line.status) || line.status == noContent
            || line.status == notModified
        {
            return .success(.none)
        }
        // Item 2: a 2xx to CONNECT switches to a tunnel.
        if requestMethod == .connect, successful.contains(line.status) { return .success(.none) }
        // Item 4 for responses: a final coding other than chunked means read until close.
        if codings.isPresent { return .success(codings.lastIsChunked ? .chunked : .untilClose) }
        if let length = summary.contentLength { return .success(.contentLength(length)) }
        return .success(.untilClose)
    }

    private static func badGateway(_ reason: String) -> HTTPParseError {
        HTTPParseError(status: HTTPParseError.badGatewayStatus, reason: "upstream response: \(reason)")
    }

    private static func badGateway(_ failure: HeadScanner.Failure) -> HTTPParseError {
        badGateway(failure.description)
    }
}
