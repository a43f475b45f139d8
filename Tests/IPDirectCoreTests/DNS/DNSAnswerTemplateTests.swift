import Testing
@testable import IPDirectCore

/// Answers kept in wire form: a repeat of the question gets the bytes the full path would send, with its
/// own ID, flags and letter case and the TTL counted down; anything else is not answered from a template.
@Suite struct DNSAnswerTemplateTests {
    let stamp = DNSAnswerStamp(cacheChanges: 3, healthChanges: 7, settings: 1)
    let addresses: [IPAddress] = ["198.51.100.3", "198.51.100.1"].map { IPAddress($0)! }
    let start: Int64 = 5_000_000_000

    /// A query as a stub resolver writes it: RD set, one question, class IN, with or without an OPT record.
    func queryBytes(_ name: String, type: UInt16 = DNSType.a, id: UInt16 = 0x1234, flags: UInt16 = 0x0100,
                    opt: [UInt8]? = nil) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF), 0, 1, 0, 0, 0, 0, 0,
                              opt == nil ? 0 : 1]
        for label in name.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += Array(label.utf8)
        }
        bytes += [0, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
        if let opt { bytes += opt }
        return bytes
    }

    /// An OPT record offering `size` octets, DO as given, no options.
    func opt(size: UInt16 = 1232, dnssecOK: Bool = false, version: UInt8 = 0, options: [UInt8] = []) -> [UInt8] {
        [0, 0, 41, UInt8(size >> 8), UInt8(size & 0xFF), 0, version, dnssecOK ? 0x80 : 0, 0,
         UInt8(options.count >> 8), UInt8(options.count & 0xFF)] + options
    }

    func read(_ bytes: [UInt8]) -> DNSTemplateQuery? {
        bytes.withUnsafeBytes { DNSTemplateQuery.read($0) }
    }

    /// What the full path sends for `bytes` with `addresses` left `secondsLeft` seconds in the cache.
    func fullPathAnswer(_ bytes: [UInt8], secondsLeft: Int64 = 300, settings: DNSSettings = DNSSettings()) -> [UInt8] {
        guard case .query(let query) = DNSQueryMessage.intake(bytes) else {
            Issue.record("not a query")
            return []
        }
        let resolution = Resolution(addresses: addresses + [IPAddress("2001:db8::1")!], source: .httpdns("p"),
                                    cache: .hit(ageMillis: 0), secondsLeft: [.v4: secondsLeft, .v6: secondsLeft])
        let families: [AddressFamily] = query.type == DNSType.aaaa ? [.v6] : [.v4]
        var response = DNSAnswerComposer(settings: settings, allowPrivateUpstreams: false)
            .compose(query, families: families, .success(resolution)).response
        if response.edns != nil { response.edns?.udpPayloadSize = settings.udpPayloadSize }
        return response.encoded(limit: query.udpLimit(serverLimit: settings.udpPayloadSize))
    }

    func template(_ bytes: [UInt8], secondsLeft: Int64 = 300, lifetime: Int64 = .max / 2,
                  settings: DNSSettings = DNSSettings()) -> DNSAnswerTemplate? {
        guard let query = read(bytes) else { return nil }
        return bytes.withUnsafeBytes { queryBytes in
            DNSAnswerTemplate(response: fullPathAnswer(bytes, secondsLeft: secondsLeft, settings: settings), for: query,
                              queryBytes, source: "cache:p", stamp: stamp, maxTTLSeconds: settings.maxTTLSeconds,
                              secondsLeft: secondsLeft, lifetimeMicros: lifetime, udpPayload: settings.udpPayloadSize,
                              now: start)
        }
    }

    /// The template's answer to `bytes` at `now`, or nil when it does not answer it.
    func answer(_ template: DNSAnswerTemplate, _ bytes: [UInt8], now: Int64, udpPayload: Int = 1232) -> [UInt8]? {
        guard let query = read(bytes) else { return nil }
        return bytes.withUnsafeBytes { queryBytes -> [UInt8]? in
            guard template.answers(query, now: now, stamp: stamp) else { return nil }
            return [UInt8](unsafeUninitializedCapacity: DNSAnswerTemplate.maximumSize) { output, count in
                count = template.render(for: query, queryBytes, now: now, udpPayload: udpPayload,
                                        into: UnsafeMutableRawBufferPointer(output)) ?? 0
            }
        }
    }

    /// What the table answers for `bytes`.
    func answer(_ table: inout DNSAnswerTemplateTable, _ bytes: [UInt8], now: Int64,
                stamp: DNSAnswerStamp? = nil) -> [UInt8]? {
        guard let query = read(bytes) else { return nil }
        return bytes.withUnsafeBytes { queryBytes -> [UInt8]? in
            var answered = false
            let output = [UInt8](unsafeUninitializedCapacity: DNSAnswerTemplate.maximumSize) { output, count in
                let written = table.answer(query, queryBytes, now: now, stamp: stamp ?? self.stamp, udpPayload: 1232,
                                           into: UnsafeMutableRawBufferPointer(output))
                answered = written != nil
                count = written?.size ?? 0
            }
            return answered ? output : nil
        }
    }

    @Test func aRepeatGetsTheBytesTheFullPathSends() throws {
        let first = queryBytes("www.example.com")
        let made = try #require(template(first))
        for repeated in [queryBytes("WwW.ExAmple.COM", id: 0xBEEF), queryBytes("www.example.com", id: 1, flags: 0x0010),
                         queryBytes("www.example.com", type: DNSType.aaaa)] {
            let expected = fullPathAnswer(repeated)
            if repeated[repeated.count - 3] == 28 {
                #expect(answer(made, repeated, now: start) == nil, "another type has another template")
            } else {
                #expect(answer(made, repeated, now: start) == expected)
            }
        }
    }

    @Test func ednsAndDOSelectTheirOwnTemplates() throws {
        let plain = try #require(template(queryBytes("www.example.com")))
        let withEDNS = queryBytes("www.example.com", opt: opt())
        let withDO = queryBytes("www.example.com", opt: opt(dnssecOK: true))
        #expect(answer(plain, withEDNS, now: start) == nil)
        let ednsTemplate = try #require(template(withEDNS))
        #expect(answer(ednsTemplate, withEDNS, now: start) == fullPathAnswer(withEDNS))
        #expect(answer(ednsTemplate, withDO, now: start) == nil)
        #expect(read(withEDNS)?.key != read(withDO)?.key && read(withEDNS)?.key != read(queryBytes("www.example.com"))?.key)
        #expect(read(queryBytes("WWW.example.com"))?.key == read(queryBytes("www.example.com"))?.key)
        // Options the listener does not act on (a cookie) do not change the answer.
        let withCookie = queryBytes("www.example.com", opt: opt(options: [0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(answer(ednsTemplate, withCookie, now: start) == fullPathAnswer(withCookie))
    }

    @Test func ttlsCountDownAndTheTemplateEndsWithTheCachedAnswer() throws {
        var settings = DNSSettings()
        settings.maxTTLSeconds = 600
        let bytes = queryBytes("www.example.com")
        let made = try #require(template(bytes, secondsLeft: 300, settings: settings))
        let ttlOffset = bytes.count + 6
        func ttl(_ answer: [UInt8]?) -> Int? {
            answer.map { Int($0[ttlOffset]) << 24 | Int($0[ttlOffset + 1]) << 16 | Int($0[ttlOffset + 2]) << 8 | Int($0[ttlOffset + 3]) }
        }
        #expect(ttl(answer(made, bytes, now: start)) == 300)
        #expect(ttl(answer(made, bytes, now: start + 100_500_000)) == 200)
        #expect(ttl(answer(made, bytes, now: start + 299_999_999)) == 1)
        #expect(answer(made, bytes, now: start + 300_000_000) == nil)
        let capped = try #require(template(bytes, secondsLeft: 300))
        #expect(ttl(answer(capped, bytes, now: start)) == 60)
        let ranked = try #require(template(bytes, lifetime: 1_000_000))
        #expect(answer(ranked, bytes, now: start + 999_999) != nil)
        #expect(answer(ranked, bytes, now: start + 1_000_000) == nil)
    }

    @Test func queriesOfAnotherShapeAreNotRead() {
        let name = "www.example.com"
        #expect(read(queryBytes(name)) != nil)
        #expect(read(queryBytes(name, type: 16)) == nil, "TXT")
        #expect(read(queryBytes(name, flags: 0x8100)) == nil, "a response")
        #expect(read(queryBytes(name, flags: 0x2100)) == nil, "opcode 4")
        #expect(read(queryBytes(name, opt: opt(version: 1))) == nil, "EDNS version 1 gets BADVERS on the full path")
        var twoQuestions = queryBytes(name)
        twoQuestions[5] = 2
        #expect(read(twoQuestions) == nil)
        var chaos = queryBytes(name)
        chaos[chaos.count - 1] = 3
        #expect(read(chaos) == nil)
        var pointer = queryBytes(name)
        pointer[12] = 0xC0
        #expect(read(pointer) == nil)
        let longLabel = queryBytes(String(repeating: "a", count: 64) + ".com")
        #expect(read(longLabel) == nil)
        for length in 0..<queryBytes(name).count {
            #expect(read(Array(queryBytes(name).prefix(length))) == nil, "cut at \(length)")
        }
        var lyingOPT = queryBytes(name, opt: opt())
        lyingOPT[lyingOPT.count - 1] = 40
        #expect(read(lyingOPT) == nil, "OPT data longer than the message")
    }

    @Test func onlyAPlainAddressAnswerBecomesATemplate() throws {
        let bytes = queryBytes("www.example.com")
        let query = try #require(read(bytes))
        var truncated = fullPathAnswer(bytes)
        truncated[2] |= 0x02
        var nxdomain = fullPathAnswer(bytes)
        nxdomain[3] |= 0x03
        var otherTTLs = fullPathAnswer(bytes)
        otherTTLs[bytes.count + 9] ^= 1
        for response in [truncated, nxdomain, otherTTLs, Array(fullPathAnswer(bytes).dropLast())] {
            let made = bytes.withUnsafeBytes { queryBytes in
                DNSAnswerTemplate(response: response, for: query, queryBytes, source: "s", stamp: stamp, maxTTLSeconds: 60,
                                  secondsLeft: 300, lifetimeMicros: 1_000_000, udpPayload: 1232, now: start)
            }
            #expect(made == nil)
        }
        #expect(template(bytes, secondsLeft: 0) == nil)
        let made = try #require(template(bytes))
        #expect(made.addresses == addresses)
        #expect(query.hostName(bytes.withUnsafeBytes { $0 }) == "www.example.com")
    }

    @Test func theTableDropsTemplatesOfAnotherStampOrPastTheirTime() throws {
        var table = DNSAnswerTemplateTable(slots: 4)
        let bytes = queryBytes("www.example.com")
        table.keep(try #require(template(bytes, lifetime: 1_000_000)), now: start)
        #expect(answer(&table, bytes, now: start) == fullPathAnswer(bytes))
        #expect(answer(&table, bytes, now: start, stamp: DNSAnswerStamp(cacheChanges: 4, healthChanges: 7, settings: 1)) == nil)
        #expect(table.count == 0)
        table.keep(try #require(template(bytes, lifetime: 1_000_000)), now: start)
        #expect(answer(&table, bytes, now: start + 1_000_000) == nil)
        #expect(table.count == 0)
    }

    @Test func aFullSetGivesUpItsLeastRecentlyUsedTemplate() throws {
        // One set: every template competes for its ways.
        var table = DNSAnswerTemplateTable(slots: DNSAnswerTemplateTable.ways)
        let names = (0...DNSAnswerTemplateTable.ways).map { "n\($0).example" }
        for name in names.dropLast() { table.keep(try #require(template(queryBytes(name))), now: start) }
        #expect(table.count == DNSAnswerTemplateTable.ways)
        // n0 is used again, so n1 is the least recently used when the last name arrives.
        #expect(answer(&table, queryBytes(names[0]), now: start) != nil)
        table.keep(try #require(template(queryBytes(names.last!))), now: start)
        #expect(table.count == DNSAnswerTemplateTable.ways)
        #expect(answer(&table, queryBytes(names[1]), now: start) == nil)
        for name in names where name != names[1] {
            #expect(answer(&table, queryBytes(name), now: start) == fullPathAnswer(queryBytes(name)), "\(name)")
        }
    }
}

extension DNSAnswerTemplateTests {
    @Test func theTableGrowsWithItsTemplatesUpToItsSize() throws {
        var table = DNSAnswerTemplateTable(slots: 1_024)
        #expect(table.capacity == 0)
        let names = (0..<600).map { "name-\($0).example" }
        for name in names { table.keep(try #require(template(queryBytes(name))), now: start) }
        #expect(table.capacity == 1_024)
        #expect(table.count > 500 && table.count <= 600)
        let answered = names.filter { answer(&table, queryBytes($0), now: start) == fullPathAnswer(queryBytes($0)) }
        #expect(answered.count == table.count)
        for name in (600..<2_000).map({ "more-\($0).example" }) { table.keep(try #require(template(queryBytes(name))), now: start) }
        #expect(table.capacity == 1_024 && table.count > 1_000 && table.count <= 1_024)
    }
}
