/// Seconds each address family's cached answer may still be used; nil where nothing was cached for it.
/// Two numbers rather than a dictionary: every cached answer a request is given carries one, and this
/// costs neither an allocation nor a hash.
public struct SecondsLeftByFamily: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public var v4: Int64?
    public var v6: Int64?

    public init() {}

    public init(dictionaryLiteral elements: (AddressFamily, Int64)...) {
        for (family, seconds) in elements { self[family] = seconds }
    }

    public subscript(family: AddressFamily) -> Int64? {
        get { family == .v4 ? v4 : v6 }
        set {
            switch family {
            case .v4: v4 = newValue
            case .v6: v6 = newValue
            }
        }
    }

    /// The seconds of the family that runs out first; nil when neither is cached.
    public var soonest: Int64? {
        switch (v4, v6) {
        case let (four?, six?): return min(four, six)
        case let (four?, nil): return four
        case let (nil, six?): return six
        case (nil, nil): return nil
        }
    }
}
