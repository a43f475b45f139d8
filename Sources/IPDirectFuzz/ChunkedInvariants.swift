import IPDirectCore

/// What ChunkedBodyScanner promises for any bytes: the outcome does not depend on how the bytes arrive,
/// and it never lets more bytes through than it was given.
enum ChunkedInvariants {
    enum Outcome: Equatable, CustomStringConvertible {
        case finished(Int)
        case invalid(HTTPParseError)
        case starved(Int)

        var description: String {
            switch self {
            case .finished(let count): return "finished after \(count)"
            case .invalid(let error): return "invalid \(error)"
            case .starved(let count): return "starved after \(count)"
            }
        }
    }

    /// Default limits, and small ones so short inputs reach the limit paths.
    static let scanners = [
        ChunkedBodyScanner(),
        ChunkedBodyScanner(maxControlBytes: 24, maxTrailerBytes: 48),
    ]

    static func check(_ bytes: UnsafeRawBufferPointer) {
        for scanner in scanners {
            let whole = relay(bytes, scanner: scanner) { _ in bytes.count }
            let byteByByte = relay(bytes, scanner: scanner) { _ in 1 }
            // Piece sizes taken from the input itself, so the fuzzer also explores the split points.
            let uneven = relay(bytes, scanner: scanner) { step in
                bytes.isEmpty ? 1 : 1 + Int(bytes[step % bytes.count] % 13)
            }
            FuzzCheck.require(whole == byteByByte && whole == uneven,
                              "split changes the outcome: \(whole) / \(byteByByte) / \(uneven)")
            FuzzCheck.require(walk(bytes, scanner: scanner) == whole, "the walk ends otherwise than the relay: \(whole)")
            if case .invalid(let error) = whole { FuzzCheck.requireUsable(error, statuses: [400]) }
        }
    }

    /// The proxy's body pump: each piece that arrives is a buffer segment; framing is read in the first
    /// segment and made contiguous only when it runs past it; what a step decides passes on, the rest stays
    /// buffered.
    static func relay(_ input: UnsafeRawBufferPointer, scanner: ChunkedBodyScanner, pieceSize: (Int) -> Int)
        -> Outcome
    {
        var scanner = scanner
        var segmentEnds: [Int] = []
        var segment = 0
        var arrived = 0
        var forwarded = 0
        while true {
            var needsInput = false
            while !needsInput {
                FuzzCheck.require(forwarded <= arrived, "forwarded \(forwarded) of \(arrived) arrived bytes")
                let pending = arrived - forwarded
                while segment < segmentEnds.count, segmentEnds[segment] <= forwarded { segment += 1 }
                let segmentEnd = segment < segmentEnds.count ? segmentEnds[segment] : arrived
                var advance = FuzzCheck.withExactCopy(UnsafeRawBufferPointer(rebasing: input[forwarded..<segmentEnd])) {
                    scanner.advance(front: $0, buffered: pending)
                }
                if advance == .needContiguous {
                    FuzzCheck.require(segmentEnd < arrived, "needContiguous with every buffered byte in front")
                    advance = FuzzCheck.withExactCopy(UnsafeRawBufferPointer(rebasing: input[forwarded..<arrived])) {
                        scanner.advance(front: $0, buffered: pending)
                    }
                }
                switch advance {
                case .data(let count), .framing(let count):
                    FuzzCheck.require(count > 0 && count <= pending, "passed \(count) of \(pending)")
                    forwarded += count
                case .finished(let count):
                    FuzzCheck.require(count >= 0 && count <= pending, "finished \(count) of \(pending)")
                    FuzzCheck.require(scanner.isFinished, "finished but not isFinished")
                    return .finished(forwarded + count)
                case .needMore:
                    needsInput = true
                case .needContiguous:
                    FuzzCheck.require(false, "needContiguous with the buffered bytes contiguous")
                case .invalid(let error):
                    return .invalid(error)
                }
            }
            guard arrived < input.count else { return .starved(forwarded) }
            arrived = min(input.count, arrived + max(1, pieceSize(segmentEnds.count)))
            segmentEnds.append(arrived)
        }
    }

    /// The readers of bodies held in memory: one walk over all the bytes.
    static func walk(_ input: UnsafeRawBufferPointer, scanner: ChunkedBodyScanner) -> Outcome {
        var scanner = scanner
        let (walked, end) = scanner.walk(input)
        switch end {
        case .finished: return .finished(walked)
        case .invalid(let failure): return .invalid(failure)
        case .needMore: return .starved(walked)
        }
    }
}
