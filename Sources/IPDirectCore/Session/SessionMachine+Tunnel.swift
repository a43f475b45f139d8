/// CONNECT tunnels and upgraded connections: bytes both ways with le-proxy's flow control, and
/// half-close passed through.
extension SessionMachine {
    mutating func beginTunnel(_ link: UpstreamLink, now: Int64) {
        state = .tunneling(link, HalfCloseTracker(clientReadClosed: clientReadClosed,
                                                            upstreamReadClosed: link.readClosed))
        actions.append(deadline.arm(.tunnelIdle, millis: rules.proxy.tunnelIdleTimeoutMs, now: now))
        actions.append(.startTunnel)
    }

    /// The driver relayed `moved` bytes read from `source` (possibly none, after an EOF).
    public mutating func tunnelRelayed(from source: SessionSide, moved: Int, _ levels: BufferLevels,
                                       now: Int64) {
        guard case .tunneling = state else { return }
        if moved > 0 {
            noteTunnelBytes(moved, fromClient: source == .client, now: now)
            let destinationOutput = source == .client ? levels.upstreamOutput : levels.clientOutput
            if destinationOutput >= SessionRules.outputHighWater { actions.append(.pauseReading(source)) }
        }
        settleHalfClose(levels)
    }

    /// The driver relayed what was buffered both ways when the tunnel started: the tunnel moves to the kernel
    /// if it may (`tunnelMaySplice`), else it stays in the buffers for its whole life.
    public mutating func tunnelStartRelayed(_ levels: BufferLevels) {
        guard case .tunneling(let link, let tracker) = state, tunnelMaySplice(link, tracker, levels) else { return }
        return actions.append(.spliceTunnel)
    }

    /// Bytes a tunnel moved, buffered or spliced: counted for the log, and activity for the idle deadline.
    private mutating func noteTunnelBytes(_ moved: Int, fromClient: Bool, now: Int64) {
        deadline.noteActivity(now: now)
        if fromClient {
            record.bytesFromClient += UInt64(moved)
        } else {
            record.bytesToClient += UInt64(moved)
        }
    }

    /// Passes each side's FIN on once everything before it has been written, and closes when both
    /// directions are done.
    mutating func settleHalfClose(_ levels: BufferLevels) {
        guard case .tunneling(let link, var tracker) = state else { return }
        if tracker.shutIfFlushed(.toUpstream, pendingBytes: levels.upstreamOutput), !link.isTLS {
            // A FIN under TLS would cut the record stream; a TLS upstream learns of the end when it closes.
            actions.append(.shutWrite(.upstream))
        }
        if tracker.shutIfFlushed(.toClient, pendingBytes: levels.clientOutput) {
            actions.append(.shutWrite(.client))
        }
        state = .tunneling(link, tracker)
        if tracker.isFinished {
            clientWriteShut = true
            close()
        }
    }

    /// The kernel relay moved `moved` bytes one way, and that way's source may have sent its FIN (every byte
    /// before it written): the bytes join the exchange, activity holds the idle deadline off, and the FIN is
    /// passed on by the same tracker as in the buffer relay, which ends the tunnel once both ways are shut.
    public mutating func spliceProgressed(_ direction: HalfCloseTracker.Direction, moved: Int, sourceClosed: Bool,
                                          now: Int64) {
        guard case .tunneling(let link, var tracker) = state else { return }
        if moved > 0 { noteTunnelBytes(moved, fromClient: direction == .toUpstream, now: now) }
        guard sourceClosed else { return }
        tracker.sourceClosed(direction)
        state = .tunneling(link, tracker)
        // Nothing of a spliced tunnel waits in the buffers.
        return settleHalfClose(BufferLevels())
    }

    /// A direction of the kernel relay failed (`failure`), or the tunnel ended otherwise.
    public mutating func tunnelFinished(failure: String?) {
        guard case .tunneling = state else { return }
        if let failure { return close(note: "tunnel \(failure)") }
        return close()
    }
}
