/// What a template's answer was made from, besides the query. A template made under one stamp is not used
/// under another.
public struct DNSAnswerStamp: Equatable, Sendable {
    /// `ResolverCache.answerChanges` when the template was made.
    public var cacheChanges: UInt64
    /// How many times what is known of addresses (the ranking's input) had changed.
    public var healthChanges: UInt64
    /// Which configuration the worker answered under (a reload moves it on).
    public var settings: UInt64

    public init(cacheChanges: UInt64, healthChanges: UInt64, settings: UInt64) {
        self.cacheChanges = cacheChanges
        self.healthChanges = healthChanges
        self.settings = settings
    }

    static let empty = DNSAnswerStamp(cacheChanges: 0, healthChanges: 0, settings: 0)
}

/// An answer to one A or AAAA question, reduced to what a repeat of the question needs: its addresses in
/// order, how long the cached answer lasts and the TTL cap. The ID, the RD and CD flags and the question's
/// letter case come from the new query, the TTL from the time left; `render` writes the bytes. Made only
/// from a NOERROR response that `render` reproduces octet for octet, so a template never answers other
/// than the full path would.
public struct DNSAnswerTemplate: Equatable, Sendable {
    public var key: DNSTemplateKey
    public var type: UInt16
    public var edns: Bool
    public var dnssecOK: Bool
    /// The addresses' octets, one after the other, in the order they are handed out.
    public var addressBytes: [UInt8]
    /// Where the answer came from, as the query log names it (`cache:google`).
    public var source: String
    public var stamp: DNSAnswerStamp
    public var maxTTLSeconds: UInt32
    /// Monotonic microseconds at which the cached answer's time runs out.
    public var answersExpireMicros: Int64
    /// Monotonic microseconds after which the template is not used: `answersExpireMicros`, or sooner when
    /// the order came from a ranking that moves on its own (ties take turns, an avoided address comes back).
    public var validUntilMicros: Int64

    /// The most address octets a template holds: 16 IPv4 or 4 IPv6 addresses.
    public static let maximumAddressBytes = 64
    /// The largest answer a template writes (header, a 255-octet question, records and OPT).
    public static let maximumSize = DNSQueryMessage.headerSize + 259 + 16 * recordSize(forType: DNSType.a) + optRecordSize
    /// Owner pointer, type, class, TTL and data length of an address record.
    private static let recordHeaderSize = 12
    private static let optRecordSize = 11
    private static let microsPerSecond: Int64 = 1_000_000

    /// `secondsLeft`: the cached answer's time left at `now`; `lifetimeMicros`: how long the template may be
    /// used at most; `udpPayload`: what the OPT record of `response` advertises. Nil when `response` is not
    /// what `render` would write for `query` (`queryBytes`).
    public init?(response: [UInt8], for query: DNSTemplateQuery, _ queryBytes: UnsafeRawBufferPointer, source: String,
                 stamp: DNSAnswerStamp, maxTTLSeconds: Int, secondsLeft: Int64, lifetimeMicros: Int64, udpPayload: Int,
                 now: Int64) {
        let dataLength = Self.dataLength(forType: query.type)
        let answersStart = query.questionEnd
        guard secondsLeft > 0, response.count > answersStart + 7, response[6] == 0 else { return nil }
        let count = Int(response[7])
        guard count > 0, count * dataLength <= Self.maximumAddressBytes,
              response.count == answersStart + count * Self.recordSize(forType: query.type) + (query.edns ? Self.optRecordSize : 0)
        else { return nil }
        var addressBytes: [UInt8] = []
        addressBytes.reserveCapacity(count * dataLength)
        for index in 0..<count {
            let data = answersStart + index * Self.recordSize(forType: query.type) + Self.recordHeaderSize
            addressBytes += response[data..<(data + dataLength)]
        }
        key = query.key
        type = query.type
        edns = query.edns
        dnssecOK = query.dnssecOK
        self.addressBytes = addressBytes
        self.source = source
        self.stamp = stamp
        self.maxTTLSeconds = UInt32(maxTTLSeconds)
        answersExpireMicros = now + secondsLeft * Self.microsPerSecond
        validUntilMicros = min(answersExpireMicros, now + lifetimeMicros)
        let rendered = [UInt8](unsafeUninitializedCapacity: response.count + Self.maximumSize) { output, written in
            written = render(for: query, queryBytes, now: now, udpPayload: udpPayload,
                             into: UnsafeMutableRawBufferPointer(output)) ?? 0
        }
        guard rendered == response else { return nil }
    }

    public static func dataLength(forType type: UInt16) -> Int {
        type == DNSType.a ? 4 : 16
    }

    static func recordSize(forType type: UInt16) -> Int {
        recordHeaderSize + dataLength(forType: type)
    }

    public var addressCount: Int { addressBytes.count / Self.dataLength(forType: type) }

    /// The addresses in order, for the query log.
    public var addresses: [IPAddress] {
        let length = Self.dataLength(forType: type)
        return stride(from: 0, to: addressBytes.count, by: length).compactMap { start in
            IPAddress(bytes: Array(addressBytes[start..<(start + length)]))
        }
    }

    /// Whether the template may still be used at `now` under `stamp`, for any query of its key.
    public func answersAt(_ now: Int64, stamp: DNSAnswerStamp) -> Bool {
        now < validUntilMicros && self.stamp == stamp
    }

    /// Whether the template answers `query` at `now` under `stamp`.
    public func answers(_ query: DNSTemplateQuery, now: Int64, stamp: DNSAnswerStamp) -> Bool {
        query.key == key && answersAt(now, stamp: stamp)
    }

    /// Writes the answer to `query` (whose bytes are `queryBytes`) into `output` and returns its size; nil
    /// when it does not fit. The header as `DNSResponseMessage.encoded` writes it (QR, RA, the query's RD
    /// and CD), the question as this client wrote it (resolvers that randomise letter case, draft-vixie-
    /// dnsext-dns0x20, check that it comes back unchanged), one record per address owned by a pointer to
    /// the question, and an OPT record when the query had one.
    public func render(for query: DNSTemplateQuery, _ queryBytes: UnsafeRawBufferPointer, now: Int64, udpPayload: Int,
                       into output: UnsafeMutableRawBufferPointer) -> Int? {
        let dataLength = Self.dataLength(forType: type)
        let count = addressBytes.count / dataLength
        let size = query.questionEnd + count * (Self.recordHeaderSize + dataLength) + (edns ? Self.optRecordSize : 0)
        guard size <= output.count else { return nil }
        output[0] = UInt8(query.id >> 8)
        output[1] = UInt8(truncatingIfNeeded: query.id)
        output[2] = 0x80 | (query.recursionDesired ? 0x01 : 0)
        output[3] = 0x80 | (query.checkingDisabled ? 0x10 : 0)
        output[4] = 0
        output[5] = 1
        output[6] = 0
        output[7] = UInt8(count)
        output[8] = 0
        output[9] = 0
        output[10] = 0
        output[11] = edns ? 1 : 0
        for index in DNSQueryMessage.headerSize..<query.questionEnd { output[index] = queryBytes[index] }
        let secondsLeft = (answersExpireMicros - now + Self.microsPerSecond - 1) / Self.microsPerSecond
        let ttl = UInt32(max(1, min(secondsLeft, Int64(maxTTLSeconds))))
        var offset = query.questionEnd
        for index in 0..<count {
            output[offset] = 0xC0
            output[offset + 1] = UInt8(DNSQueryMessage.headerSize)
            output[offset + 2] = UInt8(type >> 8)
            output[offset + 3] = UInt8(truncatingIfNeeded: type)
            output[offset + 4] = 0
            output[offset + 5] = UInt8(DNSType.internetClass)
            output[offset + 6] = UInt8(ttl >> 24)
            output[offset + 7] = UInt8(truncatingIfNeeded: ttl >> 16)
            output[offset + 8] = UInt8(truncatingIfNeeded: ttl >> 8)
            output[offset + 9] = UInt8(truncatingIfNeeded: ttl)
            output[offset + 10] = 0
            output[offset + 11] = UInt8(dataLength)
            offset += Self.recordHeaderSize
            for byte in 0..<dataLength { output[offset + byte] = addressBytes[index * dataLength + byte] }
            offset += dataLength
        }
        if edns {
            output[offset] = 0
            output[offset + 1] = UInt8(DNSType.opt >> 8)
            output[offset + 2] = UInt8(truncatingIfNeeded: DNSType.opt)
            output[offset + 3] = UInt8(udpPayload >> 8)
            output[offset + 4] = UInt8(truncatingIfNeeded: udpPayload)
            output[offset + 5] = 0
            output[offset + 6] = 0
            output[offset + 7] = dnssecOK ? 0x80 : 0
            output[offset + 8] = 0
            output[offset + 9] = 0
            output[offset + 10] = 0
            offset += Self.optRecordSize
        }
        return offset
    }
}
