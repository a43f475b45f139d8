import Testing
@testable import IPDirectCore

/// Drives a scanner the way the proxy does: input arrives in pieces, chunk data is forwarded blindly,
/// control bytes are forwarded as consumed, and whatever is not forwarded stays buffered.
struct ChunkedRelay {
    enum Outcome: Equatable, CustomStringConvertible {
        case finished(forwarded: Int)
        case invalid(HTTPParseError)
        /// The input ran out before the body ended.
        case starved(forwarded: Int)

        var description: String {
            switch self {
            case .finished(let count): return "finished after \(count) bytes"
            case .invalid(let error): return "invalid: \(error)"
            case .starved(let count): return "starved after \(count) bytes"
            }
        }
    }

    var scanner = ChunkedBodyScanner()

    mutating func run(_ input: [UInt8], pieceSizes: [Int]) -> Outcome {
        var arrived = 0
        var forwarded = 0
        var pieceIndex = 0
        while true {
            var needsInput = false
            while !needsInput {
                switch scanner.step {
                case .passData(let allowed):
                    let available = UInt64(arrived - forwarded)
                    if available == 0 {
                        needsInput = true
                    } else {
                        let count = min(allowed, available)
                        scanner.didPassData(count)
                        forwarded += Int(count)
                    }
                case .needControl:
                    let result = input[forwarded..<arrived].withUnsafeBytes { scanner.scanControl($0) }
                    switch result {
                    case .consumed(let count):
                        guard count > 0 else {
                            Issue.record("consumed(0) while control was needed")
                            return .starved(forwarded: forwarded)
                        }
                        forwarded += count
                    case .finished(let count):
                        return .finished(forwarded: forwarded + count)
                    case .incomplete:
                        needsInput = true
                    case .invalid(let error):
                        return .invalid(error)
                    }
                }
            }
            guard arrived < input.count else { return .starved(forwarded: forwarded) }
            arrived = min(input.count, arrived + max(1, pieceSizes[pieceIndex % pieceSizes.count]))
            pieceIndex += 1
        }
    }

    static func run(_ input: [UInt8], pieceSizes: [Int], scanner: ChunkedBodyScanner = ChunkedBodyScanner())
        -> Outcome
    {
        var relay = ChunkedRelay(scanner: scanner)
        return relay.run(input, pieceSizes: pieceSizes)
    }

    /// Whole input at once, one byte at a time, and seeded random splits.
    static func splits(of input: [UInt8], seeds: ClosedRange<UInt64> = 1...20) -> [(String, [Int])] {
        var result: [(String, [Int])] = [("whole", [input.count]), ("one byte at a time", [1])]
        for seed in seeds {
            var random = SplitMix64(seed: seed)
            let sizes = (0..<input.count).map { _ in Int.random(in: 1...16, using: &random) }
            result.append(("random split seed \(seed)", sizes))
        }
        return result
    }
}

@Suite struct ChunkedBodyScannerTests {
    static let validBodies: [String] = [
        "0\r\n\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        "A\r\n0123456789\r\na\r\n0123456789\r\n000\r\n\r\n",
        "5;name=value;flag;quoted=\"a \\\"q\\\" ;\tb\"\r\nhello\r\n0;last\r\n\r\n",
        "5 ;a = b\t;\tc\r\nhello\r\n0 ; end\r\n\r\n",
        "5\r\n\r\n0\r\n\r\n0\r\n\r\n",
        "0\r\nExpires: never\r\nX-Checksum:  abc \r\nX-Empty:\r\n\r\n",
        "0000000000000003\r\nabc\r\n0\r\n\r\n",
        // One data byte per chunk, the data bytes looking like framing, then trailers.
        "1\r\n\r\r\n1\r\n\n\r\n1\r\n0\r\n1\r\n;\r\n1\r\n:\r\n0\r\nX-Checksum: 5\r\nX-Count: 5\r\n\r\n",
        String(repeating: "1\r\nX\r\n", count: 64) + "0\r\nX-Checksum: 64\r\n\r\n",
    ]

    @Test(arguments: validBodies)
    func forwardsTheWholeBodyUnderEverySplit(body: String) {
        let input = Array(body.utf8)
        for (label, sizes) in ChunkedRelay.splits(of: input) {
            let outcome = ChunkedRelay.run(input, pieceSizes: sizes)
            #expect(outcome == .finished(forwarded: input.count), "\(label)")
        }
    }

    @Test(arguments: validBodies)
    func stopsAtTheEndOfTheBodyWhenThePipelinedRequestFollows(body: String) {
        let input = Array(body.utf8) + Array("GET /next HTTP/1.1\r\nHost: a.test\r\n\r\n".utf8)
        for (label, sizes) in ChunkedRelay.splits(of: input, seeds: 1...5) {
            let outcome = ChunkedRelay.run(input, pieceSizes: sizes)
            #expect(outcome == .finished(forwarded: body.utf8.count), "\(label)")
        }
    }

    @Test func neverLooksInsideChunkData() {
        let data = "\r\n0\r\n\r\nGET / HTTP/1.1\u{0}\n\r"
        let body = Array("\(String(data.utf8.count, radix: 16))\r\n\(data)\r\n0\r\n\r\n".utf8)
        for (label, sizes) in ChunkedRelay.splits(of: body, seeds: 1...5) {
            #expect(ChunkedRelay.run(body, pieceSizes: sizes) == .finished(forwarded: body.count), "\(label)")
        }
    }

    @Test func reportsTheStepsOfAChunk() {
        var scanner = ChunkedBodyScanner()
        #expect(scanner.step == .needControl)
        let partial = Array("1F".utf8)
        #expect(partial.withUnsafeBytes { scanner.scanControl($0) } == .incomplete)
        #expect(scanner.step == .needControl)
        let line = Array("1F\r\nrest".utf8)
        #expect(line.withUnsafeBytes { scanner.scanControl($0) } == .consumed(4))
        #expect(scanner.step == .passData(31))
        scanner.didPassData(30)
        #expect(scanner.step == .passData(1))
        scanner.didPassData(1)
        #expect(scanner.step == .needControl)
        let end = Array("\r\n0\r\n\r\nnext".utf8)
        #expect(end.withUnsafeBytes { scanner.scanControl($0) } == .finished(7))
        #expect(scanner.isFinished)
    }

    @Test func consumesTheDataCRLFAloneWhenTheNextSizeLineIsIncomplete() {
        var scanner = ChunkedBodyScanner()
        _ = Array("1\r\n".utf8).withUnsafeBytes { scanner.scanControl($0) }
        scanner.didPassData(1)
        #expect(Array("\r\n2".utf8).withUnsafeBytes { scanner.scanControl($0) } == .consumed(2))
        #expect(Array("2".utf8).withUnsafeBytes { scanner.scanControl($0) } == .incomplete)
    }

    @Test func acceptsTheLargestSixteenDigitSize() {
        var scanner = ChunkedBodyScanner()
        let line = Array("FFFFFFFFFFFFFFFF\r\n".utf8)
        #expect(line.withUnsafeBytes { scanner.scanControl($0) } == .consumed(line.count))
        #expect(scanner.step == .passData(UInt64.max))
    }

    // MARK: Rejections

    struct ChunkRejection: Sendable, CustomTestStringConvertible {
        let label: String
        let because: String
        let body: [UInt8]

        init(_ label: String, because: String, _ body: String) {
            self.label = label
            self.because = because
            self.body = Array(body.utf8)
        }

        var testDescription: String { label }
    }

    static let rejections: [ChunkRejection] = [
        ChunkRejection("a bare LF after the size", because: "bare LF", "5\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a bare CR after the size", because: "bare CR", "5\rhello\r\n0\r\n\r\n"),
        ChunkRejection("a bare LF after chunk data", because: "missing CRLF after chunk data", "5\r\nhello\n0\r\n\r\n"),
        ChunkRejection("a bare CR after chunk data", because: "bare CR after chunk data", "5\r\nhello\r0\r\n\r\n"),
        ChunkRejection("more data than the size", because: "missing CRLF after chunk data", "5\r\nhello!\r\n0\r\n\r\n"),
        ChunkRejection("seventeen hex digits", because: "chunk size overflows", "00000000000000001\r\nx\r\n0\r\n\r\n"),
        ChunkRejection("a size over UInt64", because: "chunk size overflows", "10000000000000000\r\n"),
        ChunkRejection("a plus sign", because: "missing chunk size", "+5\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a minus sign", because: "missing chunk size", "-5\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a space before the size", because: "missing chunk size", " 5\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("an empty size", because: "missing chunk size", "\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a 0x prefix", because: "invalid character in chunk size line", "0x5\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a non-hex digit", because: "invalid character in chunk size line", "5g\r\nhello\r\n"),
        ChunkRejection("whitespace before the CRLF", because: "invalid character in chunk size line",
                       "5 \r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("whitespace after an extension name", because: "invalid character in chunk size line",
                       "5;a \r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("an empty extension name", because: "invalid chunk extension", "5;\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("an extension name that is not a token", because: "invalid chunk extension",
                       "5;(a)\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("an empty extension value", because: "invalid chunk extension value",
                       "5;a=\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a control character in a quoted value", because: "control character in chunk extension",
                       "5;a=\"x\u{01}\"\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a CR inside a quoted value", because: "control character in chunk extension",
                       "5;a=\"x\r\n\"\r\nhello\r\n0\r\n\r\n"),
        ChunkRejection("a NUL in the size line", because: "invalid character in chunk size line",
                       "5\u{0}\r\nhello\r\n"),
        ChunkRejection("a trailer without colon", because: "field line without colon", "0\r\nX-T\r\n\r\n"),
        ChunkRejection("an obs-folded trailer", because: "obs-fold", "0\r\nX-T: a\r\n b\r\n\r\n"),
        ChunkRejection("a trailer with a bare LF", because: "bare LF", "0\r\nX-T: a\n\r\n"),
        ChunkRejection("a bare LF ending the trailers", because: "bare LF", "0\r\n\n"),
        ChunkRejection("a Content-Length trailer", because: "framing field in trailer section",
                       "0\r\nContent-Length: 5\r\n\r\n"),
        ChunkRejection("a Transfer-Encoding trailer", because: "framing field in trailer section",
                       "0\r\ntransfer-encoding: chunked\r\n\r\n"),
        ChunkRejection("a Host trailer", because: "framing field in trailer section", "0\r\nHost: b.test\r\n\r\n"),
    ]

    @Test(arguments: rejections)
    func refusesUnderEverySplit(_ rejection: ChunkRejection) {
        for (label, sizes) in ChunkedRelay.splits(of: rejection.body, seeds: 1...5) {
            let outcome = ChunkedRelay.run(rejection.body, pieceSizes: sizes)
            guard case .invalid(let error) = outcome else {
                Issue.record("\(label): expected invalid, got \(outcome)")
                continue
            }
            #expect(error.status == 400)
            #expect(error.reason.contains(rejection.because), "\(label): \(error.reason)")
        }
    }

    @Test func keepsRefusingAfterAnError() {
        var scanner = ChunkedBodyScanner()
        let bad = Array("x\r\n".utf8)
        guard case .invalid(let first) = bad.withUnsafeBytes({ scanner.scanControl($0) }) else {
            Issue.record("expected invalid")
            return
        }
        let good = Array("5\r\n".utf8)
        #expect(good.withUnsafeBytes { scanner.scanControl($0) } == .invalid(first))
    }

    /// A scanner lives in the body progress of a chunked exchange, which the session state copies at every event.
    @Test func aScannerAndTheStateHoldingItCopyWithoutReferenceCounting() {
        #expect(_isPOD(ChunkedBodyScanner.self))
        #expect(_isPOD(BodyProgress.self))
        #expect(_isPOD(Forwarding.self))
    }

    @Test func aTrailerRefusalIsRepeatedWithTheScannersReason() {
        var scanner = ChunkedBodyScanner()
        let body = Array("0\r\nX-A:\u{1}b\r\n\r\n".utf8)
        guard case .invalid(let first) = body.withUnsafeBytes({ scanner.scanControl($0) }) else {
            Issue.record("expected invalid")
            return
        }
        #expect(first == HTTPParseError(status: 400, reason: "chunked body: trailer: control character in field value"))
        #expect(Array("\r\n".utf8).withUnsafeBytes { scanner.scanControl($0) } == .invalid(first))
    }

    // MARK: Limits

    @Test func enforcesTheControlLineLimitUnderEverySplit() {
        let limit = 32
        let fitting = "5;e=" + String(repeating: "v", count: limit - 8) + "\r\n"
        #expect(fitting.utf8.count == limit - 2)
        let atLimit = Array(("5;e=" + String(repeating: "v", count: limit - 6) + "\r\nhello\r\n0\r\n\r\n").utf8)
        let overLimit = Array(("5;e=" + String(repeating: "v", count: limit - 5) + "\r\nhello\r\n0\r\n\r\n").utf8)
        let endless = Array(("5;e=" + String(repeating: "v", count: 4 * limit)).utf8)
        let scanner = ChunkedBodyScanner(maxControlBytes: limit)
        for (label, sizes) in ChunkedRelay.splits(of: overLimit, seeds: 1...5) {
            #expect(ChunkedRelay.run(atLimit, pieceSizes: sizes, scanner: scanner)
                == .finished(forwarded: atLimit.count), "\(label)")
            guard case .invalid(let error) = ChunkedRelay.run(overLimit, pieceSizes: sizes, scanner: scanner),
                  case .invalid(let endlessError) = ChunkedRelay.run(endless, pieceSizes: sizes, scanner: scanner)
            else {
                Issue.record("\(label): a control line over the limit must be refused")
                continue
            }
            #expect(error.reason.contains("chunk size line too long"))
            #expect(endlessError.reason.contains("chunk size line too long"))
        }
    }

    @Test func enforcesTheTrailerLimitUnderEverySplit() {
        let limit = 40
        // "0\r\n" + trailer field + final CRLF; the limit counts the trailer field and the final CRLF.
        let field = "X-T: " + String(repeating: "t", count: limit - 9) + "\r\n"
        #expect(field.utf8.count + 2 == limit)
        let atLimit = Array(("0\r\n" + field + "\r\n").utf8)
        let overLimit = Array(("0\r\nX" + field + "\r\n").utf8)
        let scanner = ChunkedBodyScanner(maxTrailerBytes: limit)
        for (label, sizes) in ChunkedRelay.splits(of: overLimit, seeds: 1...5) {
            #expect(ChunkedRelay.run(atLimit, pieceSizes: sizes, scanner: scanner)
                == .finished(forwarded: atLimit.count), "\(label)")
            guard case .invalid(let error) = ChunkedRelay.run(overLimit, pieceSizes: sizes, scanner: scanner) else {
                Issue.record("\(label): a trailer section over the limit must be refused")
                continue
            }
            #expect(error.reason.contains("trailer section too large"))
        }
    }

    @Test func waitsForTheRestOfATruncatedBody() {
        let input = Array("5\r\nhel".utf8)
        #expect(ChunkedRelay.run(input, pieceSizes: [1]) == .starved(forwarded: input.count))
        let inTrailers = Array("0\r\nX-T: a\r\n".utf8)
        #expect(ChunkedRelay.run(inTrailers, pieceSizes: [3]) == .starved(forwarded: inTrailers.count))
    }
}
