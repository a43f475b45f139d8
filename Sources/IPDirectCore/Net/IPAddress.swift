/// An IPv4 or IPv6 address as plain values, so policy code never touches sockaddr.
public enum IPAddress: Hashable, Sendable {
    /// Host byte order: 127.0.0.1 is 0x7F00_0001.
    case v4(UInt32)
    /// The 16 bytes as two big-endian halves: ::1 is (0, 1).
    case v6(UInt64, UInt64)

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (no brackets, no zone id).
    public init?<S: StringProtocol>(_ text: S) {
        if text.utf8.contains(UInt8(ascii: ":")) {
            guard let bytes = IPAddress.parseV6(Array(text.utf8)) else { return nil }
            self = IPAddress(bytes: bytes)!
        } else {
            // Every request's host passes here to tell literals from names: a name is refused without
            // copying its bytes.
            guard text.utf8.allSatisfy(IPAddress.isDigitOrDot), let value = IPAddress.parseV4(Array(text.utf8)) else { return nil }
            self = .v4(value)
        }
    }

    /// Whether `host` could be an IP literal at all (a colon, or only digits and dots): names, the usual
    /// case on every request, are told apart without the generic parser.
    public static func mayBeLiteral(_ host: String) -> Bool {
        host.utf8.withContiguousStorageIfAvailable(mayBeLiteral(bytes:)) ?? mayBeLiteral(bytes: host.utf8)
    }

    private static func mayBeLiteral(bytes: some Sequence<UInt8>) -> Bool {
        bytes.contains(UInt8(ascii: ":")) || bytes.allSatisfy(isDigitOrDot)
    }

    /// The bytes an IPv4 literal is made of.
    static func isDigitOrDot(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
    }

    /// Builds an address from 4 or 16 network-order bytes.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4:
            self = .v4(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16:
            let hi = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let lo = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(hi, lo)
        default:
            return nil
        }
    }

    /// Network-order bytes: 4 for IPv4, 16 for IPv6.
    public var bytes: [UInt8] {
        switch self {
        case .v4(let value):
            return (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) }
        case .v6(let hi, let lo):
            return (0..<8).map { UInt8(truncatingIfNeeded: hi >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: lo >> (56 - 8 * UInt64($0))) }
        }
    }

    public var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// Loopback, private, link-local, shared (CGNAT), unspecified, multicast or
    /// broadcast: addresses a public name should never resolve to (DNS-rebinding guard). An IPv6 address
    /// that carries an IPv4 address a translator or relay would deliver to is judged by that IPv4
    /// address, or `64:ff9b::10.0.0.1` would reach a private network through a NAT64 gateway.
    public var isNonPublic: Bool {
        switch self {
        case .v4(let a):
            func within(_ prefix: UInt32, _ bits: UInt32) -> Bool {
                a >> (32 - bits) == prefix >> (32 - bits)
            }
            return within(0x0000_0000, 8)      // 0.0.0.0/8 "this network"
                || within(0x0A00_0000, 8)      // 10/8
                || within(0x6440_0000, 10)     // 100.64/10 shared address space
                || within(0x7F00_0000, 8)      // loopback
                || within(0xA9FE_0000, 16)     // link-local
                || within(0xAC10_0000, 12)     // 172.16/12
                || within(0xC000_0000, 24)     // 192.0.0/24 protocol assignments
                || within(0xC0A8_0000, 16)     // 192.168/16
                || within(0xC612_0000, 15)     // 198.18/15 benchmarking
                || within(0xE000_0000, 4)      // multicast
                || within(0xF000_0000, 4)      // reserved and broadcast
        case .v6(let hi, let lo):
            if hi == 0 && (lo == 0 || lo == 1) { return true }             // :: and ::1
            if let embedded = embeddedIPv4 { return embedded.isNonPublic }
            let top16 = hi >> 48
            return top16 & 0xFE00 == 0xFC00                                 // fc00::/7 unique local
                || top16 & 0xFFC0 == 0xFE80                                 // fe80::/10 link-local
                || top16 & 0xFFC0 == 0xFEC0                                 // fec0::/10 site-local (deprecated by RFC 3879, still routed inside sites)
                || top16 & 0xFF00 == 0xFF00                                 // ff00::/8 multicast
                || hi >> 16 == 0x0064_FF9B_0001                             // 64:ff9b:1::/48 local-use NAT64 (RFC 8215)
        }
    }

    /// The IPv4 address inside an IPv6 address whose packets end up at that IPv4 address: IPv4-mapped
    /// `::ffff:0:0/96` and IPv4-compatible `::/96` (RFC 4291 §2.5.5), IPv4-translated `::ffff:0:0:0/96`
    /// (RFC 2765 §2.1, SIIT), well-known NAT64 `64:ff9b::/96`
    /// (RFC 6052 §2.1) and 6to4 `2002::/16` with the relay's address in bits 16..47 (RFC 3056 §2).
    var embeddedIPv4: IPAddress? {
        guard case .v6(let hi, let lo) = self else { return nil }
        let low32 = IPAddress.v4(UInt32(truncatingIfNeeded: lo))
        if hi == 0 && (lo >> 32 == 0xFFFF || lo >> 32 == 0 || lo >> 32 == 0xFFFF_0000) { return low32 }
        if hi == 0x0064_FF9B_0000_0000 && lo >> 32 == 0 { return low32 }
        if hi >> 48 == 0x2002 { return .v4(UInt32(truncatingIfNeeded: hi >> 16)) }
        return nil
    }

    /// 127.0.0.0/8 or ::1: reachable from this machine only.
    public var isLoopbackAddress: Bool {
        switch self {
        case .v4(let value): return value >> 24 == 0x7F
        case .v6(let hi, let lo): return hi == 0 && lo == 1
        }
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2) as the IPv4 address it stands
    /// for; any other address as it is. A dual-stack listener sees IPv4 clients in the mapped form.
    public var unmapped: IPAddress {
        if case .v6(let hi, let lo) = self, hi == 0, lo >> 32 == 0xFFFF {
            return .v4(UInt32(truncatingIfNeeded: lo))
        }
        return self
    }

    private static func parseV4(_ text: [UInt8]) -> UInt32? {
        var value: UInt32 = 0
        var parts = 0
        var index = 0
        while index <= text.count {
            var digits = 0
            var part: UInt32 = 0
            while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") {
                // Leading zeros are refused: some resolvers read them as octal.
                if digits == 1 && part == 0 { return nil }
                part = part * 10 + UInt32(text[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
                if part > 255 { return nil }
            }
            guard digits > 0 else { return nil }
            value = value << 8 | part
            parts += 1
            if index == text.count { break }
            guard text[index] == UInt8(ascii: "."), parts < 4 else { return nil }
            index += 1
        }
        return parts == 4 ? value : nil
    }

    private static func parseV6(_ text: [UInt8]) -> [UInt8]? {
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawGap = false
        var groups = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)[...]
        // "::" at either end produces two empty groups; fold them to one gap marker.
        if text.starts(with: [58, 58]) { groups = groups.dropFirst() }
        if text.count >= 2 && text.suffix(2) == [58, 58] { groups = groups.dropLast() }
        var embeddedV4: UInt32?
        for (position, group) in groups.enumerated() {
            if group.isEmpty {
                guard !sawGap else { return nil }
                sawGap = true
                continue
            }
            if position == groups.count - 1, group.contains(UInt8(ascii: ".")) {
                guard let v4 = parseV4(Array(group)) else { return nil }
                embeddedV4 = v4
                continue
            }
            guard group.count <= 4 else { return nil }
            var word: UInt16 = 0
            for byte in group {
                guard let nibble = HTTPByte.hexValue(byte) else { return nil }
                word = word << 4 | UInt16(nibble)
            }
            if sawGap { tail.append(word) } else { head.append(word) }
        }
        if let v4 = embeddedV4 {
            let words = [UInt16(truncatingIfNeeded: v4 >> 16), UInt16(truncatingIfNeeded: v4)]
            if sawGap { tail += words } else { head += words }
        }
        let count = head.count + tail.count
        guard sawGap ? count < 8 : count == 8 else { return nil }
        let words = head + Array(repeating: 0, count: 8 - count) + tail
        return words.flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }
}

extension IPAddress: CustomStringConvertible {
    /// Dotted quad, or the RFC 5952 canonical IPv6 form (longest zero run compressed).
    public var description: String {
        switch self {
        case .v4:
            return bytes.map(String.init).joined(separator: ".")
        case .v6:
            let b = bytes
            let words = (0..<8).map { UInt16(b[2 * $0]) << 8 | UInt16(b[2 * $0 + 1]) }
            var bestStart = -1, bestLength = 0, runStart = -1
            for index in 0...8 {
                if index < 8 && words[index] == 0 {
                    if runStart < 0 { runStart = index }
                } else if runStart >= 0 {
                    if index - runStart > bestLength && index - runStart > 1 {
                        bestStart = runStart
                        bestLength = index - runStart
                    }
                    runStart = -1
                }
            }
            func hex(_ range: Range<Int>) -> String {
                range.map { String(words[$0], radix: 16) }.joined(separator: ":")
            }
            if bestStart < 0 { return hex(0..<8) }
            return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
        }
    }
}
