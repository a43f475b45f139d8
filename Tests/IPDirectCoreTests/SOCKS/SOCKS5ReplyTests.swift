import Testing
@testable import IPDirectCore

@Suite struct SOCKS5ReplyTests {
    @Test(arguments: [
        (SOCKS5ReplyCode.succeeded, 0x00),
        (.generalFailure, 0x01),
        (.notAllowedByRuleset, 0x02),
        (.networkUnreachable, 0x03),
        (.hostUnreachable, 0x04),
        (.connectionRefused, 0x05),
        (.ttlExpired, 0x06),
        (.commandNotSupported, 0x07),
        (.addressTypeNotSupported, 0x08),
    ] as [(SOCKS5ReplyCode, UInt8)])
    func saysTheCodeWithNoBoundAddressAsIPv4Zeros(code: SOCKS5ReplyCode, value: UInt8) {
        #expect(SOCKS5Reply.bytes(code) == [5, value, 0, 1, 0, 0, 0, 0, 0, 0])
    }

    @Test func givesAnIPv4BoundAddressAndPort() {
        let bound = SocketAddress(ip: IPAddress("192.0.2.7")!, port: 1080)
        #expect(SOCKS5Reply.bytes(.succeeded, bound: bound) == [5, 0, 0, 1, 192, 0, 2, 7, 0x04, 0x38])
    }

    @Test func givesAnIPv6BoundAddressAndPort() {
        let bound = SocketAddress(ip: IPAddress("2001:db8::7")!, port: 0xABCD)
        #expect(SOCKS5Reply.bytes(.succeeded, bound: bound)
            == [5, 0, 0, 4, 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0xAB, 0xCD])
    }

    @Test func readsBackAsTheRequestItAnswers() {
        // A reply has a request's layout (RFC 1928 §6), so the request reader checks the builder.
        let bound = SocketAddress(ip: IPAddress("::1")!, port: 443)
        var reply = SOCKS5Reply.bytes(.connectionRefused, bound: bound)
        reply[1] = 1
        let request = SOCKSBytes(bytes: reply).message(SOCKS5Request.parse)
        #expect(request == SOCKS5Request(command: .connect, address: .ip(bound.ip), port: 443))
    }
}
