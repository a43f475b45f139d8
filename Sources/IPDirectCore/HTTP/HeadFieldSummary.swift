/// What the fields of a head say about framing and the connection, gathered field by field as the scanner
/// finds them. Syntax problems in these fields are failures; what a request or a response makes of the
/// result is decided by the parser for that role.
struct HeadFieldSummary {
    /// Whether Host values are checked as `uri-host [ ":" port ]` (requests only).
    let checkHost: Bool
    /// The request target's authority, already checked by the rules a Host value is checked by: a Host value
    /// of the same bytes, as nearly every client sends with an absolute-form target, needs no second check.
    var checkedAuthority: Range<Int>?
    var hostCount = 0
    var contentLength: UInt64?
    var transferCodings = TransferCodings()
    /// Lower-cased tokens of every Connection field that may name a field to remove, in order: all but those
    /// naming hop-by-hop fields (keep-alive, upgrade, ...), which are removed (or kept, for an upgrade) anyway.
    /// Most heads have none, so most heads allocate no list.
    var connectionTokens: [String] = []
    /// The list of a head whose one such token is "close", as most that close say: shared, not allocated.
    private static let closeOnly = ["close"]
    var connection = ConnectionOptions()
    var expectsContinue = false
    var hasUpgrade = false
    /// The first problem found, in field order; later fields are not interpreted.
    private(set) var failure: Failure?

    init(checkHost: Bool) {
        self.checkHost = checkHost
    }

    /// The Connection options (RFC 9110 §7.6.1) the proxy acts on, read once so nobody compares strings later.
    struct ConnectionOptions {
        var close = false
        var keepAlive = false
        var upgrade = false
        /// Some token names a field that is not dropped as hop-by-hop anyway ("close", "x-foo", "via"): only
        /// then must a rewriter compare field names with the tokens.
        var namesOtherFields = false
    }

    /// The transfer codings of all Transfer-Encoding field lines, combined as one list (RFC 9110 §5.3).
    struct TransferCodings {
        var count = 0
        var chunkedCount = 0
        var lastIsChunked = false
        var hasUnknown = false

        var isPresent: Bool { count > 0 }
    }

    enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case invalidHost(URIAuthority.Failure)
        case multipleContentLength
        case emptyContentLength
        case invalidContentLength
        case contentLengthOverflow
        case emptyTransferCoding
        case invalidTransferCoding
        case transferCodingParameters
        case invalidConnectionToken
        /// "Connection: content-length" would make the next hop drop a framing field we framed by.
        case connectionNamesFramingField

        var description: String {
            switch self {
            case .invalidHost(let failure): return "invalid Host field: \(failure)"
            case .multipleContentLength: return "multiple Content-Length values"
            case .emptyContentLength: return "empty Content-Length"
            case .invalidContentLength: return "invalid Content-Length"
            case .contentLengthOverflow: return "Content-Length too large"
            case .emptyTransferCoding: return "empty transfer coding in Transfer-Encoding"
            case .invalidTransferCoding: return "invalid Transfer-Encoding"
            case .transferCodingParameters: return "transfer coding with parameters"
            case .invalidConnectionToken: return "invalid Connection token"
            case .connectionNamesFramingField: return "Connection names a framing field"
            }
        }
    }

    /// Takes in one field line the scanner has classified.
    mutating func add(_ field: HeaderField, in bytes: UnsafeRawBufferPointer) {
        guard failure == nil, let known = field.known else { return }
        switch known {
        case .host:
            hostCount += 1
            if checkHost { failure = hostFailure(bytes, field.value) }
        case .contentLength:
            failure = addContentLength(bytes, field.value)
        case .transferEncoding:
            failure = addTransferCodings(bytes, field.value)
        case .connection:
            failure = addConnectionTokens(bytes, field.value)
        case .expect:
            addExpectation(bytes, field.value)
        case .upgrade:
            hasUpgrade = true
        case .via, .keepAlive, .proxyConnection, .proxyAuthorization, .proxyAuthenticate, .te, .trailer:
            break
        }
    }

    /// RFC 9110 §7.2: empty (for targets without authority) or `uri-host [ ":" port ]`.
    private func hostFailure(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Failure? {
        if value.isEmpty { return nil }
        if let checked = checkedAuthority, bytes.sameBytes(value, checked) { return nil }
        return URIAuthority.check(bytes, value, portRequired: false).map(Failure.invalidHost)
    }

    /// Decimal digits of the largest number below `UInt64.max` (twenty digits) made of nines: a Content-Length of
    /// this many digits or fewer needs no overflow checks.
    static let digitsBelowUInt64Max = 19

    /// RFC 9112 §6.3 item 5: one Content-Length of 1*DIGIT. Repeated fields, lists ("5, 5"), signs and
    /// spaces are refused even where the RFC would let a recipient merge identical values.
    private mutating func addContentLength(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Failure? {
        guard contentLength == nil else { return .multipleContentLength }
        guard !value.isEmpty else { return .emptyContentLength }
        var length: UInt64 = 0
        let cannotOverflow = value.count <= Self.digitsBelowUInt64Max
        for index in value {
            let byte = bytes[index]
            guard HTTPByte.isDigit(byte) else { return .invalidContentLength }
            if cannotOverflow {
                length = length &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                continue
            }
            let (shifted, overflowShift) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            if overflowShift || overflowAdd { return .contentLengthOverflow }
            length = sum
        }
        contentLength = length
        return nil
    }

    /// RFC 9112 §6.1: a list of transfer codings. Empty elements, which RFC 9110 §5.6.1 would skip, are
    /// refused here because framing must not depend on how a peer reads an odd list.
    private mutating func addTransferCodings(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Failure? {
        var elements = ListElements(bytes, value)
        while let element = elements.next() {
            guard !element.isEmpty else { return .emptyTransferCoding }
            for index in element where !HTTPByte.isTokenChar(bytes[index]) {
                let byte = bytes[index]
                return byte == HTTPByte.semicolon || HTTPByte.isWhitespace(byte)
                    ? .transferCodingParameters : .invalidTransferCoding
            }
            let isChunked = bytes.equalsIgnoringCase(element, "chunked")
            transferCodings.count += 1
            if isChunked { transferCodings.chunkedCount += 1 }
            transferCodings.lastIsChunked = isChunked
            if !isChunked && !Self.isKnownCompression(bytes, element) { transferCodings.hasUnknown = true }
        }
        return nil
    }

    /// Codings of the IANA registry a proxy can pass through without decoding (RFC 9112 §7).
    private static func isKnownCompression(_ bytes: UnsafeRawBufferPointer, _ coding: Range<Int>) -> Bool {
        bytes.equalsIgnoringCase(coding, "gzip") || bytes.equalsIgnoringCase(coding, "x-gzip")
            || bytes.equalsIgnoringCase(coding, "deflate") || bytes.equalsIgnoringCase(coding, "compress")
            || bytes.equalsIgnoringCase(coding, "x-compress")
    }

    /// RFC 9110 §7.6.1: `Connection = #connection-option`, tokens compared case-insensitively.
    private mutating func addConnectionTokens(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Failure? {
        var elements = ListElements(bytes, value)
        while let element = elements.next() {
            if element.isEmpty { continue }
            // A field value holds no control bytes, and among the other bytes only a letter's two cases spell a
            // letter once the case bit is set: an element that spells a known field name is that token, and only
            // the others need their bytes checked.
            let known = KnownField(bytes, name: element)
            if known == nil {
                for index in element where !HTTPByte.isTokenChar(bytes[index]) { return .invalidConnectionToken }
            }
            switch known {
            case .contentLength?, .transferEncoding?:
                return .connectionNamesFramingField
            case .keepAlive?:
                connection.keepAlive = true
            case .upgrade?:
                connection.upgrade = true
            case let named? where named.isHopByHop:
                break
            default:
                connection.namesOtherFields = true
                if element.count == 5 && bytes.tokenEqualsLowercase(at: element.lowerBound, "close") {
                    connection.close = true
                    if connectionTokens.isEmpty {
                        connectionTokens = HeadFieldSummary.closeOnly
                    } else {
                        connectionTokens.append("close")
                    }
                } else {
                    connectionTokens.append(bytes.lowercasedString(element))
                }
            }
        }
        return nil
    }

    /// RFC 9110 §10.1.1: the expectation is case-insensitive; others are left to the origin.
    private mutating func addExpectation(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) {
        var elements = ListElements(bytes, value)
        while let element = elements.next() {
            if bytes.equalsIgnoringCase(element, "100-continue") { expectsContinue = true }
        }
    }

    /// The elements of a comma-separated list (RFC 9110 §5.6.1) with OWS trimmed; empty elements come as empty
    /// ranges. An iterator rather than a closure per element: the closure, which mutates the summary, was not
    /// inlined and cost about 200 instructions for a one-token Connection field.
    private struct ListElements {
        let bytes: UnsafeRawBufferPointer
        let end: Int
        var start: Int

        init(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) {
            self.bytes = bytes
            end = value.upperBound
            start = value.lowerBound
        }

        mutating func next() -> Range<Int>? {
            guard start <= end else { return nil }
            var elementEnd = start
            while elementEnd < end, bytes[elementEnd] != HTTPByte.comma { elementEnd += 1 }
            var trimmedStart = start
            var trimmedEnd = elementEnd
            while trimmedStart < trimmedEnd, HTTPByte.isWhitespace(bytes[trimmedStart]) { trimmedStart += 1 }
            while trimmedEnd > trimmedStart, HTTPByte.isWhitespace(bytes[trimmedEnd - 1]) { trimmedEnd -= 1 }
            start = elementEnd + 1
            return trimmedStart..<trimmedEnd
        }
    }
}
