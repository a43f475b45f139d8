import CEvent
import IPDirectCore

/// A connection redirected to the transparent listener: its first bytes handed to the machine where they
/// lie, and what the log and the metrics say of it.
extension ClientSession {
    /// Everything the client has sent so far, up to a ClientHello's limit, without taking it from the buffer.
    func sniffClientInput() {
        let length = min(client.inputLength, ClientHelloReader.maximumBytes)
        guard length > 0, let bytes = evbuffer_pullup(clientInput, length) else { return }
        perform(machine.clientBytesSniffed(UnsafeRawBufferPointer(start: bytes, count: length), levels,
                                           now: clock.nowMicros))
    }

    /// The client's own address for the name is not among those the name resolves to: its resolver was
    /// hijacked, stale, or chose a node of its own. A warning, as `compare_system`'s hijack detection is.
    func reportTransparentMismatch() {
        guard let transparent = machine.transparent else { return }
        let answer = transparent.answer.map(\.description).joined(separator: ",")
        Logger.warning("session=\(id) client=\(peer) event=transparent_mismatch name=\(LogQuote.token(machine.request.host)) sniffed=\(transparent.sniffed) orig=\(transparent.original) answer=\(answer) mode=\(configuration.rules.transparent.mode.rawValue)")
    }

    /// What became of this redirected connection, counted once.
    func countTransparent(_ transparent: TransparentConnection) {
        transparentCounted = true
        let outcome: TransparentOutcome
        if machine.record.upstreamAddress == "-" {
            outcome = .refused
        } else if transparent.sniffed == .none || configuration.rules.transparent.mode == .observe {
            outcome = .original
        } else {
            outcome = .resolved
        }
        worker.metrics.update { $0.countTransparent(sniffed: transparent.sniffed, outcome: outcome) }
    }
}
