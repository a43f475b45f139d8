import Testing
@testable import IPDirectCore

@Suite struct JSONDNSFormatTests {
    private func answer(_ body: String, name: String = "www.example.com", family: AddressFamily = .v4)
        -> Result<ProviderAnswer, ProviderAnswerError>
    {
        JSONDNSFormat.parseAnswer(Array(body.utf8), name: name, family: family)
    }

    private func address(_ text: String, _ ttl: UInt32) -> AnsweredAddress {
        AnsweredAddress(address: IPAddress(text)!, ttl: ttl)
    }

    @Test func buildsGoogleAndCloudflareStyleRequests() {
        let google = JSONDNSFormat.request(endpointPath: "/resolve", name: "www.example.com", family: .v6)
        #expect(google.target == "/resolve?name=www.example.com&type=AAAA")
        #expect(google.headerFields == [.init(name: "Accept", value: "application/dns-json")])
        let cloudflare = JSONDNSFormat.request(endpointPath: "/dns-query", name: "a.test", family: .v4)
        #expect(cloudflare.target == "/dns-query?name=a.test&type=A")
    }

    @Test func sendsTheClientSubnetAsGooglesECSParameter() {
        let v4 = JSONDNSFormat.request(endpointPath: "/resolve", name: "a.test", family: .v4,
                                       clientSubnet: ClientSubnet("203.0.113.0/24"))
        #expect(v4.target == "/resolve?name=a.test&type=A&edns_client_subnet=203.0.113.0%2F24")
        let none = JSONDNSFormat.request(endpointPath: "/resolve", name: "a.test", family: .v6,
                                         clientSubnet: ClientSubnet("0.0.0.0/0"))
        #expect(none.target == "/resolve?name=a.test&type=AAAA&edns_client_subnet=0.0.0.0%2F0")
    }

    @Test func percentEncodesWhatCouldSplitTheQuery() {
        let request = JSONDNSFormat.request(endpointPath: "/resolve?ct=json", name: "a&type=1 #", family: .v4)
        #expect(request.target == "/resolve?ct=json&name=a%26type%3D1%20%23&type=A")
    }

    @Test func followsCNAMEsAndKeepsAddressesWithTheirTTLs() throws {
        let body = """
        {"Status":0,"TC":false,"RD":true,"RA":true,"AD":false,"CD":false,
         "Question":[{"name":"www.example.com.","type":1}],
         "Answer":[{"name":"www.example.com.","type":5,"TTL":3600,"data":"edge.example.net."},
                   {"name":"edge.example.net.","type":1,"TTL":60,"data":"93.184.216.34"},
                   {"name":"edge.example.net.","type":1,"TTL":45,"data":"93.184.216.35"}]}
        """
        let result = try answer(body).get()
        #expect(result == .addresses([address("93.184.216.34", 60), address("93.184.216.35", 45)]))
        #expect(result.smallestTTL == 45)
    }

    @Test func readsAAAARecordsAndMatchesNamesRegardlessOfCaseAndTrailingDot() throws {
        let body = """
        {"Status":0,"Question":[{"name":"WWW.Example.COM","type":28}],
         "Answer":[{"name":"www.example.com","type":28,"TTL":300,"data":"2606:2800:220:1:248:1893:25c8:1946"}]}
        """
        #expect(try answer(body, name: "www.example.com.", family: .v6).get()
            == .addresses([address("2606:2800:220:1:248:1893:25c8:1946", 300)]))
    }

    @Test(arguments: [
        ("{\"Status\":3,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}]}", ProviderAnswer.nameDoesNotExist),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}]}", .noAddresses),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":5,\"TTL\":9,\"data\":\"x.test.\"}]}", .noAddresses),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":16,\"TTL\":9,\"data\":\"\\\"v=spf1\\\"\"}]}", .noAddresses),
    ])
    func turnsNXDOMAINAndNoDataIntoNegativeAnswers(body: String, expected: ProviderAnswer) throws {
        #expect(try answer(body).get() == expected)
    }

    @Test(arguments: [
        ("{\"Status\":2,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}]}", ProviderAnswerError.serverFailure(rcode: 2)),
        ("{\"Status\":5,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}]}", .serverFailure(rcode: 5)),
        ("{\"Status\":0,\"Question\":[{\"name\":\"evil.test.\",\"type\":1}]}", .nameMismatch(asked: "www.example.com", answered: "evil.test")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"evil.test.\",\"type\":1,\"TTL\":9,\"data\":\"10.0.0.1\"}]}",
         .nameMismatch(asked: "www.example.com", answered: "evil.test")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":1,\"TTL\":9,\"data\":\"1.2.3\"}]}",
         .invalidAddress("1.2.3")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":1,\"TTL\":-1,\"data\":\"1.2.3.4\"}]}",
         .invalidTTL("-1")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":1,\"TTL\":2147483648,\"data\":\"1.2.3.4\"}]}",
         .invalidTTL("2147483648")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":1,\"data\":\"1.2.3.4\"}]}",
         .invalidTTL("missing")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":1,\"TTL\":\"60\",\"data\":\"1.2.3.4\"}]}",
         .invalidTTL("60")),
        ("[]", .malformedAnswer("the answer is not a JSON object")),
        ("{\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}]}", .malformedAnswer("Status is missing or not an integer")),
        ("{\"Status\":0}", .malformedAnswer("Question is missing or does not hold exactly one entry")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":28}]}", .malformedAnswer("the Question's type is not A")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":{}}", .malformedAnswer("Answer is not an array")),
        ("{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[{\"name\":\"www.example.com.\",\"type\":28,\"TTL\":9,\"data\":\"::1\"}]}",
         .malformedAnswer("a A query was answered with type 28")),
        ("{\"Status\":0,", .malformedJSON(.unexpectedEnd)),
    ])
    func refusesErrorsAndAnswersThatDoNotFit(body: String, expected: ProviderAnswerError) {
        #expect(answer(body) == .failure(expected))
    }

    @Test func refusesAnIPv6AddressInAnARecord() {
        let body = """
        {"Status":0,"Question":[{"name":"www.example.com.","type":1}],
         "Answer":[{"name":"www.example.com.","type":1,"TTL":9,"data":"::1"}]}
        """
        #expect(answer(body) == .failure(.wrongAddressFamily("::1", expected: .v4)))
    }

    @Test func refusesMoreThanSixtyFourAddresses() {
        let records = (0..<65).map { "{\"name\":\"www.example.com.\",\"type\":1,\"TTL\":9,\"data\":\"10.0.0.\($0)\"}" }
        let body = "{\"Status\":0,\"Question\":[{\"name\":\"www.example.com.\",\"type\":1}],\"Answer\":[\(records.joined(separator: ","))]}"
        #expect(answer(body) == .failure(.tooManyAddresses(count: 65, limit: 64)))
    }

    @Test func refusesBodiesOverSixtyFourKiB() {
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 64 * 1024 + 1)
        #expect(JSONDNSFormat.parseAnswer(body, name: "a.test", family: .v4)
            == .failure(.bodyTooLarge(size: 64 * 1024 + 1, limit: 64 * 1024)))
    }

    @Test func errorsNameTheProblemInWords() {
        #expect(ProviderAnswerError.serverFailure(rcode: 2).description == "DNS error SERVFAIL (RCODE 2)")
        #expect(ProviderAnswerError.nameMismatch(asked: "a.test", answered: "b.test").description
            == "asked for a.test but the answer is for b.test")
    }
}
