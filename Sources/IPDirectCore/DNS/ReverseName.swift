/// A name under `in-addr.arpa` (RFC 1035 §3.5) or `ip6.arpa` (RFC 3596 §2.5), read as the range of
/// addresses it stands for: `10.in-addr.arpa` is 10.0.0.0/8.
struct ReverseName {
    let lowest: IPAddress
    let highest: IPAddress

    init?(_ host: String) {
        let labels = host.split(separator: ".")
        if host.hasSuffix(".in-addr.arpa") {
            let octets = labels.dropLast(2).reversed().compactMap { UInt8($0) }
            guard octets.count == labels.count - 2, (1...4).contains(octets.count) else { return nil }
            var low: UInt32 = 0, high: UInt32 = 0
            for index in 0..<4 {
                let octet = index < octets.count ? UInt32(octets[index]) : nil
                low = low << 8 | (octet ?? 0)
                high = high << 8 | (octet ?? 0xFF)
            }
            lowest = .v4(low)
            highest = .v4(high)
        } else if host.hasSuffix(".ip6.arpa") {
            let nibbles = labels.dropLast(2).reversed().compactMap { $0.count == 1 ? UInt8($0, radix: 16) : nil }
            guard nibbles.count == labels.count - 2, (1...32).contains(nibbles.count) else { return nil }
            var low = (UInt64(0), UInt64(0)), high = (UInt64(0), UInt64(0))
            for index in 0..<32 {
                let nibble = index < nibbles.count ? UInt64(nibbles[index]) : nil
                if index < 16 {
                    low.0 = low.0 << 4 | (nibble ?? 0)
                    high.0 = high.0 << 4 | (nibble ?? 0xF)
                } else {
                    low.1 = low.1 << 4 | (nibble ?? 0)
                    high.1 = high.1 << 4 | (nibble ?? 0xF)
                }
            }
            lowest = .v6(low.0, low.1)
            highest = .v6(high.0, high.1)
        } else {
            return nil
        }
    }

    /// Every address of the range is one that a public name should never resolve to, so asking the world
    /// about it only tells the world which private addresses this network uses.
    var isPrivate: Bool { lowest.isNonPublic && highest.isNonPublic }
}
