import Testing
@testable import IPDirectCore

/// Which admin endpoint a request reaches, decided from method and target alone.
@Suite struct AdminRouteTests {
    @Test(arguments: [
        (HTTPMethod.get, "/healthz", AdminRoute.health),
        (.head, "/healthz", .health),
        (.get, "/metrics", .metrics),
        (.get, "/cache", .cacheDump),
        (.post, "/cache/flush", .cacheFlush(name: nil)),
        (.post, "/cache/flush?name=Example.COM.", .cacheFlush(name: "example.com")),
        (.get, "/resolve?name=a.test&type=AAAA", .resolve(name: "a.test", family: .v6)),
        (.get, "/resolve?name=a.test&type=aaaa", .resolve(name: "a.test", family: .v6)),
        (.get, "/resolve?name=a.test&type=28", .resolve(name: "a.test", family: .v6)),
        (.get, "/resolve?name=a.test&type=1", .resolve(name: "a.test", family: .v4)),
        (.get, "/resolve?name=a.test", .resolve(name: "a.test", family: .v4)),
        (.get, "/resolve?type=A&name=a%2Etest", .resolve(name: "a.test", family: .v4)),
        (.get, "/resolve?name=192.0.2.1", .resolve(name: "192.0.2.1", family: .v4)),
        (.get, "/resolve?name=a.test&type=MX", .badRequest(reason: "type: 'MX' is not A or AAAA")),
        (.get, "/resolve", .badRequest(reason: "name is required")),
        (.get, "/resolve?name=bad_name!", .badRequest(reason: "name: 'bad_name!' is not a host name")),
        (.post, "/cache/flush?name=a%20b", .badRequest(reason: "name: 'a b' is not a host name")),
        (.get, "/queries", .queries(limit: nil)),
        (.get, "/queries?limit=20", .queries(limit: 20)),
        (.get, "/queries?limit=0", .badRequest(reason: "limit: '0' is not a positive number")),
        (.get, "/queries?limit=many", .badRequest(reason: "limit: 'many' is not a positive number")),
        (.post, "/queries", .methodNotAllowed(allowed: "GET, HEAD")),
        (.get, "/connections", .connections(limit: nil)),
        (.head, "/connections?limit=50", .connections(limit: 50)),
        (.get, "/connections?limit=-1", .badRequest(reason: "limit: '-1' is not a positive number")),
        (.post, "/connections", .methodNotAllowed(allowed: "GET, HEAD")),
        (.post, "/connections/close?id=281474976710657", .closeConnection(id: 281_474_976_710_657)),
        (.post, "/connections/close", .badRequest(reason: "id is required: the id of a connection as GET /connections lists it")),
        (.post, "/connections/close?id=x1", .badRequest(reason: "id: 'x1' is not a connection id")),
        (.get, "/connections/close?id=1", .methodNotAllowed(allowed: "POST")),
        (.post, "/metrics", .methodNotAllowed(allowed: "GET, HEAD")),
        (.delete, "/cache", .methodNotAllowed(allowed: "GET, HEAD")),
        (.get, "/cache/flush", .methodNotAllowed(allowed: "POST")),
        (.get, "/", .notFound(path: "/")),
        (.get, "/metrics/", .notFound(path: "/metrics/")),
        (.post, "/nope?x=1", .notFound(path: "/nope")),
    ] as [(HTTPMethod, String, AdminRoute)])
    func routesRequests(method: HTTPMethod, target: String, route: AdminRoute) {
        #expect(AdminRoute(method: method, target: target) == route)
    }

    @Test func decodesPercentEscapesAndPlusButKeepsBrokenEscapes() {
        #expect(AdminRoute.percentDecoded("a%41+b%zz%4") == "aA b%zz%4")
    }

    @Test func immediateAnswersCarryTheirStatusAndAllowField() {
        #expect(AdminResponse.immediate(for: .health)?.status == 200)
        #expect(AdminResponse.immediate(for: .notFound(path: "/x"))?.status == 404)
        let notAllowed = AdminResponse.immediate(for: .methodNotAllowed(allowed: "POST"))
        #expect(notAllowed?.status == 405)
        #expect(notAllowed?.extraFields.first?.0 == "Allow")
        #expect(notAllowed?.extraFields.first?.1 == "POST")
        #expect(AdminResponse.immediate(for: .metrics) == nil)
    }

    @Test func headResponsesKeepTheLengthButNotTheBody() {
        let response = AdminResponse.text(200, "ok")
        let head = String(decoding: response.bytes(persistence: .close, headOnly: true), as: UTF8.self)
        let fields = "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
            + "Content-Security-Policy: default-src 'none'; frame-ancestors 'none'\r\n"
        #expect(head == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 3\r\n" + fields + "Connection: close\r\n\r\n")
        let full = String(decoding: response.bytes(persistence: .persistent, headOnly: false), as: UTF8.self)
        #expect(full.hasSuffix(fields + "\r\nok\n"))
        let kept = String(decoding: response.bytes(persistence: .keepAlive, headOnly: false), as: UTF8.self)
        #expect(kept.hasSuffix(fields + "Connection: keep-alive\r\n\r\nok\n"))
    }
}
