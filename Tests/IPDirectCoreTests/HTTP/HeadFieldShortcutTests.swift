import Testing
@testable import IPDirectCore

/// Where the field summary and the request line take a shorter way for common input, the longer way's answers
/// stay the same at its edges.
@Suite struct HeadFieldShortcutTests {
    @Test(arguments: ["9999999999999999999", "18446744073709551615", "0000000000000000000000012"])
    func readsAContentLengthUpToTheLargestUInt64(_ digits: String) {
        let head = RawHead("POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: \(digits)\r\n\r\n").request()
        #expect(head?.framing == .contentLength(UInt64(digits)!))
    }

}

extension RequestHeadParserTests {
    static let shortcutRejections: [Rejection] = [
        Rejection("a Content-Length of twenty nines", because: "Content-Length too large",
                  "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 99999999999999999999\r\n\r\n"),
        Rejection("a Content-Length one above UInt64", because: "Content-Length too large",
                  "POST / HTTP/1.1\r\nHost: a.test\r\nContent-Length: 18446744073709551616\r\n\r\n"),
        Rejection("a Connection option with a space where keep-alive has its hyphen", because: "invalid Connection token",
                  "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: keep alive\r\n\r\n"),
        Rejection("a Connection option with obs-text where keep-alive has its hyphen", because: "invalid Connection token",
                  bytes: Array("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: keep".utf8) + [0xAD]
                      + Array("alive\r\n\r\n".utf8)),
        Rejection("a Connection option as long as a known field name, with a quote", because: "invalid Connection token",
                  "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: v\"a\r\n\r\n"),
    ]
}

extension HeadFieldShortcutTests {
    /// Every byte class at every position of targets whose lengths straddle eight and sixteen bytes.
    @Test func refusesABadTargetByteWhereverItLies() {
        let specials: [UInt8] = [0x00, HTTPByte.tab, HTTPByte.quote, HTTPByte.hash, UInt8(ascii: "<"), UInt8(ascii: ">"),
                                 HTTPByte.delete, 0x80, 0xFF, UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "%")]
        for length in 2...40 {
            for position in 1..<length {
                for special in specials {
                    var target = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    target[0] = HTTPByte.slash
                    target[position] = special
                    let head = RawHead(bytes: Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: a.test\r\n\r\n".utf8))
                    let result = head.parseRequest()
                    if HTTPByte.isTargetChar(special) {
                        guard case .complete = result else {
                            Issue.record("\(special) at \(position) of \(length): \(result)")
                            continue
                        }
                    } else {
                        guard case .invalid(let error) = result else {
                            Issue.record("\(special) at \(position) of \(length): \(result)")
                            continue
                        }
                        #expect(error.reason == "invalid character in request target", "\(special) at \(position)")
                    }
                }
            }
        }
    }
}
