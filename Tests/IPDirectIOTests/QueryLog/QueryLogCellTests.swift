import IPDirectCore
import Testing
@testable import IPDirectIO

/// What a worker's query log keeps of the lookups it sees.
@Suite struct QueryLogCellTests {
    let client = SocketAddress("127.0.0.1:40000")!

    /// The answer to an A query for `name`, read from the wire as the listener reads it.
    func response(_ name: String, _ addresses: [String]) -> DNSResponseMessage {
        let header: [UInt8] = [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        guard case .query(let query) = DNSQueryMessage.intake(header + DNSName(name)!.wire + [0, 1, 0, 1]) else {
            fatalError("the test's query must be readable")
        }
        var response = query.response()
        response.answers = addresses.map { DNSRecord.address(IPAddress($0)!, owner: query.name, ttl: 60) }
        return response
    }

    @Test func keepsTheListenersQueriesWithTheAddressesAnswered() {
        let cell = QueryLogCell(capacity: 10)
        cell.recordListenerQuery(response("a.test", ["192.0.2.1", "192.0.2.2"]), client: client, source: "google",
                                 detail: nil, startedMicros: MonotonicClock.nowMicros())
        let entry = cell.newestFirst.first
        #expect(entry?.name == "a.test")
        #expect(entry?.type == "A")
        #expect(entry?.outcome == "NOERROR")
        #expect(entry?.addresses == [IPAddress("192.0.2.1")!, IPAddress("192.0.2.2")!])
        #expect(entry?.client == client)
    }

    @Test func leavesOutRequestsThatNamedAnAddress() {
        let cell = QueryLogCell(capacity: 10)
        let literal = Resolution(addresses: [IPAddress("192.0.2.9")!], source: .literal)
        cell.recordProxyLookup(.success(literal), host: "192.0.2.9", client: client, startedMicros: 0)
        let hosts = Resolution(addresses: [IPAddress("192.0.2.9")!], source: .hosts)
        cell.recordProxyLookup(.success(hosts), host: "Intranet.Test", client: client, startedMicros: 0)
        #expect(cell.newestFirst.map(\.name) == ["intranet.test"])
        #expect(cell.newestFirst.first?.source == "hosts")
    }

    @Test func keepsNothingWhenTurnedOff() {
        let cell = QueryLogCell(capacity: 0)
        cell.recordListenerQuery(response("a.test", ["192.0.2.1"]), client: client, source: "google", detail: nil,
                                 startedMicros: 0)
        #expect(!cell.isOn)
        #expect(cell.newestFirst.isEmpty)
    }
}
