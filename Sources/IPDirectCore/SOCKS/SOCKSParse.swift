/// What the bytes received so far make of one SOCKS message.
///
/// The SOCKS handshake has no framing of its own: each message says its length only as it goes, so a
/// parser is handed everything received and either finds a whole message, asks for more, or refuses.
public enum SOCKSParse<Message> {
    /// No byte is wrong yet and more bytes are needed.
    case incomplete
    /// The message and the bytes it took; what follows belongs to the next message or to the tunnel.
    case complete(Message, length: Int)
    /// No bytes that could follow make this a valid message. The reason is one line of ASCII for the log.
    case invalid(String)
}

extension SOCKSParse {
    /// Reads on with `next` from where a complete part ended; an incomplete or invalid part ends the
    /// message the same way.
    func then<Next>(_ next: (Message, _ end: Int) -> SOCKSParse<Next>) -> SOCKSParse<Next> {
        switch self {
        case .incomplete: return .incomplete
        case .complete(let message, let length): return next(message, length)
        case .invalid(let reason): return .invalid(reason)
        }
    }
}

extension SOCKSParse: Equatable where Message: Equatable {}
extension SOCKSParse: Sendable where Message: Sendable {}

extension SOCKSParse: CustomStringConvertible {
    public var description: String {
        switch self {
        case .incomplete: return "incomplete"
        case .complete(let message, let length): return "complete(\(message), \(length) bytes)"
        case .invalid(let reason): return "invalid: \(reason)"
        }
    }
}
