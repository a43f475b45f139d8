import IPDirectCore

/// What reading a relayed answer promises for any bytes a forward server or DoH provider sends back: no crash,
/// no loop; a response it makes has the client's ID and question and fits the client's UDP limit once encoded;
/// the hint stripper never leaves a hint in RDATA it accepts, and never grows it.
enum DNSRelayInvariants {
    /// An HTTPS query for Fuzz.Example with ID 0x4242, as a client sends it.
    static let client: DNSQueryMessage = {
        let wire: [UInt8] = [0x42, 0x42, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0] + DNSName("Fuzz.Example")!.wire + [0, 65, 0, 1]
        guard case .query(let query) = DNSQueryMessage.intake(wire) else { fatalError("the fuzz client's query is unreadable") }
        return query
    }()

    static func check(_ bytes: UnsafeRawBufferPointer) {
        let message = Array(bytes)
        // The fuzzer's input as the upstream's answer, its ID taken as the one sent, so reading goes past it.
        let upstreamID = message.count >= 2 ? UInt16(message[0]) << 8 | UInt16(message[1]) : 0
        let relayed = DNSRelayedQuery(client: client, upstreamID: upstreamID)
        if case .response(let response, _) = relayed.read(message, https: .stripHints) {
            FuzzCheck.require(response.id == client.id && response.question?.name == client.name, "the answer lost the client's ID or question")
            let encoded = response.encoded(limit: 512)
            FuzzCheck.require(encoded.count <= 512, "a relayed answer of \(encoded.count) octets for a limit of 512")
        }
        if let stripped = SVCBHintStripper.strip(message) {
            FuzzCheck.require(stripped.count <= message.count, "stripping made the RDATA longer")
            FuzzCheck.require(SVCBHintStripper.strip(stripped) == stripped, "a second strip changed the RDATA")
        }
    }
}
