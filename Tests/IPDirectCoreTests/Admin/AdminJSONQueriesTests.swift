import Testing
@testable import IPDirectCore

/// The `/queries` body: one object per lookup (with the repeats counted in it), newest first, hijacked
/// names marked.
@Suite struct AdminJSONQueriesTests {
    @Test func rendersEachLookupWithItsSourceAnswerAndHijackMark() {
        var entries = [
            QueryLogEntry(origin: .dns, monotonicMicros: 2, unixMillis: 1_795_000_000_123,
                          client: SocketAddress("127.0.0.1:5353")!, name: "a.test", type: "AAAA", source: "cache:google",
                          outcome: "NOERROR", addresses: [IPAddress("2001:db8::1")!], elapsedMicros: 42),
            QueryLogEntry(origin: .proxy, monotonicMicros: 1, unixMillis: 1_795_000_000_000, client: nil, name: "b.test",
                          type: "A+AAAA", source: "-", outcome: "NXDOMAIN", detail: "no such name", addresses: [],
                          elapsedMicros: 7),
        ]
        entries[1].repeats = 3
        let json = AdminJSON.queries(entries, capacity: 1000, hijackedNames: ["a.test"])
        #expect(json == #"{"enabled":true,"capacity":1000,"queries":[{"time":"2026-11-18T11:06:40.123Z","origin":"dns","client":"127.0.0.1:5353","name":"a.test","type":"AAAA","source":"cache:google","outcome":"NOERROR","addresses":["2001:db8::1"],"elapsed_us":42,"repeats":0,"hijack":true},{"time":"2026-11-18T11:06:40.000Z","origin":"proxy","client":null,"name":"b.test","type":"A+AAAA","source":"-","outcome":"NXDOMAIN","detail":"no such name","addresses":[],"elapsed_us":7,"repeats":3,"hijack":false}]}"#)
    }

    @Test func aLogTurnedOffSaysSo() {
        #expect(AdminJSON.queries([], capacity: 0, hijackedNames: []) == #"{"enabled":false,"capacity":0,"queries":[]}"#)
    }
}
