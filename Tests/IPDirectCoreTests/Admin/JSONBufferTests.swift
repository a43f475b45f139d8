import Testing
@testable import IPDirectCore

/// The byte writer of long answers writes what `JSONText` writes.
@Suite struct JSONBufferTests {
    @Test(arguments: ["a.test", "", "quote\" and \\ back", "line\nbreak\r\ttab", "\u{1}\u{1F}", "ünïcödé ✓",
                      "<img src=x onerror=alert(1)>"])
    func stringsAreEscapedAsJSONTextEscapesThem(value: String) {
        var buffer = JSONBuffer(capacity: 16)
        buffer.string(value)
        #expect(buffer.text == JSONText.quoted(value))
    }

    @Test func integersAndNullsAreWrittenInDecimal() {
        var buffer = JSONBuffer(capacity: 64)
        buffer.integer(0)
        buffer.raw(",")
        buffer.integer(-42)
        buffer.raw(",")
        buffer.integer(UInt64.max)
        buffer.raw(",")
        buffer.integer(Int64.min)
        buffer.raw(",")
        buffer.integer(Int?.none)
        buffer.raw(",")
        buffer.string(nil)
        #expect(buffer.text == "0,-42,18446744073709551615,-9223372036854775808,null,null")
    }

    @Test(arguments: ["192.0.2.1:443", "0.0.0.0:0", "255.255.255.255:65535", "[2001:db8::1]:443"])
    func addressesAreWrittenAsTheirText(text: String) throws {
        let address = try #require(SocketAddress(text))
        var buffer = JSONBuffer(capacity: 32)
        buffer.address(address)
        #expect(buffer.text == JSONText.quoted(address.description))
    }

    @Test(arguments: [("a.test", UInt16(443)), ("192.0.2.1", 80), ("2001:db8::1", 8443), ("q\"uote.test", 1)])
    func authoritiesAreWrittenAsHostNameWithPortWritesThem(host: String, port: UInt16) {
        var buffer = JSONBuffer(capacity: 8)
        buffer.hostPort(host, port)
        #expect(buffer.text == JSONText.quoted(HostName.withPort(host, port)))
    }

    @Test func aLongAnswerGrowsItsBuffer() {
        var buffer = JSONBuffer(capacity: 8)
        let name = String(repeating: "n", count: 1000)
        for _ in 0..<10 { buffer.string(name) }
        #expect(buffer.bytes.count == 10 * 1002)
    }
}
