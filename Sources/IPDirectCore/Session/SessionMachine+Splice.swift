/// Bodies that leave the buffers and move in the kernel (splice), socket to pipe to socket, the way
/// tunnels do: when a body may, and what the sides' flow control then leaves alone.
extension SessionMachine {
    /// The splice that may carry the rest of a body coming from `side` now, or nil while it must stay
    /// in the buffers: splicing is off, the upstream speaks TLS (its bytes must pass through OpenSSL),
    /// the body is chunked (its framing is read as it passes) or too short to be worth a pipe, or bytes
    /// are still buffered on its way (they leave first, so nothing is reordered).
    mutating func bodySplice(from side: SessionSide, _ progress: BodyProgress, _ upstream: UpstreamLink,
                    _ levels: BufferLevels) -> SessionAction? {
        guard rules.splices, !upstream.isTLS else { return nil }
        let buffered = side == .client ? levels.clientInput + levels.upstreamOutput
                                       : levels.upstreamInput + levels.clientOutput
        guard buffered == 0 else { return nil }
        switch progress {
        case .remaining(let left) where left >= SessionRules.spliceMinimumBytes:
            // Content-Length says where the body ends: the splice reads no byte past it, so a pipelined
            // request or the server's next response stays in its socket.
            if side == .client && clientReadClosed { return nil }
            payloads.spliceLimit = left
            return .spliceBody(from: side)
        case .untilClose where side == .upstream && !upstream.readClosed:
            payloads.spliceLimit = nil
            return .spliceBody(from: side)
        case .remaining, .untilClose, .chunked, .complete:
            return nil
        }
    }

    /// Whether a tunnel may move to the kernel now: splicing was on when the connection was accepted, the
    /// upstream is plain TCP, neither side has closed, and nothing is buffered either way (it leaves
    /// first, so nothing is reordered).
    func tunnelMaySplice(_ upstream: UpstreamLink, _ tracker: HalfCloseTracker, _ levels: BufferLevels) -> Bool {
        rules.splices && !upstream.isTLS && !tracker.isSourceClosed(.toUpstream) && !tracker.isSourceClosed(.toClient)
            && levels == BufferLevels()
    }
}
