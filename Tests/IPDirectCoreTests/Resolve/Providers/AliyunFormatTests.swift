import Testing
@testable import IPDirectCore

@Suite struct AliyunFormatTests {
    private func answer(_ body: String, families: [AddressFamily] = [.v4, .v6])
        -> Result<ProviderAnswer, ProviderAnswerError>
    {
        AliyunFormat.parseAnswer(Array(body.utf8), name: "www.aliyun.com", families: families)
    }

    private func address(_ text: String, _ ttl: UInt32) -> AnsweredAddress {
        AnsweredAddress(address: IPAddress(text)!, ttl: ttl)
    }

    @Test(arguments: [
        ([AddressFamily.v4, .v6], "/100000/d?host=www.aliyun.com&query=4,6"),
        ([.v6, .v4], "/100000/d?host=www.aliyun.com&query=4,6"),
        ([.v4], "/100000/d?host=www.aliyun.com&query=4"),
        ([.v6], "/100000/d?host=www.aliyun.com&query=6"),
    ])
    func buildsThePlainRequestForTheFamiliesAsked(families: [AddressFamily], target: String) {
        #expect(AliyunFormat.request(accountID: "100000", name: "www.aliyun.com", families: families).target == target)
    }

    @Test func buildsTheSignedRequestFromTheVendorExample() {
        #expect(AliyunFormat.signatureInput(name: "www.aliyun.com", secret: "IAmASecret", expiry: 1534316400)
            == "www.aliyun.com-IAmASecret-1534316400")
        let request = AliyunFormat.signedRequest(accountID: "100000", name: "www.aliyun.com", families: [.v4, .v6],
                                                 expiry: 1534316400, signature: "60c71e98b6d7fcbb366243e224eab457")
        #expect(request.target
            == "/100000/sign_d?host=www.aliyun.com&query=4,6&t=1534316400&s=60c71e98b6d7fcbb366243e224eab457")
    }

    @Test func sendsTheClientSubnetsAddressAsIPOutsideTheSignature() {
        let plain = AliyunFormat.request(accountID: "100000", name: "www.aliyun.com", families: [.v4, .v6],
                                         clientIP: IPAddress("203.0.113.0"))
        #expect(plain.target == "/100000/d?host=www.aliyun.com&query=4,6&ip=203.0.113.0")
        let signed = AliyunFormat.signedRequest(accountID: "100000", name: "www.aliyun.com", families: [.v4],
                                                expiry: 1534316400, signature: "60c71e98b6d7fcbb366243e224eab457",
                                                clientIP: IPAddress("2001:db8:1234:5600::"))
        #expect(signed.target
            == "/100000/sign_d?host=www.aliyun.com&query=4&ip=2001%3Adb8%3A1234%3A5600%3A%3A&t=1534316400&s=60c71e98b6d7fcbb366243e224eab457")
    }

    @Test(arguments: [(600, 1_000_600), (86_400, 1_086_400), (90_000, 1_086_400), (0, 1_000_001), (-5, 1_000_001)])
    func keepsTheSignatureExpiryWithinTwentyFourHours(lifetime: Int, expected: Int) {
        #expect(AliyunFormat.expiry(now: 1_000_000, lifetime: lifetime) == expected)
    }

    @Test func readsBothAddressListsWithTheAnswerTTL() throws {
        let body = """
        {"host":"www.aliyun.com","ips":["106.11.93.21","140.205.32.4"],"ipsv6":["2401:b180:1:50::f"],"ttl":60,"origin_ttl":120}
        """
        #expect(try answer(body).get() == .addresses([
            address("106.11.93.21", 60), address("140.205.32.4", 60), address("2401:b180:1:50::f", 60),
        ]))
    }

    @Test func keepsOnlyTheFamiliesAsked() throws {
        let body = "{\"host\":\"www.aliyun.com\",\"ips\":[\"106.11.93.21\"],\"ipsv6\":[\"2401:b180:1:50::f\"],\"ttl\":60}"
        #expect(try answer(body, families: [.v6]).get() == .addresses([address("2401:b180:1:50::f", 60)]))
    }

    @Test(arguments: [
        "{\"host\":\"www.aliyun.com\",\"ips\":[],\"ttl\":60,\"origin_ttl\":60}",
        "{\"host\":\"WWW.ALIYUN.COM.\",\"ips\":[],\"ipsv6\":[],\"ttl\":60}",
        "{\"host\":\"www.aliyun.com\",\"ttl\":60}",
    ])
    func treatsEmptyListsAsNoAddress(body: String) throws {
        #expect(try answer(body).get() == .noAddresses)
    }

    @Test(arguments: [
        ("{\"code\":\"InvalidAccount\"}", ProviderAnswerError.providerError(code: "InvalidAccount")),
        ("{\"code\":\"SignatureExpired\"}", .providerError(code: "SignatureExpired")),
        ("{\"host\":\"evil.test\",\"ips\":[\"10.0.0.1\"],\"ttl\":60}", .nameMismatch(asked: "www.aliyun.com", answered: "evil.test")),
        ("{\"ips\":[\"10.0.0.1\"],\"ttl\":60}", .malformedAnswer("host is missing")),
        ("{\"host\":\"www.aliyun.com\",\"ips\":[\"10.0.0.1\"]}", .invalidTTL("missing")),
        ("{\"host\":\"www.aliyun.com\",\"ips\":[\"10.0.0.1\"],\"ttl\":\"60\"}", .invalidTTL("60")),
        ("{\"host\":\"www.aliyun.com\",\"ips\":[\"10.0.0.1\"],\"ttl\":6.5}", .invalidTTL("number")),
        ("{\"host\":\"www.aliyun.com\",\"ips\":[\"10.0.0.01\"],\"ttl\":60}", .invalidAddress("10.0.0.01")),
        ("{\"host\":\"www.aliyun.com\",\"ips\":[\"::1\"],\"ttl\":60}", .wrongAddressFamily("::1", expected: .v4)),
        ("{\"host\":\"www.aliyun.com\",\"ipsv6\":[\"10.0.0.1\"],\"ttl\":60}", .wrongAddressFamily("10.0.0.1", expected: .v6)),
        ("{\"host\":\"www.aliyun.com\",\"ips\":\"10.0.0.1\",\"ttl\":60}", .malformedAnswer("ips is not an array")),
        ("{\"host\":\"www.aliyun.com\",\"ips\":[1],\"ttl\":60}", .malformedAnswer("ips holds a number")),
        ("\"ok\"", .malformedAnswer("the answer is not a JSON object")),
        ("{\"host\":\"www.aliyun.com\",\"host\":\"x\"}", .malformedJSON(.duplicateName("host"))),
    ])
    func refusesErrorBodiesAndAnswersThatDoNotFit(body: String, expected: ProviderAnswerError) {
        #expect(answer(body) == .failure(expected))
    }

    @Test func refusesMoreThanSixtyFourAddresses() {
        let list = (0..<65).map { "\"10.0.0.\($0)\"" }.joined(separator: ",")
        #expect(answer("{\"host\":\"www.aliyun.com\",\"ips\":[\(list)],\"ttl\":60}")
            == .failure(.tooManyAddresses(count: 65, limit: 64)))
        let half = (0..<33).map { "\"10.0.0.\($0)\"" }.joined(separator: ",")
        let halfV6 = (0..<32).map { "\"2001:db8::\($0 + 1)\"" }.joined(separator: ",")
        #expect(answer("{\"host\":\"www.aliyun.com\",\"ips\":[\(half)],\"ipsv6\":[\(halfV6)],\"ttl\":60}")
            == .failure(.tooManyAddresses(count: 65, limit: 64)))
    }

    @Test func providerErrorsCarryTheirCode() {
        #expect(ProviderAnswerError.providerError(code: "InvalidAccount").description == "provider error InvalidAccount")
    }
}
