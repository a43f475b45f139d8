import Testing
@testable import IPDirectCore

@Suite struct SOCKS5GreetingTests {
    @Test func readsTheOfferedMethodsInTheClientsOrder() {
        let greeting = SOCKSBytes([5, 3, 2, 0x80, 0]).message(SOCKS5Greeting.parse)
        #expect(greeting?.methods == [2, 0x80, 0])
        #expect(greeting?.offersNoAuthentication == true)
        #expect(greeting?.offersUsernamePassword == true)
    }

    @Test func tellsWhichKnownMethodsAreOffered() {
        let passwordOnly = SOCKSBytes([5, 1, 2]).message(SOCKS5Greeting.parse)
        #expect(passwordOnly?.offersNoAuthentication == false)
        #expect(passwordOnly?.offersUsernamePassword == true)
        let gssapiOnly = SOCKSBytes([5, 1, 1]).message(SOCKS5Greeting.parse)
        #expect(gssapiOnly?.offersNoAuthentication == false)
        #expect(gssapiOnly?.offersUsernamePassword == false)
    }

    @Test func leavesTheBytesAfterTheGreetingToTheNextMessage() {
        let greetingThenRequest = SOCKSBytes([5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 80])
        #expect(greetingThenRequest.message(SOCKS5Greeting.parse, length: 3)?.methods == [0])
    }

    @Test func acceptsAllTwoHundredAndFiftyFiveMethods() {
        let all = SOCKSBytes([5, 255, [UInt8](0...254)])
        #expect(all.bytes.count == SOCKS5Greeting.maximumLength)
        #expect(all.message(SOCKS5Greeting.parse)?.methods.count == 255)
    }

    @Test(arguments: [
        SOCKSBytes([5, 1, 0]),
        SOCKSBytes([5, 2, 0, 2]),
        SOCKSBytes([5, 255, [UInt8](repeating: 0x80, count: 255)]),
    ])
    func asksForMoreOnEveryStrictPrefix(_ greeting: SOCKSBytes) {
        greeting.expectEveryStrictPrefixIncomplete(SOCKS5Greeting.parse)
    }

    static let rejections = [
        SOCKSRejection("a SOCKS4 request", because: "version 4", [4, 1, 0, 80, 127, 0, 0, 1, 0]),
        SOCKSRejection("version 0", because: "version 0", [0]),
        SOCKSRejection("version 6", because: "version 6", [6, 1, 0]),
        SOCKSRejection("an HTTP request", because: "version 71", ["GET / HTTP/1.1\r\n"]),
        SOCKSRejection("a TLS ClientHello", because: "version 22", [0x16, 3, 1]),
        SOCKSRejection("no methods", because: "no authentication methods", [5, 0]),
        SOCKSRejection("no methods and more bytes", because: "no authentication methods", [5, 0, 0, 2]),
    ]

    @Test(arguments: rejections)
    func refuses(_ rejection: SOCKSRejection) {
        rejection.expectRefused(by: SOCKS5Greeting.parse)
    }

    @Test func repliesWithVersionFiveAndTheChosenMethod() {
        #expect(SOCKS5Greeting.reply(method: .noAuthentication) == [5, 0x00])
        #expect(SOCKS5Greeting.reply(method: .usernamePassword) == [5, 0x02])
        #expect(SOCKS5Greeting.reply(method: .noAcceptable) == [5, 0xFF])
    }
}
