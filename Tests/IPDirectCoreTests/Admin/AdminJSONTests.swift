import Testing
@testable import IPDirectCore

/// The JSON the admin API answers with: the cache dump and Google's JSON DNS schema.
@Suite struct AdminJSONTests {
    @Test func answersInGoogleSchemaWithTheFamilyAskedAndTheTTLLeft() {
        let resolution = Resolution(addresses: [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!],
                                    source: .httpdns("google"), cache: .hit(ageMillis: 5),
                                    secondsLeft: [.v4: 120, .v6: 60])
        #expect(AdminJSON.dnsAnswer(name: "a.test", family: .v4, result: .success(resolution)) ==
            #"{"Status":0,"TC":false,"RD":true,"RA":true,"AD":false,"CD":false,"Question":[{"name":"a.test.","type":1}],"Answer":[{"name":"a.test.","type":1,"TTL":120,"data":"192.0.2.1"}],"Comment":"source=cache:google"}"#)
        #expect(AdminJSON.dnsAnswer(name: "a.test", family: .v6, result: .success(resolution)).contains(
            #""Answer":[{"name":"a.test.","type":28,"TTL":60,"data":"2001:db8::1"}]"#))
    }

    @Test func noAddressOfTheFamilyIsNoErrorWithoutAnswer() {
        let resolution = Resolution(addresses: [IPAddress("192.0.2.1")!], source: .hosts)
        let json = AdminJSON.dnsAnswer(name: "a.test", family: .v6, result: .success(resolution))
        #expect(json.hasPrefix(#"{"Status":0,"#))
        #expect(!json.contains("Answer"))
    }

    @Test func failuresAreNXDOMAINOrSERVFAILWithTheReason() {
        let missing = AdminJSON.dnsAnswer(name: "nope.test", family: .v4,
                                          result: .failure(ResolveFailure(host: "nope.test", reason: .notFound)))
        #expect(missing.hasPrefix(#"{"Status":3,"#))
        #expect(missing.contains(#""Comment":"cannot resolve nope.test: no such name""#))
        let down = AdminJSON.dnsAnswer(name: "a.test", family: .v4,
                                       result: .failure(ResolveFailure(host: "a.test", reason: .timeout)))
        #expect(down.hasPrefix(#"{"Status":2,"#))
    }

    @Test func dumpsTheCacheWithTTLLeftAndSource() {
        let rows = [
            CacheSnapshotRow(name: "a.test", family: .v4, addresses: [IPAddress("192.0.2.1")!], secondsLeft: -3, source: "google"),
            CacheSnapshotRow(name: "gone.test", family: .v6, addresses: [], secondsLeft: 20, source: "system"),
        ]
        #expect(AdminJSON.cacheDump(rows) ==
            #"{"entries":[{"name":"a.test","type":"A","addresses":["192.0.2.1"],"ttl_left":-3,"source":"google","negative":false},{"name":"gone.test","type":"AAAA","addresses":[],"ttl_left":20,"source":"system","negative":true}],"size":2}"#)
    }

    @Test func escapesStringsAsRFC8259Requires() {
        #expect(JSONText.quoted("a\"b\\c\n\u{1}") == #""a\"b\\c\n\u0001""#)
    }
}
