import Testing
@testable import IPDirectCore

/// Which admin requests are refused as possibly sent by a web page: a Host that is not the listener's
/// (421), and, for anything but GET and HEAD, a foreign Origin or a missing marker (403).
@Suite struct AdminRefusalTests {
    static let listener = SocketAddress("127.0.0.1:8081")!
    static let authority = AdminAuthority(listening: [listener], arrivedOn: listener)
    static let own = "127.0.0.1:8081"
    static let ownOrigin = "http://127.0.0.1:8081"
    static let foreignOrigin = "http://evil.example"

    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let method: HTTPMethod
        let fields: AdminRequestFields
        let refusal: AdminRefusal?

        init(_ label: String, _ method: HTTPMethod, host: String?, origins: [String] = [], marker: Bool = false,
             _ refusal: AdminRefusal?)
        {
            self.label = label
            self.method = method
            fields = AdminRequestFields(host: host, origins: origins, hasMarker: marker)
            self.refusal = refusal
        }

        var testDescription: String { label }
    }

    @Test(arguments: [
        Case("a read from a local tool", .get, host: own, nil),
        Case("a HEAD from a local tool", .head, host: "localhost:8081", nil),
        Case("a read through a rebound name", .get, host: "evil.example", origins: [foreignOrigin],
             .misdirected(host: "evil.example")),
        Case("a read through a name that starts like the address", .get, host: "127.0.0.1.evil.example:8081",
             .misdirected(host: "127.0.0.1.evil.example:8081")),
        Case("a read naming another port", .get, host: "127.0.0.1:8082", .misdirected(host: "127.0.0.1:8082")),
        // The page cannot read the answer: the admin API sends no Access-Control-Allow-Origin.
        Case("a read from a page of another origin", .get, host: own, origins: [foreignOrigin], nil),
        Case("a read without Host", .get, host: nil, nil),
        Case("a read with an empty Host", .get, host: "", nil),
        Case("a flush through a rebound name, even with marker and own origin", .post, host: "evil.example:8081",
             origins: [ownOrigin], marker: true, .misdirected(host: "evil.example:8081")),
        Case("a flush from curl with the marker", .post, host: own, marker: true, nil),
        Case("a flush from this listener's own page with the marker", .post, host: own, origins: [ownOrigin],
             marker: true, nil),
        Case("a flush from localhost's own page with the marker", .post, host: "localhost:8081",
             origins: ["http://localhost:8081"], marker: true, nil),
        Case("a flush without the marker", .post, host: own, .missingMarker),
        Case("a flush from this listener's own page without the marker", .post, host: own, origins: [ownOrigin],
             .missingMarker),
        Case("a flush from another origin with the marker", .post, host: own, origins: [foreignOrigin], marker: true,
             .foreignOrigin(foreignOrigin)),
        Case("a flush from another origin without the marker", .post, host: own, origins: [foreignOrigin],
             .foreignOrigin(foreignOrigin)),
        Case("a flush from an opaque origin", .post, host: own, origins: ["null"], marker: true, .foreignOrigin("null")),
        Case("a flush from this listener on another port", .post, host: own, origins: ["http://127.0.0.1:8082"],
             marker: true, .foreignOrigin("http://127.0.0.1:8082")),
        Case("a flush with a second, foreign Origin", .post, host: own, origins: [ownOrigin, foreignOrigin],
             marker: true, .foreignOrigin(foreignOrigin)),
        Case("an HTTP/1.0 flush without Host, with the marker", .post, host: nil, marker: true, nil),
        Case("an HTTP/1.0 flush without Host or marker", .post, host: nil, .missingMarker),
        Case("any method but GET and HEAD needs the marker", .delete, host: own, .missingMarker),
        Case("OPTIONS too", .options, host: own, .missingMarker),
        Case("an unknown method too", .other, host: own, .missingMarker),
    ])
    func refusesRequestsAWebPageCouldSend(_ row: Case) {
        #expect(AdminRefusal(method: row.method, fields: row.fields, authority: Self.authority) == row.refusal)
    }

    @Test func aMisdirectedRequestIsAnswered421NamingTheHost() {
        let response = AdminRefusal.misdirected(host: "evil.example").response
        #expect(response.status == 421)
        #expect(response.body.contains("'evil.example'"))
        let head = String(decoding: response.bytes(persistence: .close, headOnly: true), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 421 Misdirected Request\r\n"))
    }

    @Test func aForeignOriginIsAnswered403NamingTheOrigin() {
        let response = AdminRefusal.foreignOrigin("http://evil.example").response
        #expect(response.status == 403)
        #expect(response.body.contains("'http://evil.example'"))
    }

    @Test func aMissingMarkerIsAnswered403NamingTheField() {
        let response = AdminRefusal.missingMarker.response
        #expect(response.status == 403)
        #expect(response.body.contains("'X-IPDirect-Admin: 1'"))
    }

    @Test func refusalsReadAsLogFields() {
        #expect("\(AdminRefusal.misdirected(host: "evil.example"))" == "misdirected host=evil.example")
        #expect("\(AdminRefusal.foreignOrigin("a \"b\""))" == "foreign_origin origin=\"a \\\"b\\\"\"")
        #expect("\(AdminRefusal.missingMarker)" == "missing_marker field=X-IPDirect-Admin")
    }
}
