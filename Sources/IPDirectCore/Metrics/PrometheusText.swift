/// Builds a page in the Prometheus text exposition format 0.0.4: per family one `# HELP` and one
/// `# TYPE` line, then its samples; label values and help text escaped as the format requires.
public struct PrometheusText: Sendable {
    /// The `Content-Type` a scraper expects for this format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public enum MetricType: String, Sendable, CustomStringConvertible {
        case counter, gauge, histogram

        public var description: String { rawValue }
    }

    public private(set) var text = ""

    public init() {}

    /// Starts a family; every sample written until the next family belongs to it.
    public mutating func family(_ name: String, _ type: MetricType, help: String) {
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// A family of one unlabelled sample.
    public mutating func single(_ name: String, _ type: MetricType, help: String, _ value: UInt64) {
        family(name, type, help: help)
        sample(name, value)
    }

    public mutating func single(_ name: String, _ type: MetricType, help: String, _ value: Int64) {
        family(name, type, help: help)
        sample(name, value)
    }

    public mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: UInt64) {
        line(name, labels, String(value))
    }

    public mutating func sample(_ name: String, labels: [(String, String)] = [], _ value: Int64) {
        line(name, labels, String(value))
    }

    /// The `_bucket` (with `le`), `_sum` (in seconds) and `_count` series of one histogram.
    public mutating func histogram(_ name: String, labels: [(String, String)] = [], _ histogram: LatencyHistogram) {
        for bucket in histogram.cumulativeBuckets {
            let bound = bucket.boundMicros.map(Self.seconds(micros:)) ?? "+Inf"
            line(name + "_bucket", labels + [("le", bound)], String(bucket.count))
        }
        line(name + "_sum", labels, Self.seconds(micros: histogram.sumMicros))
        line(name + "_count", labels, String(histogram.count))
    }

    private mutating func line(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapedLabelValue($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + value + "\n"
    }

    /// Microseconds as decimal seconds without trailing zeros (`2500` is `0.0025`), so `le` values read
    /// the way Prometheus client libraries write them; no floating point, so no `0.0025000000000000001`.
    public static func seconds(micros: Int64) -> String {
        let microsPerSecond: Int64 = 1_000_000
        let fractionDigits = 6
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let whole = magnitude / UInt64(microsPerSecond)
        let fraction = magnitude % UInt64(microsPerSecond)
        guard fraction > 0 else { return sign + String(whole) }
        var digits = String(fraction)
        digits = String(repeating: "0", count: fractionDigits - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return sign + String(whole) + "." + digits
    }

    /// Label values escape backslash, double quote and line feed.
    static func escapedLabelValue(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Help text escapes backslash and line feed.
    static func escapedHelp(_ help: String) -> String {
        var out = ""
        for character in help {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
