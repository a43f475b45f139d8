/// Answer templates in a set-associative table, as a CPU cache holds lines: a key's set is fixed by its
/// keyed hash, each set holds `ways` templates, and a new template takes the set's slot that is free,
/// then one that no longer holds (another stamp, past its time), then the least recently used. No
/// deletion chains; the table starts small and doubles, while it has room to, when it is three quarters
/// full, so that its memory follows the number of templates up to `slotCount`.
public struct DNSAnswerTemplateTable: Sendable {
    public static let ways = 16
    /// The most slots the table grows to.
    public let slotCount: Int
    static let initialSlots = 64
    private var setMask = 0
    private var occupied = 0
    /// Each slot's key, apart from its template, so that a set is searched without touching templates.
    private var keys: [DNSTemplateKey?] = []
    private var templates: [DNSAnswerTemplate?] = []
    private var lastUse: [UInt64] = []
    private var uses: UInt64 = 0
    /// Source labels, one copy each: every template of a provider shares it.
    private var sourceLabels: Set<String> = []

    /// Source labels kept at most; past it, templates of new labels are not kept (a label is a provider's
    /// name, and there are few of them).
    static let maximumSourceLabels = 256

    /// `slots`: at least `ways`; rounded up to a power of two.
    public init(slots: Int) {
        var sets = 1
        while sets * Self.ways < slots { sets *= 2 }
        slotCount = sets * Self.ways
    }

    public var count: Int { occupied }

    /// Slots allocated now.
    public var capacity: Int { keys.count }

    /// Empties the table into `slots` slots, then keeps again what it held that is still of use.
    private mutating func resize(to slots: Int, now: Int64) {
        let held = templates.compactMap { $0 }
        keys = [DNSTemplateKey?](repeating: nil, count: slots)
        templates = [DNSAnswerTemplate?](repeating: nil, count: slots)
        lastUse = [UInt64](repeating: 0, count: slots)
        setMask = slots / Self.ways - 1
        occupied = 0
        for template in held { place(template, now: now) }
    }

    private func slots(of key: DNSTemplateKey) -> Range<Int> {
        let first = (Int(truncatingIfNeeded: key.keyed) & setMask) * Self.ways
        return first..<(first + Self.ways)
    }

    /// Writes the answer to `query` into `output` when a template holds it at `now` under `stamp`; returns
    /// its size and the template (for the query log). A template of the same key that no longer holds is dropped.
    public mutating func answer(_ query: DNSTemplateQuery, _ queryBytes: UnsafeRawBufferPointer, now: Int64,
                                stamp: DNSAnswerStamp, udpPayload: Int,
                                into output: UnsafeMutableRawBufferPointer) -> (size: Int, template: DNSAnswerTemplate)? {
        guard !keys.isEmpty, let slot = slots(of: query.key).first(where: { keys[$0] == query.key }) else { return nil }
        guard let template = templates[slot], template.answersAt(now, stamp: stamp) else {
            keys[slot] = nil
            templates[slot] = nil
            occupied -= 1
            return nil
        }
        guard let size = template.render(for: query, queryBytes, now: now, udpPayload: udpPayload, into: output) else {
            return nil
        }
        uses &+= 1
        lastUse[slot] = uses
        return (size, template)
    }

    public mutating func keep(_ template: DNSAnswerTemplate, now: Int64) {
        var kept = template
        if let label = sourceLabels.firstIndex(of: template.source) {
            kept.source = sourceLabels[label]
        } else {
            guard sourceLabels.count < Self.maximumSourceLabels else { return }
            sourceLabels.insert(template.source)
        }
        if keys.isEmpty {
            resize(to: min(Self.initialSlots, slotCount), now: now)
        } else if occupied * 4 >= keys.count * 3, keys.count < slotCount {
            resize(to: keys.count * 2, now: now)
        }
        place(kept, now: now)
    }

    private mutating func place(_ template: DNSAnswerTemplate, now: Int64) {
        let set = slots(of: template.key)
        let slot = set.first { keys[$0] == template.key }
            ?? set.first { keys[$0] == nil }
            ?? set.first { slot in templates[slot].map { !$0.answersAt(now, stamp: template.stamp) } ?? true }
            ?? set.min { lastUse[$0] < lastUse[$1] }!
        if keys[slot] == nil { occupied += 1 }
        keys[slot] = template.key
        templates[slot] = template
        uses &+= 1
        lastUse[slot] = uses
    }
}
