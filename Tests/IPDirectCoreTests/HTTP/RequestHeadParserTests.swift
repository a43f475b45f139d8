import Testing
@testable import IPDirectCore

@Suite struct RequestHeadParserTests {
    // MARK: Rejections

    static let h = "Host: a.test\r\n"

    static let framingRejections: [Rejection] = [
        Rejection("Content-Length with Transfer-Encoding", because: "Content-Length and Transfer-Encoding together",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Rejection("Transfer-Encoding before Content-Length", because: "Content-Length and Transfer-Encoding together",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"),
        Rejection("two equal Content-Length fields", because: "multiple Content-Length values",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 5\r\nContent-Length: 5\r\n\r\n"),
        Rejection("two different Content-Length fields", because: "multiple Content-Length values",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 5\r\ncontent-length: 6\r\n\r\n"),
        Rejection("a Content-Length list", because: "invalid Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 5, 5\r\n\r\n"),
        Rejection("an empty Content-Length", because: "empty Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: \r\n\r\n"),
        Rejection("a plus-signed Content-Length", because: "invalid Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: +5\r\n\r\n"),
        Rejection("a negative Content-Length", because: "invalid Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: -5\r\n\r\n"),
        Rejection("a non-digit Content-Length", because: "invalid Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 5a\r\n\r\n"),
        Rejection("a hex Content-Length", because: "invalid Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 0x5\r\n\r\n"),
        Rejection("a Content-Length with inner space", because: "invalid Content-Length",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 5 5\r\n\r\n"),
        Rejection("a Content-Length over UInt64", because: "Content-Length too large",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 18446744073709551616\r\n\r\n"),
        Rejection("a Content-Length of many digits", because: "Content-Length too large",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 99999999999999999999999\r\n\r\n"),
        Rejection("a final transfer coding other than chunked", because: "final transfer coding is not chunked",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: gzip\r\n\r\n"),
        Rejection("chunked before another coding", because: "chunked is not the final transfer coding",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked, gzip\r\n\r\n"),
        Rejection("chunked before another coding on a second line", because: "chunked is not the final transfer coding",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n"),
        Rejection("an unknown transfer coding alone", because: "final transfer coding is not chunked",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: foo\r\n\r\n", 400),
        Rejection("a misspelled chunked", because: "final transfer coding is not chunked",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: xchunked\r\n\r\n", 400),
        Rejection("an unknown coding before chunked", because: "unsupported transfer coding",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: foo, chunked\r\n\r\n", 501),
        Rejection("chunked applied twice in one field", because: "chunked applied more than once",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked, chunked\r\n\r\n"),
        Rejection("chunked applied twice in two fields", because: "chunked applied more than once",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Rejection("chunked with parameters", because: "transfer coding with parameters",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked;q=1\r\n\r\n"),
        Rejection("an empty Transfer-Encoding", because: "empty transfer coding in Transfer-Encoding",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding:\r\n\r\n"),
        Rejection("an empty element in Transfer-Encoding", because: "empty transfer coding in Transfer-Encoding",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: , chunked\r\n\r\n"),
        Rejection("a quoted transfer coding", because: "invalid Transfer-Encoding",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: \"chunked\"\r\n\r\n"),
        Rejection("Transfer-Encoding in an HTTP/1.0 request", because: "Transfer-Encoding in an HTTP/1.0 request",
                  "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"),
        Rejection("Connection naming Content-Length", because: "Connection names a framing field",
                  "POST / HTTP/1.1\r\n\(h)Content-Length: 1\r\nConnection: content-length\r\n\r\n"),
        Rejection("Connection naming Transfer-Encoding", because: "Connection names a framing field",
                  "POST / HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\nConnection: Transfer-Encoding\r\n\r\n"),
        Rejection("a non-token Connection option", because: "invalid Connection token",
                  "GET / HTTP/1.1\r\n\(h)Connection: clo\"se\r\n\r\n"),
        Rejection("a CONNECT with a Content-Length body", because: "CONNECT request with a body",
                  "CONNECT a.test:443 HTTP/1.1\r\n\(h)Content-Length: 5\r\n\r\n"),
        Rejection("a CONNECT with a chunked body", because: "CONNECT request with a body",
                  "CONNECT a.test:443 HTTP/1.1\r\n\(h)Transfer-Encoding: chunked\r\n\r\n"),
    ]

    static let lineRejections: [Rejection] = [
        Rejection("a bare CR ending the request line", because: "bare CR in head", "GET / HTTP/1.1\r\(h)\r\n"),
        Rejection("a bare CR inside a field value", because: "bare CR in head",
                  "GET / HTTP/1.1\r\n\(h)X-A: b\rc\r\n\r\n"),
        Rejection("a bare CR before the final LF", because: "bare CR in head", "GET / HTTP/1.1\r\n\(h)\r\r\n"),
        Rejection("a bare LF ending the request line", because: "bare LF in head", "GET / HTTP/1.1\n\(h)\r\n"),
        Rejection("a bare LF ending a field line", because: "bare LF in head",
                  "GET / HTTP/1.1\r\nHost: a.test\n\r\n"),
        Rejection("a bare LF ending the head", because: "bare LF in head", "GET / HTTP/1.1\r\n\(h)\n"),
        Rejection("a bare LF inside a field value", because: "bare LF in head",
                  "GET / HTTP/1.1\r\n\(h)X-A: b\nc\r\n\r\n"),
        Rejection("only LF line ends", because: "bare LF in head", "GET / HTTP/1.1\nHost: a.test\n\n"),
        Rejection("a NUL in a field value", because: "control character in field value",
                  bytes: Array("GET / HTTP/1.1\r\n\(h)X-A: b".utf8) + [0] + Array("c\r\n\r\n".utf8)),
        Rejection("a NUL in the request target", because: "invalid character in request target",
                  bytes: Array("GET /a".utf8) + [0] + Array(" HTTP/1.1\r\n\(h)\r\n".utf8)),
        Rejection("a NUL in a field name", because: "invalid character in field name",
                  bytes: Array("GET / HTTP/1.1\r\n\(h)X".utf8) + [0] + Array("A: b\r\n\r\n".utf8)),
        Rejection("a vertical tab in a field value", because: "control character in field value",
                  "GET / HTTP/1.1\r\n\(h)X-A: b\u{0B}c\r\n\r\n"),
        Rejection("an escape in a field value", because: "control character in field value",
                  "GET / HTTP/1.1\r\n\(h)X-A: \u{1B}[0m\r\n\r\n"),
        Rejection("a DEL in a field value", because: "control character in field value",
                  "GET / HTTP/1.1\r\n\(h)X-A: b\u{7F}\r\n\r\n"),
        Rejection("a tab in the request line", because: "invalid method", "GET\t/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an obs-fold continuation with a space", because: "line starts with whitespace (obs-fold)",
                  "GET / HTTP/1.1\r\n\(h)X-A: b\r\n c\r\n\r\n"),
        Rejection("an obs-fold continuation with a tab", because: "line starts with whitespace (obs-fold)",
                  "GET / HTTP/1.1\r\n\(h)X-A: b\r\n\tc\r\n\r\n"),
        Rejection("whitespace before the first field", because: "line starts with whitespace (obs-fold)",
                  "GET / HTTP/1.1\r\n \(h)\r\n"),
        Rejection("a space between field name and colon", because: "whitespace between field name and colon",
                  "GET / HTTP/1.1\r\nHost : a.test\r\n\r\n"),
        Rejection("a tab between field name and colon", because: "whitespace between field name and colon",
                  "GET / HTTP/1.1\r\n\(h)X-A\t: b\r\n\r\n"),
        Rejection("an empty field name", because: "empty field name", "GET / HTTP/1.1\r\n\(h): b\r\n\r\n"),
        Rejection("a parenthesis in a field name", because: "invalid character in field name",
                  "GET / HTTP/1.1\r\n\(h)X(A): b\r\n\r\n"),
        Rejection("an at sign in a field name", because: "invalid character in field name",
                  "GET / HTTP/1.1\r\n\(h)X@A: b\r\n\r\n"),
        Rejection("a non-ASCII field name", because: "invalid character in field name",
                  "GET / HTTP/1.1\r\n\(h)Xé: b\r\n\r\n"),
        Rejection("a field line without colon", because: "field line without colon",
                  "GET / HTTP/1.1\r\n\(h)X-A\r\n\r\n"),
        Rejection("whitespace before the request line", because: "whitespace before the request line",
                  " GET / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a tab before the request line", because: "whitespace before the request line",
                  "\tGET / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("two empty lines before the request line", because: "more than one empty line",
                  "\r\n\r\nGET / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a bare LF before the request line", because: "bare LF in head", "\nGET / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an empty line and then a bare LF", because: "more than one empty line before the request line",
                  "\r\n\nGET / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("two spaces after the method", because: "extra space in request line",
                  "GET  / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("two spaces before the version", because: "extra space in request line",
                  "GET /  HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a space after the version", because: "extra space in request line", "GET / HTTP/1.1 \r\n\(h)\r\n"),
        Rejection("a space inside the target", because: "extra space in request line",
                  "GET /a b HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an HTTP/0.9 request line", because: "request line without HTTP version", "GET /\r\n\(h)\r\n"),
        Rejection("a method alone", because: "request line without target", "GET\r\n\(h)\r\n"),
        Rejection("an empty request line", because: "more than one empty line before the request line", "\r\n\r\n"),
        Rejection("a request line starting with a space", because: "whitespace before the request line",
                  "\r\n GET / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a lower-case version", because: "invalid HTTP version", "GET / http/1.1\r\n\(h)\r\n"),
        Rejection("a version with two minor digits", because: "invalid HTTP version", "GET / HTTP/1.10\r\n\(h)\r\n"),
        Rejection("a version without minor", because: "invalid HTTP version", "GET / HTTP/1\r\n\(h)\r\n"),
        Rejection("HTTP/2.0", because: "HTTP version not supported", "GET / HTTP/2.0\r\n\(h)\r\n", 505),
        Rejection("HTTP/0.9 spelled out", because: "HTTP version not supported", "GET / HTTP/0.9\r\n\(h)\r\n", 505),
        Rejection("HTTP/1.2", because: "HTTP version not supported", "GET / HTTP/1.2\r\n\(h)\r\n", 505),
        Rejection("a non-token method", because: "invalid method", "GE(T / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a non-ASCII method", because: "invalid method", "GÉT / HTTP/1.1\r\n\(h)\r\n"),
    ]

    static let targetRejections: [Rejection] = [
        Rejection("absolute-form with userinfo", because: "absolute-form target: userinfo in authority",
                  "GET http://u:p@a.test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("absolute-form with a user only", because: "absolute-form target: userinfo in authority",
                  "GET http://u@a.test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("absolute-form without host", because: "absolute-form target: missing host",
                  "GET http:///x HTTP/1.1\r\n\(h)\r\n"),
        Rejection("absolute-form with a port but no host", because: "absolute-form target: missing host",
                  "GET http://:80/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("absolute-form with nothing after the scheme", because: "absolute-form target: missing host",
                  "GET http:// HTTP/1.1\r\n\(h)\r\n"),
        Rejection("absolute-form without slashes", because: "absolute-form URI without authority",
                  "GET http:a.test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("absolute-form with one slash", because: "absolute-form URI without authority",
                  "GET http:/a.test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("port 0", because: "absolute-form target: port out of range",
                  "GET http://a.test:0/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("port 65536", because: "absolute-form target: port out of range",
                  "GET http://a.test:65536/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a six digit port", because: "absolute-form target: port out of range",
                  "GET http://a.test:000080/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a non-digit port", because: "absolute-form target: invalid port",
                  "GET http://a.test:8o/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an empty port", because: "absolute-form target: empty port",
                  "GET http://a.test:/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an unknown scheme", because: "unsupported URI scheme", "GET ftp://a.test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a scheme without authority", because: "unsupported URI scheme",
                  "GET mailto:a@b.test HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a percent-encoded host", because: "absolute-form target: invalid host",
                  "GET http://a%2etest/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a host with a sub-delim", because: "absolute-form target: invalid host",
                  "GET http://a!b.test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an empty host label", because: "absolute-form target: invalid host",
                  "GET http://a..test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a host of only a dot", because: "absolute-form target: invalid host",
                  "GET http://./ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a short-form IPv4 host", because: "not a dotted-quad IPv4 address",
                  "GET http://127.1/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a hex IPv4 host", because: "not a dotted-quad IPv4 address",
                  "GET http://0x7f.0.0.1/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an octal IPv4 host", because: "not a dotted-quad IPv4 address",
                  "GET http://0177.0.0.1/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a name ending in a number", because: "not a dotted-quad IPv4 address",
                  "GET http://a.test.1/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a host name over 253 characters", because: "absolute-form target: host name too long",
                  "GET http://\(String(repeating: "a.", count: 127))test/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an IPv6 literal with a zone id", because: "absolute-form target: invalid IPv6 literal",
                  "GET http://[fe80::1%25eth0]/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an invalid IPv6 literal", because: "absolute-form target: invalid IPv6 literal",
                  "GET http://[::g]/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an IPv4 address in brackets", because: "absolute-form target: invalid IPv6 literal",
                  "GET http://[127.0.0.1]/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an IPvFuture literal", because: "absolute-form target: invalid IPv6 literal",
                  "GET http://[v1.x]/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an unclosed IPv6 literal", because: "absolute-form target: invalid IPv6 literal",
                  "GET http://[::1/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("an unbracketed IPv6 address", because: "absolute-form target: missing host",
                  "GET http://::1/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a query without a path", because: "absolute-form URI with a query but no path",
                  "GET http://a.test?x=1 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a fragment in the target", because: "invalid character in request target",
                  "GET /a#b HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a double quote in the target", because: "invalid character in request target",
                  "GET /a\"b HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a non-ASCII target", because: "invalid character in request target",
                  "GET /é HTTP/1.1\r\n\(h)\r\n"),
        Rejection("a relative target", because: "invalid request target", "GET a/b HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT with origin-form", because: "CONNECT requires an authority-form target",
                  "CONNECT / HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT with absolute-form", because: "CONNECT requires an authority-form target",
                  "CONNECT http://a.test:443/ HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT with asterisk-form", because: "CONNECT requires an authority-form target",
                  "CONNECT * HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT without port", because: "CONNECT target: missing port",
                  "CONNECT a.test HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT with an empty port", because: "CONNECT target: empty port",
                  "CONNECT a.test: HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT to port 0", because: "CONNECT target: port out of range",
                  "CONNECT a.test:0 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT to port 70000", because: "CONNECT target: port out of range",
                  "CONNECT a.test:70000 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT to an IPv6 address without port", because: "CONNECT target: missing port",
                  "CONNECT [::1] HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT with userinfo", because: "CONNECT target: userinfo in authority",
                  "CONNECT u@a.test:443 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("CONNECT without host", because: "CONNECT target: missing host",
                  "CONNECT :443 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("GET with authority-form", because: "authority-form is only valid for CONNECT",
                  "GET a.test:443 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("GET with an IPv6 authority-form", because: "authority-form is only valid for CONNECT",
                  "GET [::1]:443 HTTP/1.1\r\n\(h)\r\n"),
        Rejection("GET with asterisk-form", because: "asterisk-form is only valid for OPTIONS",
                  "GET * HTTP/1.1\r\n\(h)\r\n"),
        Rejection("lower-case CONNECT is not CONNECT", because: "authority-form is only valid for CONNECT",
                  "connect a.test:443 HTTP/1.1\r\n\(h)\r\n"),
    ]

    static let hostAndLimitRejections: [Rejection] = [
        Rejection("an HTTP/1.1 request without Host", because: "missing Host field",
                  "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
        Rejection("an HTTP/1.1 absolute-form request without Host", because: "missing Host field",
                  "GET http://a.test/ HTTP/1.1\r\n\r\n"),
        Rejection("an HTTP/1.1 CONNECT without Host", because: "missing Host field",
                  "CONNECT a.test:443 HTTP/1.1\r\n\r\n"),
        Rejection("two Host fields", because: "multiple Host fields", "GET / HTTP/1.1\r\n\(h)\(h)\r\n"),
        Rejection("two Host fields on HTTP/1.0", because: "multiple Host fields",
                  "GET / HTTP/1.0\r\n\(h)host: b.test\r\n\r\n"),
        Rejection("a Host with userinfo", because: "invalid Host field: userinfo in authority",
                  "GET / HTTP/1.1\r\nHost: u@a.test\r\n\r\n"),
        Rejection("a Host with a space", because: "invalid Host field: invalid host",
                  "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
        Rejection("a Host with a path", because: "invalid Host field: invalid host",
                  "GET / HTTP/1.1\r\nHost: a.test/x\r\n\r\n"),
        Rejection("a Host with a bad port", because: "invalid Host field: port out of range",
                  "GET / HTTP/1.1\r\nHost: a.test:99999\r\n\r\n"),
        Rejection("a head over the size limit", because: "head too large",
                  "GET / HTTP/1.1\r\n\(h)X-Big: \(String(repeating: "x", count: 40 * 1024))\r\n\r\n", 431),
        Rejection("a request line over the size limit", because: "head too large",
                  "GET /\(String(repeating: "x", count: 40 * 1024)) HTTP/1.1\r\n\(h)\r\n", 431),
        Rejection("an unterminated head over the size limit", because: "head too large",
                  "GET / HTTP/1.1\r\n\(h)X-Big: \(String(repeating: "x", count: 40 * 1024))", 431),
        Rejection("more fields than the limit", because: "too many header fields",
                  "GET / HTTP/1.1\r\n\(h)" + String(repeating: "X-A: b\r\n", count: 128) + "\r\n", 431),
    ]

    @Test(arguments: framingRejections + lineRejections + targetRejections + hostAndLimitRejections)
    func refusesWithStatusAndReason(_ rejection: Rejection) {
        let result = rejection.head.parseRequest()
        guard case .invalid(let error) = result else {
            rejection.check(nil, got: result)
            return
        }
        rejection.check(error, got: result)
    }

    @Test func refusesABadRequestLineBeforeTheHeadIsComplete() {
        guard case .invalid(let error) = RawHead("GET / HTTP/2.0\r\nHost: a").parseRequest() else {
            Issue.record("an unsupported version must be refused at once")
            return
        }
        #expect(error.status == 505)
        guard case .invalid = RawHead("GET / HTTP/1.1\r\nX-A: b\nHost").parseRequest() else {
            Issue.record("a bare LF must be refused at once")
            return
        }
    }

    // MARK: Accepted requests

    @Test(arguments: [
        ("GET", HTTPMethod.get), ("HEAD", .head), ("POST", .post), ("PUT", .put), ("DELETE", .delete),
        ("OPTIONS", .options), ("TRACE", .trace), ("PATCH", .patch), ("PROPFIND", .other), ("get", .other),
        ("M-SEARCH", .other), ("X!#$%&'*+-.^_`|~1", .other),
    ])
    func classifiesMethodsCaseSensitively(method: String, expected: HTTPMethod) {
        let raw = RawHead("\(method) /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.method == expected)
        #expect(raw.text(head.methodBytes) == method)
        let targetStart = method.utf8.count + 1
        #expect(head.target == .origin(targetStart..<targetStart + 2))
    }

    @Test func parsesAnOriginFormRequestWithFields() {
        let raw = RawHead("GET /p/a?q=1&r={x}|y^ HTTP/1.1\r\nHost: a.test:8080\r\nAccept:*/*\r\n"
            + "X-Spaces: \t padded value \t \r\nX-Empty:\r\nX-Empty-Spaces:   \r\n\r\n")
        guard let head = raw.request() else { return }
        guard case .origin(let range) = head.target else {
            Issue.record("expected origin-form, got \(head.target)")
            return
        }
        #expect(raw.text(range) == "/p/a?q=1&r={x}|y^")
        #expect(head.version == .http11)
        #expect(raw.fieldTexts(head.fields) == [
            "Host: a.test:8080", "Accept: */*", "X-Spaces: padded value", "X-Empty: ", "X-Empty-Spaces: ",
        ])
        #expect(head.framing == .none)
        #expect(head.keepAlive)
        #expect(head.headLength == raw.bytes.count)
    }

    @Test func keepsObsTextInFieldValuesAsReceived() {
        let value: [UInt8] = [0xC3, 0xA9, 0xFF, 0x20, 0x80]
        let raw = RawHead(bytes: Array("GET / HTTP/1.1\r\nHost: a.test\r\nX-Raw: ".utf8) + value
            + Array("\r\n\r\n".utf8))
        guard let head = raw.request() else { return }
        #expect(Array(raw.bytes[head.fields[1].value]) == value)
    }

    @Test(arguments: [
        ("http://a.test/x?y", URIScheme.http, "a.test", UInt16(80), "a.test", "/x?y"),
        ("https://a.test/", .https, "a.test", 443, "a.test", "/"),
        ("http://A.Test:8080/P", .http, "a.test", 8080, "A.Test:8080", "/P"),
        ("HTTP://a.test:00080/", .http, "a.test", 80, "a.test:00080", "/"),
        ("http://127.0.0.1:3128//x", .http, "127.0.0.1", 3128, "127.0.0.1:3128", "//x"),
        ("http://[::1]:8080/x", .http, "::1", 8080, "[::1]:8080", "/x"),
        ("https://[2001:DB8::1]/", .https, "2001:db8::1", 443, "[2001:DB8::1]", "/"),
        ("http://a.test./", .http, "a.test.", 80, "a.test.", "/"),
        ("http://_srv.a-b.test:65535/", .http, "_srv.a-b.test", 65535, "_srv.a-b.test:65535", "/"),
        ("http://1x.test/", .http, "1x.test", 80, "1x.test", "/"),
    ])
    func parsesAbsoluteFormTargets(target: String, scheme: URIScheme, host: String, port: UInt16,
                                   authority: String, path: String)
    {
        let raw = RawHead("GET \(target) HTTP/1.1\r\nHost: ignored.test\r\n\r\n")
        guard let head = raw.request() else { return }
        guard case .absolute(let gotScheme, let gotHost, let gotPort, let gotAuthority, let gotPath) = head.target
        else {
            Issue.record("expected absolute-form, got \(head.target)")
            return
        }
        #expect(gotScheme == scheme)
        #expect(gotHost == host)
        #expect(gotPort == port)
        #expect(raw.text(gotAuthority) == authority)
        #expect(gotPath.map(raw.text) == path)
    }

    @Test func reportsAnEmptyAbsolutePathAsNil() {
        let raw = RawHead("GET http://a.test HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.target == .absolute(scheme: .http, host: "a.test", port: 80, authority: 11..<17,
                                         pathAndQuery: nil))
    }

    @Test(arguments: [
        ("a.test:443", "a.test", UInt16(443)), ("A.TEST:1", "a.test", 1), ("[::1]:8443", "::1", 8443),
        ("[2001:db8::1]:443", "2001:db8::1", 443), ("192.0.2.1:65535", "192.0.2.1", 65535),
    ])
    func parsesConnectAuthorityTargets(target: String, host: String, port: UInt16) {
        let raw = RawHead("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.method == .connect)
        #expect(head.target == .authority(host: host, port: port))
        #expect(head.framing == .none)
    }

    @Test func acceptsAZeroContentLengthOnConnect() {
        let head = RawHead("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\nContent-Length: 0\r\n\r\n").request()
        #expect(head?.framing == RequestBodyFraming.none)
    }

    @Test func parsesOptionsTargets() {
        #expect(RawHead("OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n").request()?.target == .asterisk)
        let absolute = RawHead("OPTIONS http://a.test:81 HTTP/1.1\r\nHost: a.test\r\n\r\n").request()
        #expect(absolute?.target == .absolute(scheme: .http, host: "a.test", port: 81, authority: 15..<24,
                                              pathAndQuery: nil))
    }

    @Test(arguments: [
        ("Content-Length: 0", RequestBodyFraming.contentLength(0)),
        ("Content-Length: 42", .contentLength(42)),
        ("content-length:   007  ", .contentLength(7)),
        ("Content-Length: 18446744073709551615", .contentLength(UInt64.max)),
        ("Transfer-Encoding: chunked", .chunked),
        ("Transfer-Encoding: CHUNKED", .chunked),
        ("Transfer-Encoding: gzip, chunked", .chunked),
        ("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked", .chunked),
        ("Transfer-Encoding: deflate ,\tchunked", .chunked),
        ("X-Content-Length: 5", .none),
    ])
    func determinesBodyFraming(field: String, framing: RequestBodyFraming) {
        let head = RawHead("POST / HTTP/1.1\r\nHost: a.test\r\n\(field)\r\n\r\n").request()
        #expect(head?.framing == framing)
    }

    @Test(arguments: [
        ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\r\n", false),
        ("HTTP/1.1", "Connection: keep-alive\r\n", true), ("HTTP/1.1", "Connection: Upgrade, CLOSE\r\n", false),
        ("HTTP/1.0", "", false), ("HTTP/1.0", "Connection: keep-alive\r\n", true),
        ("HTTP/1.0", "Connection: Keep-Alive\r\n", true), ("HTTP/1.0", "Proxy-Connection: keep-alive\r\n", false),
        ("HTTP/1.0", "Connection: keep-alive, close\r\n", false),
        ("HTTP/1.0", "Connection: keep-alive\r\nConnection: close\r\n", false),
    ])
    func decidesKeepAliveByVersionAndConnection(version: String, fields: String, keepAlive: Bool) {
        let head = RawHead("GET / \(version)\r\nHost: a.test\r\n\(fields)\r\n").request()
        #expect(head?.keepAlive == keepAlive)
    }

    @Test func collectsConnectionTokensLowerCasedFromAllFields() {
        let head = RawHead("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: Keep-Alive, X-Foo,,\r\n"
            + "connection: close\r\nConnection:\r\n\r\n").request()
        #expect(head?.connectionTokens == ["keep-alive", "x-foo", "close"])
    }

    @Test(arguments: [
        ("HTTP/1.1", "Expect: 100-continue\r\n", true), ("HTTP/1.1", "expect: 100-Continue\r\n", true),
        ("HTTP/1.1", "Expect: something-else\r\n", false), ("HTTP/1.1", "", false),
        ("HTTP/1.0", "Expect: 100-continue\r\n", false),
    ])
    func detectsExpectContinue(version: String, field: String, expects: Bool) {
        let head = RawHead("PUT / \(version)\r\nHost: a.test\r\n\(field)Content-Length: 1\r\n\r\n").request()
        #expect(head?.expectsContinue == expects)
    }

    @Test(arguments: [
        ("HTTP/1.1", "Upgrade: websocket\r\nConnection: Upgrade\r\n", true),
        ("HTTP/1.1", "Connection: keep-alive, upgrade\r\nUpgrade: h2c\r\n", true),
        ("HTTP/1.1", "Upgrade: websocket\r\n", false),
        ("HTTP/1.1", "Connection: upgrade\r\n", false),
        ("HTTP/1.0", "Upgrade: websocket\r\nConnection: Upgrade\r\n", false),
    ])
    func detectsUpgradeOnlyWithTheConnectionToken(version: String, fields: String, requested: Bool) {
        let head = RawHead("GET / \(version)\r\nHost: a.test\r\n\(fields)\r\n").request()
        #expect(head?.upgradeRequested == requested)
    }

    @Test func acceptsHTTP10WithoutHostAndAnEmptyHostOnHTTP11() {
        #expect(RawHead("GET / HTTP/1.0\r\n\r\n").request()?.version == .http10)
        #expect(RawHead("GET / HTTP/1.1\r\nHost:\r\n\r\n").request()?.version == .http11)
        #expect(RawHead("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n").request() != nil)
    }

    @Test func reportsTheHeadLengthWhenABodyAndAPipelinedRequestFollow() {
        let first = "POST /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5\r\n\r\n"
        let raw = RawHead(first + "hello" + "GET /b HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(head.headLength == first.utf8.count)
        #expect(head.framing == .contentLength(5))
        #expect(head.fields.allSatisfy { $0.value.upperBound < head.headLength })
    }

    @Test func ignoresOneEmptyLineBeforeTheRequestLine() {
        let raw = RawHead("\r\nGET /x HTTP/1.1\r\nHost: a.test\r\n\r\n")
        guard let head = raw.request() else { return }
        #expect(raw.text(head.methodBytes) == "GET")
        #expect(head.headLength == raw.bytes.count)
    }

    // MARK: Incomplete input and limits

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a.test\r\nX-A: b\r\n\r\n",
        "\r\nPOST http://[::1]:8080/x HTTP/1.0\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n",
        "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n",
    ])
    func reportsEveryProperPrefixAsIncomplete(text: String) {
        let bytes = Array(text.utf8)
        for length in 0..<bytes.count {
            let result = RawHead(bytes: Array(bytes[..<length])).parseRequest()
            guard case .incomplete = result else {
                Issue.record("prefix of \(length) bytes: \(result)")
                return
            }
        }
        #expect(RawHead(bytes: bytes).request()?.headLength == bytes.count)
    }

    @Test func acceptsAHeadOfExactlyTheLimitAndRefusesOneByteMore() {
        let prefix = "GET / HTTP/1.1\r\nHost: a.test\r\nX-Pad: "
        let limit = 200
        let padding = limit - prefix.utf8.count - "\r\n\r\n".utf8.count
        let fits = RawHead(prefix + String(repeating: "p", count: padding) + "\r\n\r\n")
        #expect(fits.bytes.count == limit)
        #expect(fits.request(limits: HTTPHeadLimits(maxHeadBytes: limit))?.headLength == limit)
        let over = RawHead(prefix + String(repeating: "p", count: padding + 1) + "\r\n\r\n")
        guard case .invalid(let error) = over.parseRequest(limits: HTTPHeadLimits(maxHeadBytes: limit)) else {
            Issue.record("one byte over the limit must be refused")
            return
        }
        #expect(error.status == 431)
    }

    @Test func waitsWhileAnUnfinishedHeadIsWithinTheLimit() {
        let partial = RawHead("GET / HTTP/1.1\r\nHost: a.test\r\nX-A: " + String(repeating: "x", count: 150))
        guard case .incomplete = partial.parseRequest(limits: HTTPHeadLimits(maxHeadBytes: 200)) else {
            Issue.record("expected incomplete")
            return
        }
        guard case .invalid(let error) = partial.parseRequest(limits: HTTPHeadLimits(maxHeadBytes: 100)) else {
            Issue.record("expected 431")
            return
        }
        #expect(error.status == 431)
    }

    @Test func acceptsExactlyTheFieldLimit() {
        let fields = "Host: a.test\r\n" + String(repeating: "X-A: b\r\n", count: 9)
        let limits = HTTPHeadLimits(maxFieldCount: 10)
        #expect(RawHead("GET / HTTP/1.1\r\n\(fields)\r\n").request(limits: limits)?.fields.count == 10)
        guard case .invalid(let error) = RawHead("GET / HTTP/1.1\r\n\(fields)X-B: c\r\n\r\n")
            .parseRequest(limits: limits)
        else {
            Issue.record("expected 431")
            return
        }
        #expect(error.status == 431)
    }

    @Test func keepsParsedRangesInsideTheHead() {
        let raw = RawHead("PATCH http://a.test/x HTTP/1.1\r\nHost: a.test\r\nA: 1\r\nB:2 \r\n\r\ntrailing body")
        guard let head = raw.request() else { return }
        for field in head.fields {
            #expect(field.name.upperBound <= head.headLength && field.value.upperBound <= head.headLength)
            #expect(field.name.upperBound < field.value.lowerBound)
        }
    }
}

