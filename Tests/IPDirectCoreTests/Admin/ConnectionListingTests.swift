import Testing
@testable import IPDirectCore

/// `GET /connections`: the workers' listings merged, and the JSON the page and curl read.
@Suite struct ConnectionListingTests {
    static func row(_ id: UInt64, started: Int64?, mode: ConnectionRow.Mode = .connect) -> ConnectionRow {
        ConnectionRow(id: id, client: SocketAddress(ip: IPAddress("127.0.0.1")!, port: 40_000), mode: mode,
                      phase: .tunneling, startMicros: started)
    }

    @Test func mergingKeepsTheNewestRowsOfAllWorkersAndAddsEveryCount() {
        var first = ConnectionListing()
        first.rows = [Self.row(3, started: 300), Self.row(1, started: 100)]
        first.total = 10
        first.idle = 2
        first.byMode = [1, 9, 0, 0, 0]
        var second = ConnectionListing()
        second.rows = [Self.row(4, started: 400), Self.row(2, started: nil)]
        second.total = 5
        second.silent = 3
        second.byMode = [0, 5, 0, 0, 0]
        let merged = ConnectionListing.merged([first, second], limit: 3)
        #expect(merged.rows.map(\.id) == [4, 3, 1])
        #expect(merged.total == 15)
        #expect(merged.idle == 2 && merged.silent == 3)
        #expect(merged.byMode == [1, 14, 0, 0, 0])
    }

    @Test func modesAreCountedInTheOrderTheyAreListed() {
        #expect(ConnectionRow.Mode.allCases.map(\.index) == Array(0..<ConnectionRow.Mode.allCases.count))
    }

    @Test func theOrderPutsSessionsBetweenRequestsLast() {
        var order = ListingOrder()
        order.append(start: nil, id: 1)
        order.append(start: 50, id: 2)
        order.append(start: 70, id: 3)
        order.append(start: 50, id: 4)
        #expect(order.newestFirst(limit: 10) == [2, 3, 1, 0])
        #expect(order.newestFirst(limit: 2) == [2, 3])
    }

    @Test func rowsThatBeganTogetherKeepOneOrderBetweenPolls() {
        let rows = [Self.row(5, started: 10), Self.row(9, started: 10), Self.row(7, started: 10)]
        #expect(ConnectionListing.newestFirst(rows, limit: 10).map(\.id) == [9, 7, 5])
        #expect(ConnectionListing.newestFirst(rows.reversed(), limit: 10).map(\.id) == [9, 7, 5])
    }

    @Test func theJSONCarriesTheIdAsTextEscapesNamesAndBracketsIPv6() {
        var row = Self.row(UInt64(1) << 48 | 5, started: 1_000_000)
        row.user = "al\"ice"
        row.authority = UpstreamHostKey(host: "2001:db8::1", port: 443)
        row.serverName = "<img src=x onerror=alert(1)>.test"
        row.upstream = "[2001:db8::1]:443"
        row.rank = 2
        row.attempts = 3
        row.bytesFromClient = 12
        row.bytesToClient = 34
        var listing = ConnectionListing()
        listing.rows = [row]
        listing.total = 1
        listing.byMode = [0, 1, 0, 0, 0]
        let json = AdminJSON.connections(listing, now: 3_500_000)
        #expect(json.hasPrefix(#"{"total":1,"shown":1,"idle":0,"silent":0,"by_mode":{"http":0,"connect":1,"socks5":0,"socks4":0,"transparent":0},"connections":[{"#))
        #expect(json.contains(#""id":"281474976710661""#))
        #expect(json.contains(#""user":"al\"ice""#))
        #expect(json.contains(#""authority":"[2001:db8::1]:443""#))
        #expect(json.contains(#""sni":"<img src=x onerror=alert(1)>.test""#))
        #expect(json.contains(#""rank":2,"attempts":3,"bytes_from_client":12,"bytes_to_client":34,"age_ms":2500}"#))
    }

    @Test func aConnectionBetweenRequestsHasNoAge() {
        var listing = ConnectionListing()
        listing.rows = [Self.row(1, started: nil)]
        #expect(AdminJSON.connections(listing, now: 5).contains(#""age_ms":null"#))
    }
}
