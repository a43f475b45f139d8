/// `status-line = HTTP-version SP status-code SP [ reason-phrase ]` (RFC 9112 §4).
struct StatusLine {
    var version: HTTPVersion
    var status: Int
    var reason: Range<Int>

    /// Status codes with a defined class (RFC 9110 §15): the first digit is 1 to 5.
    static let validStatus = 100...599
    /// Three digits (RFC 9112 §4).
    static let statusDigits = 3

    /// Parses the line in `line` (without its CRLF). A missing SP before an empty reason-phrase is
    /// accepted: many servers omit it and nothing else can follow the status code.
    static func parse(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>) -> Result<StatusLine, HTTPParseError> {
        let versionEnd = line.lowerBound + HTTPVersion.textLength
        guard versionEnd < line.upperBound, bytes[versionEnd] == HTTPByte.space else {
            return .failure(invalid("invalid status line"))
        }
        let version: HTTPVersion
        switch HTTPVersion.parse(bytes, line.lowerBound..<versionEnd) {
        case .known(let known): version = known
        case .unsupported: return .failure(invalid("unsupported HTTP version"))
        case .malformed: return .failure(invalid("invalid status line"))
        }
        let statusStart = versionEnd + 1
        let statusEnd = statusStart + statusDigits
        guard statusEnd <= line.upperBound else { return .failure(invalid("invalid status code")) }
        var status = 0
        for index in statusStart..<statusEnd {
            let byte = bytes[index]
            guard HTTPByte.isDigit(byte) else { return .failure(invalid("invalid status code")) }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard validStatus.contains(status) else { return .failure(invalid("invalid status code")) }
        var reason = statusEnd..<statusEnd
        if statusEnd < line.upperBound {
            guard bytes[statusEnd] == HTTPByte.space else { return .failure(invalid("invalid status code")) }
            reason = statusEnd + 1..<line.upperBound
            // reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )
            for index in reason where !(HTTPByte.isVisible(bytes[index]) || HTTPByte.isWhitespace(bytes[index])) {
                return .failure(invalid("control character in reason phrase"))
            }
        }
        return .success(StatusLine(version: version, status: status, reason: reason))
    }

    private static func invalid(_ reason: String) -> HTTPParseError {
        HTTPParseError(status: HTTPParseError.badGatewayStatus, reason: "upstream response: \(reason)")
    }
}
