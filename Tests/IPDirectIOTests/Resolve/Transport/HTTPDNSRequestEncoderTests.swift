import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct HTTPDNSRequestEncoderTests {
    let endpoint = HTTPDNSEndpoint(isHTTPS: true, host: "DoH.Test", port: 443)

    @Test func endpointAuthorityOmitsTheDefaultPortAndBracketsIPv6() {
        #expect(endpoint.authority == "doh.test")
        #expect(HTTPDNSEndpoint(isHTTPS: true, host: "::1", port: 8443).authority == "[::1]:8443")
        #expect(HTTPDNSEndpoint(isHTTPS: false, host: "203.0.113.1", port: 80).authority == "203.0.113.1")
    }

    @Test func http2FieldsStartWithPseudoHeadersAndLowerCaseNames() {
        let request = HTTPDNSRequest(target: "/dns-query", headerFields: [.init(name: "Accept", value: "application/dns-message"),
                                                                          .init(name: "Connection", value: "close")],
                                     method: .post, body: [1, 2])
        let fields = HTTPDNSRequestEncoder.http2Fields(request, endpoint: endpoint).map { "\($0.name)=\($0.value)" }
        #expect(fields == [":method=POST", ":scheme=https", ":authority=doh.test", ":path=/dns-query",
                           "accept=application/dns-message", "content-length=2"])
    }

    @Test func getCarriesNoContentLength() {
        let bytes = HTTPDNSRequestEncoder.http1Bytes(HTTPDNSRequest(target: "/d?dn=a.test"), authority: "119.29.29.98")
        #expect(String(decoding: bytes, as: UTF8.self) == "GET /d?dn=a.test HTTP/1.1\r\nHost: 119.29.29.98\r\n\r\n")
    }

    @Test(arguments: [
        HTTPDNSRequest(target: "d?dn=a.test"),
        HTTPDNSRequest(target: "/d?dn=a test"),
        HTTPDNSRequest(target: "/d", headerFields: [.init(name: "Bad Name", value: "x")]),
        HTTPDNSRequest(target: "/d", headerFields: [.init(name: "X", value: "a\nb")]),
        HTTPDNSRequest(target: "/d", method: .get, body: [1]),
    ])
    func refusesRequestsThatWouldBreakFraming(request: HTTPDNSRequest) {
        #expect(HTTPDNSRequestEncoder.problem(in: request) != nil)
    }

    @Test func acceptsWhatTheFormatsBuild() {
        let request = AliyunFormat.request(accountID: "139450", name: "www.aliyun.com", families: [.v4, .v6])
        #expect(HTTPDNSRequestEncoder.problem(in: request) == nil)
    }
}
