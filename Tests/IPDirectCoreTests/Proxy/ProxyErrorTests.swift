import Testing
@testable import IPDirectCore

@Suite struct ProxyErrorTests {
    @Test func responseCarriesProxyStatusAndOneLineBody() {
        let error = ProxyError(status: 502, kind: .dnsError, details: "cannot resolve nope.test: no such name")
        let text = String(decoding: error.response(proxyName: "ipdirect", persistence: .persistent), as: UTF8.self)
        let parts = text.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init)
        #expect(parts[0].hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(parts[0].contains("Proxy-Status: ipdirect; error=dns_error; details=\"cannot resolve nope.test: no such name\""))
        #expect(parts[0].contains("Content-Length: \(parts[1].utf8.count)"))
        #expect(!parts[0].contains("Connection: close"))
        #expect(parts[1] == "ipdirect: cannot resolve nope.test: no such name\n")
    }

    @Test func closingResponseSaysConnectionClose() {
        let text = String(decoding: ProxyError(status: 400, kind: .httpRequestError, details: "bad").response(proxyName: "p", persistence: .close), as: UTF8.self)
        #expect(text.contains("\r\nConnection: close\r\n"))
    }

    @Test func keptHTTP10ConnectionSaysConnectionKeepAlive() {
        let error = ProxyError(status: 502, kind: .dnsError, details: "cannot resolve nope.test")
        let text = String(decoding: error.response(proxyName: "p", persistence: .keepAlive), as: UTF8.self)
        #expect(text.contains("\r\nContent-Length: "))
        #expect(text.contains("\r\nConnection: keep-alive\r\n\r\n"))
    }

    @Test func uriTooLongHasItsReasonPhrase() {
        let error = ProxyError.badRequest(HTTPParseError(status: 414, reason: "request target too long"))
        let text = String(decoding: error.response(proxyName: "p", persistence: .close), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 414 URI Too Long\r\n"))
        #expect(text.contains("error=http_request_error"))
    }

    @Test func detailsAreEscapedAsStructuredFieldString() {
        let error = ProxyError(status: 400, kind: .httpRequestError, details: "quote \" backslash \\ tab\t")
        let text = String(decoding: error.response(proxyName: "p", persistence: .close), as: UTF8.self)
        #expect(text.contains(#"details="quote \" backslash \\ tab?""#))
    }

    @Test func tlsFailuresUseRFC9209ErrorTypes() {
        #expect(ProxyError.Kind.tlsProtocolError.rawValue == "tls_protocol_error")
        #expect(ProxyError.Kind.tlsCertificateError.rawValue == "tls_certificate_error")
        let error = ProxyError(status: 502, kind: .tlsCertificateError,
                               details: "TLS to a.test (127.0.0.1:443) failed: certificate has expired")
        let text = String(decoding: error.response(proxyName: "ipdirect", persistence: .persistent), as: UTF8.self)
        #expect(text.contains("Proxy-Status: ipdirect; error=tls_certificate_error; details=\"TLS to a.test (127.0.0.1:443) failed: certificate has expired\""))
    }

    @Test func resolveFailuresMapToDNSErrorTypes() {
        #expect(ResolveFailure(host: "a.test", reason: .notFound).proxyError.kind == .dnsError)
        #expect(ResolveFailure(host: "a.test", reason: .timeout).proxyError.status == 504)
        #expect(ResolveFailure(host: "a.test", reason: .notFound).proxyError.details.contains("a.test"))
    }
}
