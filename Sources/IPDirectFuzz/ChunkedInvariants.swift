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

    /// The proxy's loop: chunk data is passed blindly, control bytes as consumed, the rest stays buffered.
    static func relay(_ input: UnsafeRawBufferPointer, scanner: ChunkedBodyScanner, pieceSize: (Int) -> Int)
        -> Outcome
    {
        var scanner = scanner
        var arrived = 0
        var forwarded = 0
        var pieces = 0
        while true {
            var needsInput = false
            while !needsInput {
                FuzzCheck.require(forwarded <= arrived, "forwarded \(forwarded) of \(arrived) arrived bytes")
                switch scanner.step {
                case .passData(let allowed):
                    FuzzCheck.require(allowed > 0, "passData(0)")
                    let available = UInt64(arrived - forwarded)
                    if available == 0 {
                        needsInput = true
                    } else {
                        let count = min(allowed, available)
                        scanner.didPassData(count)
                        forwarded += Int(count)
                    }
                case .needControl:
                    let pending = arrived - forwarded
                    let result = FuzzCheck.withExactCopy(UnsafeRawBufferPointer(rebasing: input[forwarded..<arrived])) {
                        scanner.scanControl($0)
                    }
                    switch result {
                    case .consumed(let count):
                        FuzzCheck.require(count > 0 && count <= pending, "consumed \(count) of \(pending)")
                        forwarded += count
                    case .finished(let count):
                        FuzzCheck.require(count >= 0 && count <= pending, "finished \(count) of \(pending)")
                        FuzzCheck.require(scanner.isFinished, "finished but not isFinished")
                        return .finished(forwarded + count)
                    case .incomplete:
                        needsInput = true
                    case .invalid(let error):
                        return .invalid(error)
                    }
                }
            }
            guard arrived < input.count else { return .starved(forwarded) }
            arrived = min(input.count, arrived + max(1, pieceSize(pieces)))
            pieces += 1
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
