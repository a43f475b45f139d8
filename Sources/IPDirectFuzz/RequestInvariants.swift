import IPDirectCore

/// What RequestHeadParser and HeadRewriter promise for any bytes.
enum RequestInvariants {
    /// The default limits, and small ones so the fuzzer reaches the limit paths with short inputs.
    static let limitSets = [
        HTTPHeadLimits(),
        HTTPHeadLimits(maxHeadBytes: 256, maxFieldCount: 8),
    ]
    /// Room for any rewritten head: the rewriter adds fields, so it may exceed the original limits.
    static let roomyLimits = HTTPHeadLimits(maxHeadBytes: 1 << 20, maxFieldCount: 1 << 12)
    static let statuses: Set<Int> = [400, 414, 431, 501, 505]

    static func check(_ bytes: UnsafeRawBufferPointer) {
        for limits in limitSets {
            switch RequestHeadParser.parse(bytes, limits: limits) {
            case .incomplete:
                FuzzCheck.require(bytes.count <= limits.maxHeadBytes, "incomplete beyond the head limit")
            case .invalid(let error):
                FuzzCheck.requireUsable(error, statuses: statuses)
            case .complete(let head):
                checkComplete(head, bytes, limits: limits)
            }
        }
    }

    private static func checkComplete(_ head: RequestHead, _ bytes: UnsafeRawBufferPointer, limits: HTTPHeadLimits) {
        let length = head.headLength
        FuzzCheck.require(length > 0 && length <= bytes.count && length <= limits.maxHeadBytes,
                          "headLength \(length) of \(bytes.count) bytes")
        FuzzCheck.require(Array(bytes[length - 4..<length]) == Array("\r\n\r\n".utf8), "head does not end in CRLFCRLF")
        FuzzCheck.require(head.fields.count <= limits.maxFieldCount, "more fields than the limit")
        FuzzCheck.requireInBounds(head.methodBytes, length, "method")
        FuzzCheck.require(!head.methodBytes.isEmpty, "empty method")
        for field in head.fields {
            FuzzCheck.requireInBounds(field.name, length, "field name")
            FuzzCheck.requireInBounds(field.value, length, "field value")
            FuzzCheck.require(!field.name.isEmpty && field.name.upperBound < field.value.lowerBound,
                              "field name \(field.name) value \(field.value)")
            if let first = field.value.first, let last = field.value.last {
                FuzzCheck.require(!isWhitespace(bytes[first]) && !isWhitespace(bytes[last]), "value keeps OWS")
            }
        }
        checkTarget(head, length)
        FuzzCheck.require(head.version == .http11 || !head.expectsContinue, "100-continue honoured on HTTP/1.0")
        FuzzCheck.require(!head.upgradeRequested || connectionLists("upgrade", head, bytes), "upgrade without token")
        FuzzCheck.require(!connectionLists("close", head, bytes) || !head.keepAlive, "keep-alive despite close")

        // The body and anything pipelined after the head must not change how the head parses.
        let alone = UnsafeRawBufferPointer(rebasing: bytes[..<length])
        guard case .complete(let again) = RequestHeadParser.parse(alone, limits: limits) else {
            FuzzCheck.require(false, "head stops parsing without the bytes after it")
            return
        }
        FuzzCheck.require(again.headLength == length && again.fields == head.fields && again.framing == head.framing,
                          "head parses differently without the bytes after it")
        let shorter = UnsafeRawBufferPointer(rebasing: bytes[..<(length - 1)])
        if case .complete = RequestHeadParser.parse(shorter, limits: limits) {
            FuzzCheck.require(false, "a head minus its last byte is complete")
        }
        checkRewrite(head, bytes)
    }

    private static func checkTarget(_ head: RequestHead, _ length: Int) {
        switch head.target {
        case .origin(let range):
            FuzzCheck.requireInBounds(range, length, "origin target")
        case .absolute(_, let host, let port, let authority, let pathAndQuery):
            FuzzCheck.require(!host.isEmpty && port > 0, "absolute host \(host) port \(port)")
            FuzzCheck.requireInBounds(authority, length, "authority")
            if let pathAndQuery { FuzzCheck.requireInBounds(pathAndQuery, length, "path") }
        case .authority(let host, let port):
            FuzzCheck.require(head.method == .connect, "authority-form without CONNECT")
            FuzzCheck.require(!host.isEmpty && port > 0, "authority host \(host) port \(port)")
        case .asterisk:
            FuzzCheck.require(head.method == .options, "asterisk-form without OPTIONS")
        }
    }

    /// What the proxy sends upstream must itself be a valid request with the same meaning.
    private static func checkRewrite(_ head: RequestHead, _ bytes: UnsafeRawBufferPointer) {
        var hostValue = "fuzz.test"
        if case .absolute(_, _, _, let authority, _) = head.target {
            hostValue = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[authority]), as: UTF8.self)
        }
        let out = HeadRewriter.upstreamRequest(head, in: bytes, hostValue: hostValue, viaName: "fuzz",
                                               keepUpgrade: head.upgradeRequested, close: !head.keepAlive)
        out.withUnsafeBytes { rewritten in
            guard case .complete(let again) = RequestHeadParser.parse(rewritten, limits: roomyLimits) else {
                FuzzCheck.require(false, "rewritten head does not parse: \(String(decoding: out, as: UTF8.self))")
                return
            }
            FuzzCheck.require(again.headLength == out.count, "rewritten head has trailing bytes")
            FuzzCheck.require(again.method == head.method && again.framing == head.framing,
                              "rewrite changed method or framing: \(head.framing) -> \(again.framing)")
            FuzzCheck.require(again.version == .http11, "rewritten head is not HTTP/1.1")
            FuzzCheck.require(again.keepAlive == head.keepAlive, "rewrite changed persistence")
            for token in again.connectionTokens {
                FuzzCheck.require(token == "close", "hop-by-hop token \(token) forwarded")
            }
        }
    }

    /// Whether a Connection field of the head lists `token`, read from the bytes themselves: the parser keeps
    /// only the tokens that may name a field to remove.
    private static func connectionLists(_ token: String, _ head: RequestHead, _ bytes: UnsafeRawBufferPointer) -> Bool {
        head.fields.contains { field in
            String(decoding: bytes[field.name], as: UTF8.self).lowercased() == "connection"
                && String(decoding: bytes[field.value], as: UTF8.self).lowercased().split(separator: ",")
                    .contains { element in element.filter { $0 != " " && $0 != "\t" } == token }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
