import CEvent

/// DNS messages on a stream (RFC 1035 §4.2.2, RFC 7766 §8, RFC 7858 §3.3): each after its length in two
/// octets. The listener's TCP connections, the forwarder's TCP retry and DoT connections all frame this way.
enum DNSStreamFraming {
    static let prefixSize = 2

    /// The next whole message in `input`, taken off it; nil while not all of it is there.
    static func takeMessage(from input: OpaquePointer?) -> [UInt8]? {
        guard let input else { return nil }
        var prefix = [UInt8](repeating: 0, count: prefixSize)
        guard evbuffer_copyout(input, &prefix, prefixSize) == prefixSize else { return nil }
        let length = Int(prefix[0]) << 8 | Int(prefix[1])
        guard ipd_evbuffer_length(input) >= prefixSize + length else { return nil }
        evbuffer_drain(input, prefixSize)
        var message = [UInt8](repeating: 0, count: length)
        if length > 0 { evbuffer_remove(input, &message, length) }
        return message
    }

    /// `message` after its length, added to `output`.
    static func append(_ message: [UInt8], to output: OpaquePointer?) {
        guard let output else { return }
        let prefix: [UInt8] = [UInt8(message.count >> 8), UInt8(truncatingIfNeeded: message.count)]
        evbuffer_add(output, prefix, prefix.count)
        evbuffer_add(output, message, message.count)
    }
}
