import Testing
@testable import IPDirectCore

/// The chunk walk over bytes in memory: data runs handed out, framing consumed, where the body ends, and a
/// walk resumed across pieces reaching the same end as one walk over all the bytes.
@Suite struct ChunkedBodyScannerWalkTests {
    static let body = Array("5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: yes\r\n\r\nNEXT".utf8)

    func walk(_ pieces: [[UInt8]]) -> (data: [UInt8], walked: Int, end: ChunkedBodyScanner.WalkEnd) {
        var scanner = ChunkedBodyScanner()
        var data: [UInt8] = []
        var pending: [UInt8] = []
        var walked = 0
        var end = ChunkedBodyScanner.WalkEnd.needMore
        for piece in pieces {
            pending += piece
            let step = pending.withUnsafeBytes { bytes in scanner.walk(bytes) { data += bytes[$0] } }
            walked += step.walked
            pending.removeFirst(step.walked)
            end = step.end
            if end != .needMore { break }
        }
        return (data, walked, end)
    }

    @Test func aWholeBodyIsWalkedToItsEndAndNoFurther() {
        let result = walk([Self.body])
        #expect(String(decoding: result.data, as: UTF8.self) == "hello world")
        #expect(result.end == .finished)
        #expect(result.walked == Self.body.count - "NEXT".utf8.count)
    }

    @Test func piecesOfAnySizeReachTheSameEnd() {
        for size in [1, 2, 3, 7, 16] {
            let pieces = stride(from: 0, to: Self.body.count, by: size).map { Array(Self.body[$0..<min($0 + size, Self.body.count)]) }
            let result = walk(pieces)
            #expect(String(decoding: result.data, as: UTF8.self) == "hello world", "pieces of \(size)")
            #expect(result.end == .finished && result.walked == Self.body.count - 4, "pieces of \(size)")
        }
    }

    @Test func aCutControlElementIsLeftForTheNextPiece() {
        var scanner = ChunkedBodyScanner()
        let step = Array("5\r\nhel".utf8).withUnsafeBytes { scanner.walk($0) }
        #expect(step.walked == 6 && step.end == .needMore)
        let cut = Array("lo\r\n1".utf8).withUnsafeBytes { scanner.walk($0) }
        #expect(cut.walked == 4 && cut.end == .needMore, "the size line `1` has no end yet")
    }

    @Test func brokenFramingStopsTheWalk() {
        let result = walk([Array("5\r\nhello\nX".utf8)])
        guard case .invalid(let failure) = result.end else {
            Issue.record("\(result.end)")
            return
        }
        #expect(failure.status == 400 && result.data == Array("hello".utf8))
    }

    /// `advance` over buffer segments, as the proxy's body pump takes it: `front` is the first segment.
    func advance(_ scanner: inout ChunkedBodyScanner, segment: String, buffered: Int) -> ChunkedBodyScanner.Advance {
        Array(segment.utf8).withUnsafeBytes { scanner.advance(front: $0, buffered: buffered) }
    }

    @Test func eachStepPassesFramingOrDataByCountAlone() {
        var scanner = ChunkedBodyScanner()
        #expect(advance(&scanner, segment: "5\r\nhel", buffered: 8) == .framing(3))
        #expect(scanner.readsFraming == false)
        #expect(advance(&scanner, segment: "", buffered: 5) == .data(5), "chunk data needs no bytes, only their count")
        #expect(advance(&scanner, segment: "\r\n0\r\n\r\nNEXT", buffered: 11) == .finished(7))
        #expect(scanner.isFinished)
    }

    @Test func framingCutAtASegmentEndAsksForContiguousBytesWithoutMoving() {
        var scanner = ChunkedBodyScanner()
        let before = scanner
        #expect(advance(&scanner, segment: "1", buffered: 6) == .needContiguous)
        #expect(scanner == before)
        #expect(advance(&scanner, segment: "1a\r\nxx", buffered: 6) == .framing(4))
        #expect(advance(&scanner, segment: "", buffered: 2) == .data(2))
    }

    @Test func framingCutWithNothingMoreBufferedWaitsForMore() {
        var scanner = ChunkedBodyScanner()
        #expect(advance(&scanner, segment: "1a", buffered: 2) == .needMore)
        #expect(advance(&scanner, segment: "", buffered: 0) == .needMore)
    }

    @Test func brokenFramingIsReportedByTheStep() {
        var scanner = ChunkedBodyScanner()
        guard case .invalid(let failure) = advance(&scanner, segment: "z\r\n", buffered: 3) else {
            Issue.record("a size line that is not hex must be refused")
            return
        }
        #expect(failure.status == 400)
    }
}
