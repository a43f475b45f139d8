import Testing
@testable import IPDirectCore

@Suite struct HexTests {
    @Test func encodesInLowerCase() {
        #expect(Hex.encode([0x00, 0x5C, 0xFF]) == "005cff")
        #expect(Hex.encode([]) == "")
    }

    @Test(arguments: [("005cff", [UInt8]([0x00, 0x5C, 0xFF])), ("ABcd", [0xAB, 0xCD]), ("", [])])
    func decodesEitherCase(text: String, expected: [UInt8]) {
        #expect(Hex.decode(text) == expected)
    }

    @Test(arguments: ["abc", "0g", "0x00", " 00", "00\n"])
    func refusesOddLengthsAndNonHexCharacters(text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
