import Testing
@testable import IPDirectCore

/// HTTPS and SVCB RDATA relayed without `ipv4hint` and `ipv6hint` (RFC 9460 §7.3), everything else as it was.
@Suite struct SVCBHintStripperTests {
    /// SvcPriority 1, TargetName ".", then each parameter as key, length, value.
    static func rdata(_ params: [(UInt16, [UInt8])], target: [UInt8] = [0]) -> [UInt8] {
        var bytes: [UInt8] = [0, 1] + target
        for (key, value) in params {
            bytes += [UInt8(key >> 8), UInt8(key & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        return bytes
    }

    static let alpn: (UInt16, [UInt8]) = (1, [2, 0x68, 0x32])
    static let v4Hint: (UInt16, [UInt8]) = (4, [192, 0, 2, 1, 192, 0, 2, 2])
    static let echConfig: (UInt16, [UInt8]) = (5, [0xAB, 0xCD])
    static let v6Hint: (UInt16, [UInt8]) = (6, [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1])

    @Test func dropsBothHintsAndKeepsTheOtherParametersInOrder() {
        let stripped = SVCBHintStripper.strip(Self.rdata([Self.alpn, Self.v4Hint, Self.echConfig, Self.v6Hint]))
        #expect(stripped == Self.rdata([Self.alpn, Self.echConfig]))
    }

    @Test func leavesRecordsWithoutHintsAsTheyAre() {
        let table = [Self.rdata([]), Self.rdata([Self.alpn]), Self.rdata([Self.alpn], target: [3, 0x63, 0x64, 0x6E, 0])]
        for rdata in table {
            #expect(SVCBHintStripper.strip(rdata) == rdata)
        }
    }

    @Test func removesTheHintsFromTheMandatoryListAndAnEmptyListWithThem() {
        let mandatory: (UInt16, [UInt8]) = (0, [0, 1, 0, 4])
        #expect(SVCBHintStripper.strip(Self.rdata([mandatory, Self.alpn, Self.v4Hint]))
            == Self.rdata([(0, [0, 1]), Self.alpn]))
        #expect(SVCBHintStripper.strip(Self.rdata([(0, [0, 4, 0, 6]), Self.v4Hint, Self.v6Hint])) == Self.rdata([]))
    }

    @Test func refusesRDATAItCannotRead() {
        let table: [[UInt8]] = [
            [0],                                            // no room for SvcPriority
            [0, 1],                                         // no TargetName
            [0, 1, 0xC0, 0x00],                             // a compressed TargetName
            [0, 1, 0, 0, 4, 0, 8, 192, 0, 2, 1],            // a value shorter than its length
            [0, 1, 0, 0, 0, 0, 3, 0, 1, 0],                 // a mandatory list of odd length
        ]
        for rdata in table {
            #expect(SVCBHintStripper.strip(rdata) == nil, "\(rdata)")
        }
    }
}
