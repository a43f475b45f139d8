import Testing
@testable import IPDirectCore

/// The proxy's answer for a name as the DNS listener hands it out: families, order, the rebinding guard,
/// `max_addresses`, TTLs and negative answers.
@Suite struct DNSAnswerComposerTests {
    let query = DNSQueryMessage(id: 9, recursionDesired: true, checkingDisabled: false,
                                name: DNSName("www.example.com")!, type: DNSType.a, edns: nil)
    let ranked: [IPAddress] = ["198.51.100.3", "2001:db8::1", "198.51.100.1", "10.0.0.5"].map { IPAddress($0)! }

    func compose(_ result: Result<Resolution, ResolveFailure>, families: [AddressFamily] = [.v4],
                 settings: DNSSettings = DNSSettings(), allowPrivate: Bool = false) -> DNSAnswerComposer.Composed {
        DNSAnswerComposer(settings: settings, allowPrivateUpstreams: allowPrivate).compose(query, families: families, result)
    }

    func addresses(_ composed: DNSAnswerComposer.Composed) -> [IPAddress] {
        composed.response.answers.compactMap { IPAddress(bytes: $0.data) }
    }

    @Test func theFamilyAskedComesInTheOrderGivenWithoutPrivateAddresses() {
        let composed = compose(.success(Resolution(addresses: ranked, source: .httpdns("p"), secondsLeft: [.v4: 300])))
        #expect(addresses(composed) == ["198.51.100.3", "198.51.100.1"].map { IPAddress($0)! })
        #expect(composed.rebindingDrops == 1)
        #expect(composed.response.answers.allSatisfy { $0.ttl == 60 })
    }

    @Test func privateAddressesStayWhenAllowedOrFromHosts() {
        let allowed = compose(.success(Resolution(addresses: ranked, source: .httpdns("p"))), allowPrivate: true)
        #expect(addresses(allowed).count == 3)
        let hosts = compose(.success(Resolution(addresses: ranked, source: .hosts)))
        #expect(addresses(hosts).count == 3 && hosts.response.answers.allSatisfy { $0.ttl == 10 })
    }

    @Test func maxAddressesKeepsTheBest() {
        var settings = DNSSettings()
        settings.maxAddresses = 1
        let composed = compose(.success(Resolution(addresses: ranked, source: .httpdns("p"))), families: [.v4, .v6],
                               settings: settings)
        #expect(addresses(composed) == ["198.51.100.3", "2001:db8::1"].map { IPAddress($0)! })
    }

    @Test func ttlsAreWhatIsLeftCappedAndThirtySecondsWhenStale() {
        let table: [(CacheUse, Int64?, UInt32)] = [
            (.hit(ageMillis: 0), 12, 12),
            (.hit(ageMillis: 0), 0, 1),
            (.hit(ageMillis: 0), 3_600, 60),
            (.miss, nil, 60),
            (.stale(ageMillis: 90_000), 0, 30),
        ]
        for (cache, left, ttl) in table {
            let resolution = Resolution(addresses: ranked, source: .httpdns("p"), cache: cache,
                                        secondsLeft: left.map { [.v4: $0] } ?? [:])
            #expect(compose(.success(resolution)).response.answers.first?.ttl == ttl, "\(cache) \(String(describing: left))")
        }
    }

    @Test func negativeAnswersFollowRFC2308() {
        let table: [(ResolveFailure.Reason, DNSExtendedResponseCode, Int)] = [
            (.notFound, .nameError, 1),
            (.noAddresses(source: "p"), .noError, 1),
            (.timeout, .serverFailure, 0),
            (.failed("every source failed"), .serverFailure, 0),
        ]
        for (reason, code, soaCount) in table {
            let composed = compose(.failure(ResolveFailure(host: "www.example.com", reason: reason)))
            #expect(composed.response.rcode == code, "\(reason)")
            #expect(composed.response.authority.count == soaCount, "\(reason)")
        }
    }

    @Test func aNameWithOnlyTheOtherFamilyGetsNoDataNeverNXDOMAIN() {
        let composed = compose(.success(Resolution(addresses: [IPAddress("2001:db8::1")!], source: .httpdns("p"))))
        #expect(composed.response.rcode == .noError && composed.response.answers.isEmpty)
        #expect(composed.response.authority.map(\.type) == [DNSType.soa])
    }
}
