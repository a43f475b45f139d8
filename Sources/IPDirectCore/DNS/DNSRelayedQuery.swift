/// A client's query as ipdirect relays it to another server (a `forward` server or a DoH provider), and
/// the reading of that server's reply into the response the client gets.
///
/// The upstream query has an ID of ipdirect's own choosing, so a reply can only be matched by someone who
/// saw the query (RFC 5452 §9.2: random ID and source port); the client's ID, RD and CD and the question's
/// case are restored in what the client gets.
public struct DNSRelayedQuery: Sendable {
    public let client: DNSQueryMessage
    /// The ID sent upstream: random over UDP, 0 over DoH (RFC 8484 §4.1, for HTTP caches).
    public let upstreamID: UInt16

    public init(client: DNSQueryMessage, upstreamID: UInt16) {
        self.client = client
        self.upstreamID = upstreamID
    }

    /// The UDP size ipdirect advertises upstream: it re-truncates for its own clients anyway.
    static let upstreamUDPPayload: UInt16 = 1232
    /// DNSSEC record types a response carries only for a client that set DO (RFC 4035 §3.2.1).
    static let dnssecTypes: Set<UInt16> = [46 /* RRSIG */, 47 /* NSEC */, 50 /* NSEC3 */]
    /// Types whose RDATA may hold compressed names (RFC 3597 §4: those of RFC 1035 only) and where they
    /// sit: the octets before each name. They are expanded, since the relayed message is written anew.
    private static let namesInData: [UInt16: (lead: Int, names: Int, tail: Int)] = [
        DNSType.ns: (0, 1, 0), DNSType.cname: (0, 1, 0), DNSType.ptr: (0, 1, 0),
        7 /* MB */: (0, 1, 0), 8 /* MG */: (0, 1, 0), 9 /* MR */: (0, 1, 0), 14 /* MINFO */: (0, 2, 0),
        DNSType.mx: (2, 1, 0), DNSType.soa: (0, 2, 20),
    ]

    /// The query in wire form: RD set (the server recurses for us), the client's CD, the question as the
    /// client wrote it, and an OPT record carrying the client's DO bit.
    public var wire: [UInt8] { wire(paddedTo: nil) }

    /// The wire form, its length a multiple of `block` when given (RFC 8467 §4.1, over an encrypted
    /// connection, so that the size of a query does not tell its name).
    public func wire(paddedTo block: Int?) -> [UInt8] {
        var bytes: [UInt8] = []
        func append16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)] }
        append16(upstreamID)
        append16(0x0100 | (client.checkingDisabled ? 0x0010 : 0))
        for count: UInt16 in [1, 0, 0, 1] { append16(count) }
        bytes += client.name.wire
        append16(client.type)
        append16(DNSType.internetClass)
        bytes.append(0)
        append16(DNSType.opt)
        append16(Self.upstreamUDPPayload)
        append16(0)
        append16(client.edns?.dnssecOK == true ? 0x8000 : 0)
        guard let block else {
            append16(0)
            return bytes
        }
        // RDLENGTH counts the option; `paddingLength` counts its header, so it sees the message without it.
        let padding = EDNSPadding.option(paddingLength: EDNSPadding.paddingLength(messageLength: bytes.count + 2, block: block))
        append16(UInt16(padding.count))
        return bytes + padding
    }

    /// What a datagram or DoH body that came back means for this query.
    public enum Reply: Equatable, Sendable {
        /// Not the reply to this query (another ID or question, or not a response): ignore it and keep
        /// waiting, it may be forged or late.
        case unrelated
        /// TC set: the whole answer needs TCP (RFC 7766 §5).
        case truncated
        /// Readable, but not as a DNS response: the next server is asked.
        case unusable(String)
        /// The response for the client; `dropped` counts the records left out (DNSSEC records without DO,
        /// additional records, HTTPS records whose hints could not be removed).
        case response(DNSResponseMessage, dropped: Int)
    }

    public func read(_ bytes: [UInt8], https: DNSHTTPSRecords) -> Reply {
        var reader = DNSWireReader(bytes)
        do {
            guard bytes.count >= DNSQueryMessage.headerSize else { return .unusable("shorter than a DNS header") }
            let id = try reader.u16()
            let flags = try reader.u16()
            let counts = [try reader.u16(), try reader.u16(), try reader.u16(), try reader.u16()]
            guard id == upstreamID, flags & 0x8000 != 0, counts[0] == 1 else { return .unrelated }
            let name = try reader.name()
            let type = try reader.u16()
            let dnsClass = try reader.u16()
            guard name.equalsIgnoringCase(client.name), type == client.type, dnsClass == DNSType.internetClass else {
                return .unrelated
            }
            if flags & 0x0200 != 0 { return .truncated }
            var response = client.response()
            var rcode = flags & 0xF
            var dropped = 0
            for (section, count) in counts.dropFirst().enumerated() {
                for _ in 0..<count {
                    let header = try reader.recordHeader()
                    let dataStart = reader.offset
                    try reader.skip(header.dataLength)
                    if header.type == DNSType.opt {
                        // The high 8 bits of an extended RCODE (RFC 6891 §6.1.3).
                        rcode |= UInt16(header.ttl >> 24) << 4
                        continue
                    }
                    guard section < 2, header.dnsClass == DNSType.internetClass,
                          client.edns?.dnssecOK == true || !Self.dnssecTypes.contains(header.type) || header.type == client.type,
                          let data = relayedData(header.type, in: bytes, at: dataStart, length: header.dataLength, https: https) else {
                        dropped += 1
                        continue
                    }
                    let record = DNSRecord(owner: header.owner, type: header.type, ttl: header.ttl, data: data)
                    if section == 0 { response.answers.append(record) } else { response.authority.append(record) }
                }
            }
            response.rcode = DNSExtendedResponseCode(rawValue: rcode)
            return .response(response, dropped: dropped)
        } catch {
            return .unusable("unreadable: \(error)")
        }
    }

    /// The record's data as relayed: names expanded, hints stripped; nil to drop the record.
    private func relayedData(_ type: UInt16, in bytes: [UInt8], at start: Int, length: Int,
                             https: DNSHTTPSRecords) -> [UInt8]? {
        let data = Array(bytes[start..<(start + length)])
        if type == DNSType.https || type == DNSType.svcb {
            return https == .stripHints ? SVCBHintStripper.strip(data) : data
        }
        guard let layout = Self.namesInData[type] else { return data }
        var reader = DNSWireReader(bytes, at: start)
        do {
            try reader.skip(layout.lead)
            var expanded = Array(bytes[start..<(start + layout.lead)])
            for _ in 0..<layout.names { expanded += try reader.name().wire }
            let tailStart = reader.offset
            try reader.skip(layout.tail)
            expanded += bytes[tailStart..<reader.offset]
            return reader.offset == start + length ? expanded : nil
        } catch {
            return nil
        }
    }
}
