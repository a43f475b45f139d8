import Testing
@testable import IPDirectCore

/// RFC 7830 padding of queries to RFC 8467's 128-octet blocks.
@Suite struct EDNSPaddingTests {
    @Test(arguments: [
        // (message length without the option, padding octets): the 4-octet option header always counts.
        (0, 124), (33, 91), (44, 80), (124, 0), (125, 127), (128, 124), (252, 0), (253, 127), (300, 80),
    ])
    func padsTheMessageToAMultipleOf128(length: Int, padding: Int) {
        #expect(EDNSPadding.paddingLength(messageLength: length) == padding)
        #expect((length + 4 + padding) % EDNSPadding.queryBlockSize == 0)
    }

    @Test func writesTheOptionWithCodeTwelveAndZeroOctets() {
        #expect(EDNSPadding.option(paddingLength: 3) == [0, 12, 0, 3, 0, 0, 0])
    }

    @Test func padsAWholeQueryWithAnOPTRecordToOneBlock() throws {
        // Header (12) and the question for www.example.com A (21): what c-ares builds.
        let query = [UInt8](repeating: 0, count: 33)
        let padded = try #require(EDNSRecord.appending(options: [], to: query, paddedTo: 128))
        #expect(padded.count == 128)
        #expect(padded[11] == 1, "ARCOUNT counts the OPT record")
        let withSubnet = try #require(EDNSRecord.appending(options: [[0, 8, 0, 7, 0, 1, 24, 0, 198, 51, 100]], to: query, paddedTo: 128))
        #expect(withSubnet.count == 128)
    }
}
