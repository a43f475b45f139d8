/// Finds out whether the `system` source asks ipdirect itself: once /etc/resolv.conf names ipdirect's own
/// DNS listener, every name the system source looks up comes back to the listener, which looks it up again
/// (dnsmasq's `--dns-loop-detect` and CoreDNS's `loop` plugin solve the same problem the same way).
///
/// A probe is a random name under `probeSuffix`, sent through the system source; the listener answers every
/// such name NXDOMAIN at once and reports it here. Only the name of the probe in flight counts, so neither a
/// client nor another ipdirect's probe can switch the system source off.
public struct DNSLoopGuard: Sendable {
    /// Under `.invalid` (RFC 6761 §6.4), so a probe that leaks to a real resolver is answered NXDOMAIN there.
    public static let probeSuffix = "ipdirect-loop.invalid"
    /// A probe unanswered this long no longer blocks the next one (the system source times out well before).
    public static let probeTimeoutMillis: Int64 = 30_000

    /// What an arriving probe name means.
    public enum Arrival: Equatable, Sendable {
        /// The probe in flight came back: a loop, newly found. Switch the system source off and say so.
        case loopDetected
        /// The probe in flight came back again (evdns asks A and AAAA), or the loop is known already.
        case loopKnown
        /// Not the probe in flight: an old one, another instance's, or a client's guess. Answer and forget.
        case notOurs
    }

    /// What a finished probe means.
    public enum Completion: Equatable, Sendable {
        /// A loop was known, and this probe never reached the listener: the system source may be used again.
        case loopCleared
        case unchanged
    }

    /// True from a detection until a later probe finds the loop gone: the system source and `compare_system`
    /// are not used meanwhile.
    public private(set) var loopDetected = false
    /// Loops found since start, for `ipdirect_dns_loop_detections_total`.
    public private(set) var detections: UInt64 = 0
    private var inFlight: (name: String, startedAt: Int64, arrived: Bool)?

    public init() {}

    /// A probe name, or one with a `search` domain of resolv.conf appended: evdns tries those after NXDOMAIN.
    /// Asked for every query the listener reads, so it looks for the suffix's bytes before it splits anything.
    public static func isProbeName(_ host: String) -> Bool {
        guard host.utf8.count > probeSuffix.utf8.count, containsMarker(host) else { return false }
        let labels = host.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        let suffix = probeSuffix.split(separator: ".")
        // The random label first, then the suffix's labels, then nothing or a search domain.
        return labels.count > suffix.count && labels[1...suffix.count].elementsEqual(suffix)
    }

    /// The suffix's first label between dots, which every probe name holds.
    private static let probeSuffixMarker = Array(("." + probeSuffix.prefix { $0 != "." } + ".").utf8)

    /// Whether `host` holds the marker, ASCII letters compared without case.
    private static func containsMarker(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        let marker = probeSuffixMarker
        guard bytes.count >= marker.count else { return false }
        let asciiCaseBit: UInt8 = 0x20
        for start in 0...(bytes.count - marker.count) {
            var index = 0
            while index < marker.count, bytes[start + index] | asciiCaseBit == marker[index] | asciiCaseBit { index += 1 }
            if index == marker.count { return true }
        }
        return false
    }

    /// `0123456789abcdef.ipdirect-loop.invalid` from 64 random bits.
    public static func probeName(nonce: UInt64) -> String {
        let hex = String(nonce, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "." + probeSuffix
    }

    /// The name to send, or nil while another probe is in flight (one at a time bounds what probing costs).
    public mutating func begin(nonce: UInt64, now: Int64) -> String? {
        if let inFlight, now - inFlight.startedAt < Self.probeTimeoutMillis { return nil }
        let name = Self.probeName(nonce: nonce)
        inFlight = (name, now, false)
        return name
    }

    /// A probe name reached the listener, maybe with a search domain appended. Resolvers may change the
    /// letters' case (evdns's 0x20 bit), so the match ignores it.
    public mutating func arrived(_ host: String) -> Arrival {
        let name = host.lowercased()
        guard var probe = inFlight, name == probe.name || name.hasPrefix(probe.name + ".") else { return .notOurs }
        let first = !probe.arrived
        probe.arrived = true
        inFlight = probe
        guard first, !loopDetected else { return .loopKnown }
        loopDetected = true
        detections += 1
        return .loopDetected
    }

    /// The system source answered the probe `name` (NXDOMAIN, a timeout, anything).
    public mutating func finished(_ name: String) -> Completion {
        guard let probe = inFlight, probe.name == name else { return .unchanged }
        inFlight = nil
        guard loopDetected, !probe.arrived else { return .unchanged }
        loopDetected = false
        return .loopCleared
    }
}
