/// `request-line = method SP request-target SP HTTP-version` (RFC 9112 §3), exactly one SP between the
/// parts and nothing else: RFC 9112 §3 lets a recipient split on other whitespace, which is how two
/// parsers come to disagree, so a strict proxy does not.
struct RequestLine {
    var method: HTTPMethod
    var methodBytes: Range<Int>
    var target: RequestTarget
    var version: HTTPVersion

    /// Parses the line in `line` (without its CRLF).
    static func parse(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>) -> Result<RequestLine, HTTPParseError> {
        var index = line.lowerBound
        while index < line.upperBound, HTTPByte.isTokenChar(bytes[index]) { index += 1 }
        let methodBytes = line.lowerBound..<index
        guard !methodBytes.isEmpty else { return .failure(.badRequest("invalid method")) }
        guard index < line.upperBound else { return .failure(.badRequest("request line without target")) }
        guard bytes[index] == HTTPByte.space else { return .failure(.badRequest("invalid method")) }
        index += 1
        let targetStart = index
        // The target ends at the next SP; its characters are checked on the way, but a bad one is reported
        // only after the version, as it always was.
        var targetHasInvalidByte = false
        while index < line.upperBound {
            index = HeadScanner.skip(.requestTarget, bytes, from: index, end: line.upperBound)
            guard index < line.upperBound else { break }
            let byte = bytes[index]
            if byte == HTTPByte.space { break }
            if !HTTPByte.isTargetChar(byte) { targetHasInvalidByte = true }
            index += 1
        }
        let targetBytes = targetStart..<index
        guard !targetBytes.isEmpty else {
            return .failure(.badRequest(index < line.upperBound ? "extra space in request line"
                                                                 : "request line without target"))
        }
        // HTTP/0.9's "GET /" has no version; nothing here speaks it.
        guard index < line.upperBound else { return .failure(.badRequest("request line without HTTP version")) }
        let versionBytes = index + 1..<line.upperBound
        let version: HTTPVersion
        switch HTTPVersion.parse(bytes, versionBytes) {
        case .known(let known):
            version = known
        case .unsupported:
            return .failure(HTTPParseError(status: HTTPParseError.versionNotSupportedStatus,
                                           reason: "HTTP version not supported"))
        case .malformed:
            return .failure(.badRequest(versionBytes.contains(where: { bytes[$0] == HTTPByte.space })
                ? "extra space in request line" : "invalid HTTP version"))
        }
        if targetHasInvalidByte { return .failure(.badRequest("invalid character in request target")) }
        let method = HTTPMethod(bytes, methodBytes)
        switch RequestTarget.parse(bytes, targetBytes, method: method) {
        case .success(let target):
            return .success(RequestLine(method: method, methodBytes: methodBytes, target: target, version: version))
        case .failure(let error):
            return .failure(error)
        }
    }
}
