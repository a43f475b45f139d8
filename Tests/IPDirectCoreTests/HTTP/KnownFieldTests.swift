import Testing
@testable import IPDirectCore

@Suite struct KnownFieldTests {
    static let names: [(String, KnownField)] = [
        ("te", .te), ("via", .via), ("host", .host), ("expect", .expect), ("upgrade", .upgrade),
        ("trailer", .trailer), ("connection", .connection), ("keep-alive", .keepAlive),
        ("content-length", .contentLength), ("proxy-connection", .proxyConnection),
        ("transfer-encoding", .transferEncoding), ("proxy-authenticate", .proxyAuthenticate),
        ("proxy-authorization", .proxyAuthorization),
    ]

    private func classify(_ name: String) -> KnownField? {
        // The name sits inside a larger buffer, as in a head, so a comparison that reads past it would show.
        let bytes = Array("X\(name):Y".utf8)
        return bytes.withUnsafeBytes { KnownField($0, name: 1..<1 + name.utf8.count) }
    }

    /// The name with each letter upper-cased where `mask` has a bit set.
    private func casing(_ name: String, mask: UInt64) -> String {
        String(name.enumerated().map { index, character in
            mask >> UInt64(index % 64) & 1 == 1 ? Character(character.uppercased()) : character
        })
    }

    @Test(arguments: names)
    func recognisesEachNameInEveryMixOfCase(name: String, expected: KnownField) {
        var generator = SplitMix64(seed: UInt64(name.utf8.count))
        let short = name.count <= 10
        let masks = short ? Array(0..<(UInt64(1) << UInt64(name.count)))
            : [0, ~0, 0x5555_5555_5555_5555, 0xAAAA_AAAA_AAAA_AAAA] + (0..<256).map { _ in generator.next() }
        for mask in masks {
            let spelled = casing(name, mask: mask)
            #expect(classify(spelled) == expected, "\(spelled)")
        }
    }

    @Test(arguments: names)
    func refusesNamesThatDifferInOneByte(name: String, known: KnownField) {
        // Token bytes the case bit changes into something else ('^' into '~', '_' into DEL), and others.
        let replacements: [UInt8] = [UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "0"),
                                     UInt8(ascii: "a"), UInt8(ascii: "z"), UInt8(ascii: "!")]
        let bytes = Array(name.utf8)
        for index in bytes.indices {
            for replacement in replacements where HTTPByte.lowercased(replacement) != bytes[index] {
                var changed = bytes
                changed[index] = replacement
                let text = String(decoding: changed, as: UTF8.self)
                #expect(classify(text) == nil, "\(text.replacingCRLF)")
            }
        }
    }

    @Test(arguments: ["", "t", "hos", "hosts", "x-host", "contentlength", "content_length", "upgrades", "trailers",
                      "connections", "keep-alivE-", "keepalive", "cookie", "accept", "date", "server", "etag",
                      "content-type", "last-modified", "accept-ranges", "user-agent", "proxy-authorization-x"])
    func leavesOtherNamesUnclassified(name: String) {
        #expect(classify(name) == nil)
    }

    @Test func marksTheFieldsThatDescribeOneConnectionAsHopByHop() {
        let hopByHop = Self.names.map(\.1).filter(\.isHopByHop)
        #expect(hopByHop == [.te, .upgrade, .trailer, .connection, .keepAlive, .proxyConnection,
                             .proxyAuthenticate, .proxyAuthorization])
    }
}
