import IPDirectCore

/// What ResponseHeadParser and HeadRewriter.clientResponse promise for any bytes.
enum ResponseInvariants {
    static let methods: [HTTPMethod] = [.get, .head, .connect]

    static func check(_ bytes: UnsafeRawBufferPointer) {
        let limits = HTTPHeadLimits(maxHeadBytes: 512, maxFieldCount: 16)
        for method in methods {
            switch ResponseHeadParser.parse(bytes, requestMethod: method, limits: limits) {
            case .incomplete:
                FuzzCheck.require(bytes.count <= limits.maxHeadBytes, "incomplete beyond the head limit")
            case .invalid(let error):
                FuzzCheck.requireUsable(error, statuses: [502])
            case .complete(let head):
                checkComplete(head, bytes, method: method, limits: limits)
            }
        }
    }

    private static func checkComplete(_ head: ResponseHead, _ bytes: UnsafeRawBufferPointer, method: HTTPMethod,
                                      limits: HTTPHeadLimits)
    {
        let length = head.headLength
        FuzzCheck.require(length > 0 && length <= bytes.count && length <= limits.maxHeadBytes, "headLength \(length)")
        FuzzCheck.require((100...599).contains(head.status), "status \(head.status)")
        FuzzCheck.requireInBounds(head.reason, length, "reason")
        for field in head.fields {
            FuzzCheck.requireInBounds(field.name, length, "field name")
            FuzzCheck.requireInBounds(field.value, length, "field value")
        }
        if head.framing == .untilClose { FuzzCheck.require(!head.keepAlive, "keep-alive with a body until close") }
        if method == .head { FuzzCheck.require(head.framing == .none, "HEAD response with a body") }

        let out = HeadRewriter.clientResponse(head, in: bytes, viaName: "fuzz", keepUpgrade: false,
                                              persistence: .keepAlive)
        out.withUnsafeBytes { rewritten in
            let roomy = HTTPHeadLimits(maxHeadBytes: 1 << 20, maxFieldCount: 1 << 12)
            guard case .complete(let again) = ResponseHeadParser.parse(rewritten, requestMethod: method, limits: roomy)
            else {
                FuzzCheck.require(false, "rewritten response does not parse: \(String(decoding: out, as: UTF8.self))")
                return
            }
            FuzzCheck.require(again.status == head.status && again.framing == head.framing,
                              "rewrite changed status or framing: \(head.framing) -> \(again.framing)")
            FuzzCheck.require(again.headLength == out.count, "rewritten response has trailing bytes")
        }
    }
}
