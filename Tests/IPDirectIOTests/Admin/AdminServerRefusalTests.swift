import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// Requests the admin listener refuses on a real socket, each answered with its status and reason and then
/// closed: heads it cannot read, forms it does not serve, a Host that does not name it (a page whose name
/// was rebound to 127.0.0.1, DNS rebinding), and a request that changes state without the marker field or
/// from another origin. In the request texts, `{port}` stands for the listener's port and `{other}` for
/// another one.
@Suite struct AdminServerRefusalTests {
    struct Refusal: Sendable, CustomTestStringConvertible {
        var request: String
        var statusLine: String
        var body: String
        var testDescription: String { "\(statusLine): \(body.dropLast())" }
    }

    static func filled(_ text: String, port: UInt16) -> String {
        text.replacing("{port}", with: String(port)).replacing("{other}", with: String(port == 1 ? 2 : 1))
    }

    /// Sends `refusal.request` on a new connection; the answer must be the refusal, with `Connection: close`,
    /// and the connection must end after it.
    static func expectRefused(_ refusal: Refusal) throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        client.send(filled(refusal.request, port: admin.port))
        let response = try #require(client.readResponse())
        #expect(response.statusLine == refusal.statusLine)
        #expect(response.field("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.field("Connection") == "close")
        #expect(response.body == filled(refusal.body, port: admin.port))
        #expect(client.closedByPeer(), "the listener closes after a refusal")
    }

    static func badRequest(_ request: String, _ reason: String) -> Refusal {
        Refusal(request: request, statusLine: "HTTP/1.1 400 Bad Request", body: reason + "\n")
    }

    @Test(arguments: [
        // Heads the parser refuses.
        badRequest("GET /healthz HTTP/1.1\r\n\r\n", "missing Host field"),
        badRequest("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: localhost:{port}\r\n\r\n", "multiple Host fields"),
        badRequest(" GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n", "whitespace before the request line"),
        badRequest("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                   "multiple Content-Length values"),
        // Well-formed requests in forms the admin listener does not serve.
        badRequest("GET http://127.0.0.1:{port}/healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
                   "admin requests use origin-form targets such as /metrics"),
        badRequest("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 3\r\n\r\nabc", "admin requests take no body"),
    ])
    func aHeadItCannotReadOrAFormItDoesNotServeIsAnswered400AndClosed(_ refusal: Refusal) throws {
        try Self.expectRefused(refusal)
    }

    /// Just past `AdminConnection.limits`: the head's bytes, and its field count.
    static let overlongText = String(repeating: "x", count: AdminConnection.limits.maxHeadBytes)
    static let tooManyFields = (0...AdminConnection.limits.maxFieldCount).map { "X-Field-\($0): 1\r\n" }.joined()

    @Test(arguments: [
        Refusal(request: "GET /\(overlongText) HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n",
                statusLine: "HTTP/1.1 414 URI Too Long", body: "request target too long\n"),
        Refusal(request: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Padding: \(overlongText)\r\n\r\n",
                statusLine: "HTTP/1.1 431 Request Header Fields Too Large", body: "head too large\n"),
        Refusal(request: "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\(tooManyFields)\r\n",
                statusLine: "HTTP/1.1 431 Request Header Fields Too Large", body: "too many header fields\n"),
    ])
    func aHeadPastTheAdminLimitsIsAnswered414Or431AndClosed(_ refusal: Refusal) throws {
        try Self.expectRefused(refusal)
    }

    @Test(arguments: ["rebound.example", "rebound.example:{port}", "127.0.0.1:{other}", "localhost:{other}"])
    func aHostThatDoesNotNameTheListenerIsAnswered421AndClosed(_ host: String) throws {
        try Self.expectRefused(Refusal(
            request: "GET /healthz HTTP/1.1\r\nHost: \(host)\r\n\r\n", statusLine: "HTTP/1.1 421 Misdirected Request",
            body: "Host '\(host)' does not name this admin listener; use its address or localhost with its port\n"))
    }

    @Test(arguments: ["127.0.0.1:{port}", "127.0.0.1", "localhost:{port}", "LocalHost", "[::1]:{port}", ""])
    func aHostNamingTheListenerIsServed(_ host: String) throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        client.send(Self.filled("GET /healthz HTTP/1.1\r\nHost: \(host)\r\n\r\n", port: admin.port))
        let response = try #require(client.readResponse())
        #expect(response.statusLine == "HTTP/1.1 200 OK")
        #expect(response.body == "ok\n")
    }

    static let flush = "POST /cache/flush HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\n"

    @Test(arguments: [
        Refusal(request: flush + "\r\n", statusLine: "HTTP/1.1 403 Forbidden",
                body: "requests that change state need the field 'X-IPDirect-Admin: 1'\n"),
        Refusal(request: flush + "X-IPDirect-Admin: 1\r\nOrigin: http://rebound.example\r\n\r\n", statusLine: "HTTP/1.1 403 Forbidden",
                body: "Origin 'http://rebound.example' is not this admin listener; requests that change state are refused from other origins\n"),
    ])
    func aRequestThatChangesStateIsAnswered403AndClosedWithoutTheMarkerOrFromAnotherOrigin(_ refusal: Refusal) throws {
        try Self.expectRefused(refusal)
    }

    @Test func aRequestThatChangesStateIsServedWithTheMarkerFromTheListenersOwnOrigin() throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        client.send(Self.filled(Self.flush + "X-IPDirect-Admin: 1\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n", port: admin.port))
        let response = try #require(client.readResponse())
        #expect(response.statusLine == "HTTP/1.1 200 OK")
        #expect(response.body == "{\"flushed\":0}\n")
    }
}
