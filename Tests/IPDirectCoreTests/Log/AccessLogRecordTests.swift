import Testing
@testable import IPDirectCore

@Suite struct AccessLogRecordTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(951_782_400_123), "2000-02-29T00:00:00.123Z"),
        (Int64(1_795_355_285_007), "2026-11-22T13:48:05.007Z"),
    ])
    func formatsUTCTimestamps(millis: Int64, expected: String) {
        #expect(Timestamp.rfc3339(unixMillis: millis) == expected)
    }

    @Test func lineCarriesEveryField() {
        let record = AccessLogRecord(unixMillis: 0, client: "127.0.0.1:5000", method: "GET", target: "a.test:80",
                                     upstream: "127.0.0.1:8080", source: "hosts", status: 200, bytesFromClient: 77,
                                     bytesToClient: 1234, resolveMicros: 12, connectMicros: 340, attempts: 2, addressRank: 2,
                                     totalMicros: 1_250, note: "")
        #expect(record.line == "1970-01-01T00:00:00.000Z client=127.0.0.1:5000 method=GET target=a.test:80 upstream=127.0.0.1:8080 source=hosts cache_age_ms=- status=200 bytes_in=77 bytes_out=1234 resolve_ms=0.0 connect_ms=0.3 attempts=2 rank=2 total_ms=1.3 user=-\n")
    }

    @Test func aRedirectedConnectionSaysWhereItWasGoingAndWhatNamedItsHost() {
        let connection = TransparentSummary(original: SocketAddress(ip: IPAddress("198.51.100.9")!, port: 443),
                                            sniffed: .tls, serverName: "origin.test")
        let record = AccessLogRecord(unixMillis: 0, client: "10.0.0.2:5000", method: "TLS", target: "origin.test:443",
                                     upstream: "203.0.113.3:443", source: "stub", status: 200, bytesFromClient: 517,
                                     bytesToClient: 4_000, resolveMicros: 0, connectMicros: 0, totalMicros: 0,
                                     note: "", transparent: connection)
        #expect(record.line.hasSuffix(" user=- mode=transparent orig=198.51.100.9:443 sniffed=tls sni=origin.test\n"))
    }
}

@Suite struct AccessLogCacheAgeTests {
    @Test func cachedAnswersCarryTheirAge() {
        let record = AccessLogRecord(unixMillis: 0, client: "c", method: "GET", target: "a.test:80", upstream: "u",
                                     source: "cache:google", cacheAgeMillis: 4_250, status: 200, bytesFromClient: 0,
                                     bytesToClient: 0, resolveMicros: 0, connectMicros: 0, totalMicros: 0, note: "")
        #expect(record.line.contains(" source=cache:google cache_age_ms=4250 status=200 "))
    }

    @Test func aPooledRequestShowsNoAttemptsAndAnExchangeWithoutUpstreamNoRank() {
        let record = AccessLogRecord(unixMillis: 0, client: "c", method: "GET", target: "a.test:80", upstream: "-",
                                     source: "-", status: 502, bytesFromClient: 0, bytesToClient: 0, resolveMicros: 0,
                                     connectMicros: 0, totalMicros: 0, note: "")
        #expect(record.line.contains(" attempts=0 rank=- "))
    }
}
