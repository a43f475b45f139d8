import IPDirectCore

/// What the DNS listener's query reader promises for any bytes a client sends: no crash, no loop; a message
/// it answers gets a response with the query's ID that fits the UDP limit, and a query it reads has a name
/// within the wire limits. The answer templates' reader takes only what the full reader reads as a query of
/// the same ID, type and EDNS, so a template never answers a message the full path would treat otherwise.
enum DNSQueryInvariants {
    static func check(_ bytes: UnsafeRawBufferPointer) {
        let message = Array(bytes)
        let intake = DNSQueryMessage.intake(message)
        if let shape = DNSTemplateQuery.read(bytes) {
            guard case .query(let query) = intake else {
                return FuzzCheck.require(false, "the template reader took a message the full reader does not read as a query")
            }
            FuzzCheck.require(query.id == shape.id && query.type == shape.type && (query.edns != nil) == shape.edns
                              && (query.edns?.dnssecOK ?? false) == shape.dnssecOK
                              && query.udpLimit(serverLimit: 1232) == shape.udpLimit(serverLimit: 1232),
                              "the template reader read the query otherwise than the full reader")
            FuzzCheck.require(shape.hostName(bytes) == query.name.hostName || query.name.hostName == nil,
                              "the template reader names the question otherwise")
        }
        switch intake {
        case .drop:
            return
        case .reply(let response, _):
            checkEncoded(response, id: message.count >= 2 ? UInt16(message[0]) << 8 | UInt16(message[1]) : 0)
        case .query(let query):
            FuzzCheck.require(query.name.wire.count <= 255, "a name of \(query.name.wire.count) octets was read")
            FuzzCheck.require(query.name.labels.allSatisfy { !$0.isEmpty && $0.count <= 63 }, "a label outside 1...63 octets")
            var response = query.response()
            response.answers = (0..<40).map { .address(.v4(UInt32($0)), owner: query.name, ttl: 60) }
            checkEncoded(response, id: query.id, limit: query.udpLimit(serverLimit: 1232))
            _ = DNSQueryRouter(settings: DNSSettings(), bypass: []).route(query)
        }
    }

    private static func checkEncoded(_ response: DNSResponseMessage, id: UInt16, limit: Int = 512) {
        let encoded = response.encoded(limit: limit)
        FuzzCheck.require(encoded.count <= max(limit, 512), "an answer of \(encoded.count) octets for a limit of \(limit)")
        FuzzCheck.require(encoded.count >= 12 && UInt16(encoded[0]) << 8 | UInt16(encoded[1]) == id, "the answer lost the query's ID")
        FuzzCheck.require(encoded[2] & 0x80 != 0, "an answer without QR")
    }
}
