import Testing
@testable import IPDirectCore

/// Which names the DNS listener looks up and which it answers itself, without asking any source.
@Suite struct DNSQueryRouterTests {
    let router = DNSQueryRouter(settings: DNSSettings(), bypass: [HostPattern("*.corp.example")!])

    func query(_ name: String, _ type: UInt16 = DNSType.a) -> DNSQueryMessage {
        DNSQueryMessage(id: 7, recursionDesired: true, checkingDisabled: false, name: DNSName(name)!, type: type, edns: nil)
    }

    func rcode(_ route: DNSQueryRoute) -> DNSExtendedResponseCode? {
        if case .answer(let response, _) = route { return response.rcode }
        return nil
    }

    @Test func addressQueriesForPublicNamesAreLookedUpInLowerCase() {
        #expect(router.route(query("WWW.Example.COM")) == .lookUp(host: "www.example.com", families: [.v4]))
        #expect(router.route(query("www.example.com", DNSType.aaaa)) == .lookUp(host: "www.example.com", families: [.v6]))
        #expect(router.route(query("www.example.com", DNSType.any)) == .lookUp(host: "www.example.com", families: [.v4, .v6]))
    }

    @Test func namesThatOnlyMeanSomethingLocallyGetNXDOMAINWithoutALookup() {
        let table = ["printer", "printer.local", "nas.home.arpa", "x.onion", "anything.invalid", "git.corp.example",
                     "use-application-dns.net"]
        for name in table {
            #expect(rcode(router.route(query(name))) == .nameError, "\(name)")
        }
    }

    @Test func privateReverseZonesAreAnsweredAndPublicOnesRelayed() {
        let table: [(String, DNSExtendedResponseCode?)] = [
            ("5.1.168.192.in-addr.arpa", .nameError),
            ("10.in-addr.arpa", .nameError),
            ("1.0.0.127.in-addr.arpa", .nameError),
            ("16.172.in-addr.arpa", .nameError),
            ("172.in-addr.arpa", nil),
            ("8.8.8.8.in-addr.arpa", nil),
            ("1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.e.f.ip6.arpa", .nameError),
            ("d.f.ip6.arpa", .nameError),
            ("8.8.4.0.1.0.0.2.ip6.arpa", nil),
        ]
        for (name, code) in table {
            #expect(rcode(router.route(query(name, DNSType.ptr))) == code, "\(name)")
        }
    }

    @Test func localhostIsAnsweredForEachFamily() {
        guard case .answer(let v4, _) = router.route(query("localhost")),
              case .answer(let v6, _) = router.route(query("app.localhost", DNSType.aaaa)) else {
            Issue.record("localhost was looked up")
            return
        }
        #expect(v4.answers.map(\.data) == [[127, 0, 0, 1]])
        #expect(v6.answers.map(\.type) == [DNSType.aaaa])
    }

    @Test func theCanaryCanBeAnsweredLikeAnyOtherName() {
        var settings = DNSSettings()
        settings.firefoxCanary = false
        let router = DNSQueryRouter(settings: settings, bypass: [])
        #expect(router.route(query("use-application-dns.net")) == .lookUp(host: "use-application-dns.net", families: [.v4]))
    }

    func router(_ change: (inout DNSSettings) -> Void) -> DNSQueryRouter {
        var settings = DNSSettings()
        change(&settings)
        return DNSQueryRouter(settings: settings, bypass: [HostPattern("*.corp.example")!])
    }

    static let lan = [SocketAddress("192.0.2.53:53")!]

    @Test func localNamesGoToTheForwardServersWhenThereAreSome() {
        let forwarding = router { $0.forward = Self.lan }
        let table: [(String, UInt16)] = [("printer", DNSType.a), ("printer.local", DNSType.aaaa), ("nas.home.arpa", DNSType.a),
                                         ("git.corp.example", DNSType.mx), ("5.1.168.192.in-addr.arpa", DNSType.ptr)]
        for (name, type) in table {
            guard case .forward(let servers, _) = forwarding.route(query(name, type)) else {
                Issue.record("\(name) was not forwarded")
                continue
            }
            #expect(servers == Self.lan, "\(name)")
        }
    }

    @Test func onionInvalidAndLocalhostAreNeverForwarded() {
        let forwarding = router { $0.forward = Self.lan }
        #expect(rcode(forwarding.route(query("x.onion"))) == .nameError)
        #expect(rcode(forwarding.route(query("anything.invalid", DNSType.txt))) == .nameError)
        #expect(rcode(forwarding.route(query("localhost"))) == .noError)
    }

    @Test func otherTypesAreRelayedForTheNameOrRefused() {
        #expect(router.route(query("Example.com", DNSType.mx))
            == .relay(host: "example.com", fallback: [], https: .stripHints, note: "other type relayed"))
        #expect(router.route(query("8.8.8.8.in-addr.arpa", DNSType.ptr))
            == .relay(host: "8.8.8.8.in-addr.arpa", fallback: [], https: .stripHints, note: "other type relayed"))
        let forwarding = router { $0.forward = Self.lan }
        #expect(forwarding.route(query("example.com", DNSType.txt))
            == .relay(host: "example.com", fallback: Self.lan, https: .stripHints, note: "other type relayed"))
        let refusing = router { $0.otherTypes = .refuse }
        #expect(rcode(refusing.route(query("example.com", DNSType.mx))) == .refused)
        #expect(rcode(refusing.route(query("example.com", DNSType.txt))) == .refused)
    }

    @Test func zoneTransfersAreNeverRelayed() {
        for type: UInt16 in [251, 252, DNSType.opt] {
            #expect(rcode(router.route(query("example.com", type))) == .refused, "\(type)")
        }
    }

    @Test func httpsRecordsAreRelayedUnlessAnsweredEmpty() {
        #expect(router.route(query("example.com", DNSType.https))
            == .relay(host: "example.com", fallback: [], https: .stripHints, note: "HTTPS/SVCB relayed (strip_hints)"))
        #expect(router { $0.httpsRecords = .forward }.route(query("example.com", DNSType.svcb))
            == .relay(host: "example.com", fallback: [], https: .forward, note: "HTTPS/SVCB relayed (forward)"))
        guard case .answer(let https, _) = router { $0.httpsRecords = .empty }.route(query("example.com", DNSType.https)) else {
            Issue.record("HTTPS was relayed")
            return
        }
        #expect(https.rcode == .noError && https.answers.isEmpty && https.authority.count == 1)
    }

    @Test func aNameWithAnOctetNoHostNameHasIsRefused() {
        let odd = DNSQueryMessage(id: 1, recursionDesired: true, checkingDisabled: false,
                                  name: DNSName(labels: [Array("a.b".utf8), Array("com".utf8)]), type: DNSType.a, edns: nil)
        #expect(rcode(router.route(odd)) == .refused)
    }
}

extension DNSQueryRouterTests {
    @Test func loopProbesAreAnsweredNXDOMAINWithoutALookupAndReported() {
        let name = DNSLoopGuard.probeName(nonce: 0x1234)
        guard case .loopProbe(let host, let response) = router.route(query(name, DNSType.txt)) else {
            Issue.record("a probe must be routed as one")
            return
        }
        #expect(host == name)
        #expect(response.rcode == .nameError)
    }
}
