import IPDirectCore
import Testing
@testable import IPDirectIO
import IPDirectTesting

/// What the admin listener answers on a real socket, and when it keeps the connection: `/healthz`, an unknown
/// path, `/metrics` read from the registry at the moment of the request, and pipelined requests.
@Suite struct AdminServerAnswerTests {
    @Test func healthzIsAnsweredOkAndTheConnectionServesASecondRequest() throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        for _ in 0..<2 {
            client.send(admin.get("/healthz"))
            let response = try #require(client.readResponse())
            #expect(response.statusLine == "HTTP/1.1 200 OK")
            #expect(response.field("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.field("Content-Length") == "3")
            #expect(response.field("Cache-Control") == "no-store")
            #expect(response.field("Connection") == nil, "HTTP/1.1 keeps the connection without saying so")
            #expect(response.body == "ok\n")
        }
        #expect(client.wait(millis: 100) == .nothing, "the connection stays open after the answers")
    }

    /// What the request says about the connection decides the `Connection` field and whether it stays open.
    struct PersistenceCase: Sendable, CustomTestStringConvertible {
        var version: String
        var connectionField: String?
        var answeredConnectionField: String?
        var staysOpen: Bool
        var testDescription: String { "\(version) Connection: \(connectionField ?? "-")" }
    }

    @Test(arguments: [
        PersistenceCase(version: "HTTP/1.1", connectionField: "close", answeredConnectionField: "close", staysOpen: false),
        PersistenceCase(version: "HTTP/1.0", connectionField: nil, answeredConnectionField: "close", staysOpen: false),
        PersistenceCase(version: "HTTP/1.0", connectionField: "keep-alive", answeredConnectionField: "keep-alive", staysOpen: true),
    ])
    func healthzKeepsOrClosesTheConnectionAsTheRequestAsks(_ persistence: PersistenceCase) throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        let connection = persistence.connectionField.map { "Connection: \($0)\r\n" } ?? ""
        client.send("GET /healthz \(persistence.version)\r\nHost: localhost:\(admin.port)\r\n\(connection)\r\n")
        let response = try #require(client.readResponse())
        #expect(response.statusLine == "HTTP/1.1 200 OK")
        #expect(response.field("Connection") == persistence.answeredConnectionField)
        #expect(response.body == "ok\n")
        if persistence.staysOpen {
            #expect(client.wait(millis: 100) == .nothing)
            client.send(admin.get("/healthz"))
            #expect(client.readResponse()?.status == 200)
        } else {
            #expect(client.closedByPeer(), "the listener closes once the answer is written")
        }
    }

    @Test func anUnknownPathIsAnswered404AndTheConnectionServesTheNextRequest() throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        client.send(admin.get("/nowhere?x=1"))
        let response = try #require(client.readResponse())
        #expect(response.statusLine == "HTTP/1.1 404 Not Found")
        #expect(response.field("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.field("Connection") == nil)
        #expect(response.body == "no admin endpoint at /nowhere\n")
        client.send(admin.get("/healthz"))
        #expect(client.readResponse()?.status == 200)
    }

    @Test func pipelinedRequestsAreAnsweredInTheirOrder() throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        client.send(admin.get("/nowhere") + admin.get("/healthz") + admin.get("/also-nowhere"))
        #expect(client.readResponse()?.body == "no admin endpoint at /nowhere\n")
        #expect(client.readResponse()?.body == "ok\n")
        #expect(client.readResponse()?.body == "no admin endpoint at /also-nowhere\n")
    }

    @Test func aHEADIsAnsweredWithTheBodysLengthButNotTheBody() throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let client = try admin.connect()
        // The 404 right behind it would be read as the body if one were sent.
        client.send("HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(admin.port)\r\n\r\n" + admin.get("/nowhere"))
        let head = try #require(client.readResponse(toHEAD: true))
        #expect(head.statusLine == "HTTP/1.1 200 OK")
        #expect(head.field("Content-Length") == "3")
        let next = try #require(client.readResponse())
        #expect(next.statusLine == "HTTP/1.1 404 Not Found")
    }

    @Test func metricsAnswersPrometheusTextWithTheRegistrysCountsAtEachScrape() throws {
        let admin = try RunningAdminServer()
        defer { admin.stop() }
        let served = { (count: Int) in
            for _ in 0..<count {
                admin.traffic.update { $0.countExchange(method: "GET", status: 204, bytesFromClient: 0, bytesToClient: 0) }
            }
        }
        served(2)
        let client = try admin.connect()
        client.send(admin.get("/metrics"))
        let first = try #require(client.readResponse())
        #expect(first.statusLine == "HTTP/1.1 200 OK")
        #expect(first.field("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(first.field("Content-Length") == String(first.body.utf8.count))
        #expect(first.body.contains("# TYPE ipdirect_requests_total counter\n"))
        #expect(first.body.contains("\nipdirect_requests_total{method=\"GET\",status=\"204\"} 2\n"))
        served(1)
        client.send(admin.get("/metrics"))
        let second = try #require(client.readResponse())
        #expect(second.body.contains("\nipdirect_requests_total{method=\"GET\",status=\"204\"} 3\n"),
                "each scrape reads the registry anew")
    }
}
