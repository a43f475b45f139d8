import Testing
@testable import IPDirectCore

@Suite struct SOCKS5CredentialsTests {
    @Test func readsTheUsernameAndPassword() {
        let credentials = SOCKSBytes([1, 5, "alice", 6, "s3cr3t"]).message(SOCKS5Credentials.parse)
        #expect(credentials == SOCKS5Credentials(username: "alice", password: "s3cr3t"))
    }

    @Test func readsUTF8() {
        let credentials = SOCKSBytes([1, 5, "jörg", 12, "пароль"]).message(SOCKS5Credentials.parse)
        #expect(credentials == SOCKS5Credentials(username: "jörg", password: "пароль"))
    }

    @Test func keepsCaseAndSpacesAsSent() {
        let credentials = SOCKSBytes([1, 3, "A b", 3, " X "]).message(SOCKS5Credentials.parse)
        #expect(credentials == SOCKS5Credentials(username: "A b", password: " X "))
    }

    @Test func acceptsFieldsOfTwoHundredAndFiftyFiveBytes() {
        let longest = SOCKSBytes([1, 255, String(repeating: "u", count: 255), 255, String(repeating: "p", count: 255)])
        #expect(longest.bytes.count == SOCKS5Credentials.maximumLength)
        let credentials = longest.message(SOCKS5Credentials.parse)
        #expect(credentials?.username.utf8.count == 255)
        #expect(credentials?.password.utf8.count == 255)
    }

    @Test func leavesTheBytesAfterTheCredentialsToTheRequest() {
        let credentialsThenRequest = SOCKSBytes([1, 1, "a", 1, "b", 5, 1, 0, 1, 127, 0, 0, 1, 0, 80])
        #expect(credentialsThenRequest.message(SOCKS5Credentials.parse, length: 5)?.username == "a")
    }

    @Test(arguments: [
        SOCKSBytes([1, 1, "a", 1, "b"]),
        SOCKSBytes([1, 5, "alice", 6, "s3cr3t"]),
        SOCKSBytes([1, 5, "jörg", 12, "пароль"]),
    ])
    func asksForMoreOnEveryStrictPrefix(_ credentials: SOCKSBytes) {
        credentials.expectEveryStrictPrefixIncomplete(SOCKS5Credentials.parse)
    }

    static let rejections = [
        SOCKSRejection("SOCKS version 5 in place of the subnegotiation's 1", because: "version 5",
                       [5, 1, "a", 1, "b"]),
        SOCKSRejection("version 0", because: "version 0", [0, 1, "a", 1, "b"]),
        SOCKSRejection("an empty username", because: "empty username", [1, 0]),
        SOCKSRejection("an empty password", because: "empty password", [1, 1, "a", 0]),
        SOCKSRejection("a username that is not UTF-8", because: "username is not UTF-8", [1, 2, [0xC3, 0x28], 1, "b"]),
        SOCKSRejection("a username cut inside a character", because: "username is not UTF-8",
                       [1, 2, "a", [0xC3], 1, "b"]),
        SOCKSRejection("a password that is not UTF-8", because: "password is not UTF-8", [1, 1, "a", 1, [0xFF]]),
        SOCKSRejection("a password in Latin-1", because: "password is not UTF-8", [1, 1, "a", 4, [0x70, 0xE4, 0x73, 0x73]]),
    ]

    @Test(arguments: rejections)
    func refuses(_ rejection: SOCKSRejection) {
        rejection.expectRefused(by: SOCKS5Credentials.parse)
    }

    @Test func repliesWithStatusZeroOnlyWhenAccepted() {
        #expect(SOCKS5Credentials.reply(accepted: true) == [1, 0])
        #expect(SOCKS5Credentials.reply(accepted: false) == [1, 1])
    }

    @Test func neverDescribesThePassword() {
        let credentials = SOCKS5Credentials(username: "alice", password: "s3cr3t")
        #expect(!credentials.description.contains("s3cr3t"))
        #expect(credentials.description.contains("alice"))
    }
}
