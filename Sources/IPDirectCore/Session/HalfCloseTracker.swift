/// Half-close passed through a relay: a FIN read from one side ends only that direction (RFC 9293
/// §3.6), so it becomes a shut write side toward the other peer once every byte before it has been
/// written. The relay is over when both directions are shut. One per tunnel, in the session's
/// machine, before and after the tunnel moves to the kernel (splice).
public struct HalfCloseTracker: Sendable, Equatable {
    /// One direction of the relay, named after where its bytes go.
    public enum Direction: Sendable, Equatable {
        /// Read from the client, written to the upstream.
        case toUpstream
        /// Read from the upstream, written to the client.
        case toClient
    }

    private var toUpstreamReadClosed: Bool
    private var toClientReadClosed: Bool
    private var toUpstreamWriteShut = false
    private var toClientWriteShut = false

    public init(clientReadClosed: Bool = false, upstreamReadClosed: Bool = false) {
        toUpstreamReadClosed = clientReadClosed
        toClientReadClosed = upstreamReadClosed
    }

    /// The direction's source sent its FIN.
    public mutating func sourceClosed(_ direction: Direction) {
        switch direction {
        case .toUpstream: toUpstreamReadClosed = true
        case .toClient: toClientReadClosed = true
        }
    }

    public func isSourceClosed(_ direction: Direction) -> Bool {
        direction == .toUpstream ? toUpstreamReadClosed : toClientReadClosed
    }

    public func isWriteShut(_ direction: Direction) -> Bool {
        direction == .toUpstream ? toUpstreamWriteShut : toClientWriteShut
    }

    /// Whether the direction's destination must now be shut for writing: its source is closed, none of
    /// its bytes are still waiting (`pendingBytes`), and it was not shut before. Records the shut when true.
    public mutating func shutIfFlushed(_ direction: Direction, pendingBytes: Int) -> Bool {
        guard isSourceClosed(direction), pendingBytes == 0, !isWriteShut(direction) else { return false }
        switch direction {
        case .toUpstream: toUpstreamWriteShut = true
        case .toClient: toClientWriteShut = true
        }
        return true
    }

    /// Both directions passed their FIN on: nothing more can move.
    public var isFinished: Bool { toUpstreamWriteShut && toClientWriteShut }
}
