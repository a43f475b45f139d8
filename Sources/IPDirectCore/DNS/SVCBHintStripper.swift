/// Rewrites the RDATA of an SVCB or HTTPS record (RFC 9460 §2.2) without its address hints. A client may
/// connect to `ipv4hint`/`ipv6hint` addresses instead of asking A and AAAA (RFC 9460 §7.3), which would
/// bypass the proxy's ranking; without them it asks A and AAAA, which ipdirect answers ranked.
public enum SVCBHintStripper {
    /// SvcParamKeys (RFC 9460 §14.3.2).
    static let mandatoryKey: UInt16 = 0
    static let ipv4HintKey: UInt16 = 4
    static let ipv6HintKey: UInt16 = 6
    static let hintKeys: Set<UInt16> = [ipv4HintKey, ipv6HintKey]

    /// The RDATA without the hint parameters, lengths fixed; nil when it is not a well-formed SVCB RDATA
    /// (the record is then better dropped than relayed with hints we could not see).
    public static func strip(_ rdata: [UInt8]) -> [UInt8]? {
        var reader = DNSWireReader(rdata)
        do {
            _ = try reader.u16()
            let targetStart = reader.offset
            let target = try reader.name()
            // RFC 9460 §2.2: TargetName is never compressed; a pointer here would point into nothing.
            guard reader.offset - targetStart == target.wire.count else { return nil }
            var stripped = Array(rdata[0..<reader.offset])
            while reader.remaining > 0 {
                let key = try reader.u16()
                let length = Int(try reader.u16())
                let valueStart = reader.offset
                try reader.skip(length)
                var value = Array(rdata[valueStart..<reader.offset])
                if hintKeys.contains(key) { continue }
                if key == mandatoryKey {
                    // A key listed as mandatory must be present (RFC 9460 §8): the removed hints leave the
                    // list, and an empty list leaves the record.
                    guard let kept = keptMandatoryKeys(value) else { return nil }
                    if kept.isEmpty { continue }
                    value = kept
                }
                stripped += [UInt8(key >> 8), UInt8(truncatingIfNeeded: key),
                             UInt8(value.count >> 8), UInt8(truncatingIfNeeded: value.count)] + value
            }
            return stripped
        } catch {
            return nil
        }
    }

    /// The `mandatory` value (a list of 16-bit keys) without the hint keys; nil if its length is odd.
    private static func keptMandatoryKeys(_ value: [UInt8]) -> [UInt8]? {
        guard value.count % 2 == 0, !value.isEmpty else { return nil }
        var kept: [UInt8] = []
        for index in stride(from: 0, to: value.count, by: 2) {
            let key = UInt16(value[index]) << 8 | UInt16(value[index + 1])
            if !hintKeys.contains(key) { kept += value[index...(index + 1)] }
        }
        return kept
    }
}
