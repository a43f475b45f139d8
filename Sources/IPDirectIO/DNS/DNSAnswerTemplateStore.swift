import IPDirectCore
import Synchronization

/// The DNS listener's answer templates, shared by every worker (each would otherwise hold its own copy of
/// every name): `stripeCount` tables, a key's stripe chosen by its keyed hash, each behind its own lock, so
/// that two workers rarely wait for the same one and never for long (a lookup copies at most a few
/// hundred octets).
final class DNSAnswerTemplateStore: Sendable {
    private final class Stripe: Sendable {
        let table: Mutex<DNSAnswerTemplateTable>

        init(slots: Int) {
            table = Mutex(DNSAnswerTemplateTable(slots: slots))
        }
    }

    private let stripes: [Stripe]

    static let stripeCount = 64
    /// Templates kept at least, whatever the cache's size.
    static let minimumSlots = 4_096

    /// `slots`: about one per resolver cache entry (a name's family), since only cached answers become
    /// templates. Each stripe takes its memory when its first template arrives.
    init(slots: Int) {
        let perStripe = max(slots, Self.minimumSlots) / Self.stripeCount
        stripes = (0..<Self.stripeCount).map { _ in Stripe(slots: perStripe) }
    }

    private func stripe(for key: DNSTemplateKey) -> Stripe {
        // The high bits: the table takes the set from the low ones.
        stripes[Int(truncatingIfNeeded: key.keyed >> 58) % Self.stripeCount]
    }

    func answer(_ query: DNSTemplateQuery, _ queryBytes: UnsafeRawBufferPointer, now: Int64, stamp: DNSAnswerStamp,
                udpPayload: Int, into output: UnsafeMutableRawBufferPointer) -> (size: Int, template: DNSAnswerTemplate)? {
        stripe(for: query.key).table.withLock { table in
            table.answer(query, queryBytes, now: now, stamp: stamp, udpPayload: udpPayload, into: output)
        }
    }

    func keep(_ template: DNSAnswerTemplate, now: Int64) {
        stripe(for: template.key).table.withLock { $0.keep(template, now: now) }
    }
}
