import Testing
@testable import IPDirectCore

@Suite struct TencentFormatTests {
    private func answer(_ body: String, families: [AddressFamily] = [.v4, .v6])
        -> Result<ProviderAnswer, ProviderAnswerError>
    {
        TencentFormat.parseAnswer(Array(body.utf8), families: families)
    }

    private func address(_ text: String, _ ttl: UInt32) -> AnsweredAddress {
        AnsweredAddress(address: IPAddress(text)!, ttl: ttl)
    }

    @Test(arguments: [
        ([AddressFamily.v4, .v6], nil as String?, "/d?dn=www.qq.com&ttl=1&type=addrs"),
        ([.v4], nil, "/d?dn=www.qq.com&ttl=1"),
        ([.v6], nil, "/d?dn=www.qq.com&ttl=1&type=AAAA"),
        ([.v4, .v6], "tok+en/1", "/d?dn=www.qq.com&ttl=1&type=addrs&token=tok%2Ben%2F1"),
    ])
    func buildsPlainAndTokenRequests(families: [AddressFamily], token: String?, target: String) {
        #expect(TencentFormat.request(endpointPath: "/d", name: "www.qq.com", families: families, token: token).target == target)
    }

    @Test func sendsTheClientSubnetsAddressAsIPPlainOrEncrypted() {
        let plain = TencentFormat.request(endpointPath: "/d", name: "www.qq.com", families: [.v4, .v6],
                                          clientIP: IPAddress("203.0.113.0"))
        #expect(plain.target == "/d?dn=www.qq.com&ip=203.0.113.0&ttl=1&type=addrs")
        let encrypted = TencentFormat.encryptedRequest(endpointPath: "/d", encryptedName: "5c17c917db033f2eaec316b9c7a5fb82",
                                                       keyID: "1234", algorithm: .des, families: [.v4, .v6],
                                                       encryptedClientIP: "0a0b0c0d0e0f1011")
        #expect(encrypted.target == "/d?dn=5c17c917db033f2eaec316b9c7a5fb82&ip=0a0b0c0d0e0f1011&id=1234&alg=des&ttl=1&type=addrs")
    }

    @Test func buildsTheEncryptedRequestWithKeyIDAndAlgorithm() {
        let request = TencentFormat.encryptedRequest(endpointPath: "/d", encryptedName: "5c17c917db033f2eaec316b9c7a5fb82",
                                                     keyID: "1234", algorithm: .des, families: [.v4, .v6])
        #expect(request.target == "/d?dn=5c17c917db033f2eaec316b9c7a5fb82&id=1234&alg=des&ttl=1&type=addrs")
    }

    /// Expected answers are written as `ProviderAnswer.description` prints them: "address ttl=N, ...".
    @Test(arguments: [
        ("1.2.3.4;5.6.7.8,600", [AddressFamily.v4], "1.2.3.4 ttl=600, 5.6.7.8 ttl=600"),
        ("1.2.3.4;5.6.7.8,600-2402:4e00::1,300", [.v4, .v6], "1.2.3.4 ttl=600, 5.6.7.8 ttl=600, 2402:4e00::1 ttl=300"),
        ("1.2.3.4,600-0", [.v4, .v6], "1.2.3.4 ttl=600"),
        ("1.2.3.4,600", [.v4, .v6], "1.2.3.4 ttl=600"),
        ("0-2402:4e00::1,300", [.v4, .v6], "2402:4e00::1 ttl=300"),
        ("-2402:4e00::1,300", [.v4, .v6], "2402:4e00::1 ttl=300"),
        ("2402:4e00::1;2402:4e00::2,120", [.v6], "2402:4e00::1 ttl=120, 2402:4e00::2 ttl=120"),
        ("1.2.3.4,600\n", [.v4], "1.2.3.4 ttl=600"),
    ])
    func readsAddressesAndTTLsPerFamily(body: String, families: [AddressFamily], expected: String) throws {
        let result = try answer(body, families: families).get()
        guard case .addresses = result else {
            Issue.record("expected addresses, got \(result)")
            return
        }
        #expect(result.description == expected)
    }

    @Test func keepsEachFamilysOwnTTL() throws {
        let result = try answer("1.2.3.4,600-2402:4e00::1,300").get()
        #expect(result == .addresses([address("1.2.3.4", 600), address("2402:4e00::1", 300)]))
        #expect(result.smallestTTL == 300)
    }

    @Test(arguments: ["", "0", "0-0", "\n", "-"])
    func treatsEmptyAndZeroAsNoAddress(body: String) throws {
        #expect(try answer(body).get() == .noAddresses)
    }

    @Test(arguments: [
        ("1.2.3.4;5.6.7.8", [AddressFamily.v4], ProviderAnswerError.invalidTTL("missing")),
        ("1.2.3.4,", [.v4], .invalidTTL("")),
        ("1.2.3.4,+1", [.v4], .invalidTTL("+1")),
        ("1.2.3.4,-1", [.v4], .malformedAnswer("2 '-'-separated parts for 1 address families")),
        ("1.2.3.4,2147483648", [.v4], .invalidTTL("2147483648")),
        ("1.2.3.4,6O0", [.v4], .invalidTTL("6O0")),
        ("1.2.3.4;;5.6.7.8,600", [.v4], .invalidAddress("")),
        ("1.2.3,600", [.v4], .invalidAddress("1.2.3")),
        ("<html>busy</html>", [.v4], .invalidTTL("missing")),
        ("2402:4e00::1,300", [.v4], .wrongAddressFamily("2402:4e00::1", expected: .v4)),
        ("1.2.3.4,600", [.v6], .wrongAddressFamily("1.2.3.4", expected: .v6)),
        ("1.2.3.4,600-1.2.3.5,600", [.v4], .malformedAnswer("2 '-'-separated parts for 1 address families")),
        ("1.2.3.4,600-::1,60-::2,60", [.v4, .v6], .malformedAnswer("3 '-'-separated parts for 2 address families")),
        ("1.2.3.4,600\u{0}", [.v4], .malformedAnswer("the answer is not printable ASCII")),
    ])
    func refusesAnswersThatDoNotFit(body: String, families: [AddressFamily], expected: ProviderAnswerError) {
        #expect(answer(body, families: families) == .failure(expected))
    }

    @Test func refusesMoreThanSixtyFourAddresses() {
        let list = (0..<65).map { "10.0.0.\($0)" }.joined(separator: ";")
        #expect(answer("\(list),60", families: [.v4]) == .failure(.tooManyAddresses(count: 65, limit: 64)))
        let v4 = (0..<40).map { "10.0.0.\($0)" }.joined(separator: ";")
        let v6 = (0..<40).map { "2001:db8::\($0 + 1)" }.joined(separator: ";")
        #expect(answer("\(v4),60-\(v6),60") == .failure(.tooManyAddresses(count: 80, limit: 64)))
    }
}
