/// How one query to a resolver source ended, for the counters the metrics endpoint reports.
public enum SourceQueryOutcome: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Addresses came back and were accepted.
    case answered
    /// The name does not exist or has no address (a negative answer, cached).
    case negative
    /// No usable answer: transport error, HTTP error, garbage, or an answer refused by the checks.
    case failed
    /// No answer within the source's timeout.
    case timeout

    public var description: String { rawValue }
}

/// Queries per source (a provider's name, or `system`) and outcome, how often the system resolver
/// disagreed with HTTPDNS (`compare_system`), and the TLS connections each `dot` provider opened.
public struct SourceQueryCounters: Sendable, Equatable, CustomStringConvertible {
    public private(set) var queries: [String: [SourceQueryOutcome: UInt64]] = [:]
    /// Names for which the system resolver's addresses shared none with HTTPDNS's.
    public var systemDisagreements: UInt64 = 0
    /// TLS connections opened per `dot` provider: one while the pipeline holds, one more per reconnect.
    public private(set) var dotConnectionsOpened: [String: UInt64] = [:]

    public init() {}

    public mutating func count(_ outcome: SourceQueryOutcome, source: String) {
        queries[source, default: [:]][outcome, default: 0] += 1
    }

    public mutating func countDoTConnectionOpened(provider: String) {
        dotConnectionsOpened[provider, default: 0] += 1
    }

    public func count(source: String, outcome: SourceQueryOutcome) -> UInt64 {
        queries[source]?[outcome] ?? 0
    }

    public var description: String {
        let perSource = queries.keys.sorted().map { source in
            let outcomes = SourceQueryOutcome.allCases.compactMap { outcome in
                queries[source]?[outcome].map { "\(outcome)=\($0)" }
            }
            return "\(source)[\(outcomes.joined(separator: " "))]"
        }
        return (perSource + ["system_disagreements=\(systemDisagreements)"]).joined(separator: " ")
    }
}
