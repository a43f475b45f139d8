/// A domain name as a DNS message carries it: labels of octets, with their case as sent (a client may mix
/// case on purpose, draft-vixie-dnsext-dns0x20, and the question must come back as it was asked).
public struct DNSName: Hashable, Sendable, CustomStringConvertible {
    public let labels: [[UInt8]]

    public init(labels: [[UInt8]]) {
        self.labels = labels
    }

    /// `www.example.com`, `example.com.` or `.` for the root; nil when a label is empty or the name is too
    /// long for the wire.
    public init?(_ text: String) {
        var trimmed = Substring(text)
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty else {
            self.labels = []
            return
        }
        let labels = trimmed.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
        guard labels.allSatisfy({ !$0.isEmpty && $0.count <= DNSWireReader.maximumLabelLength }),
              labels.reduce(1, { $0 + $1.count + 1 }) <= DNSWireReader.maximumNameLength else { return nil }
        self.labels = labels
    }

    public static let root = DNSName(labels: [])

    /// The name in lower case with dots between labels and no trailing dot (`""` for the root), or nil when
    /// a label holds an octet a host name never has (a dot, a control character, a non-ASCII octet): such
    /// a name is never looked up.
    public var hostName: String? {
        var text: [UInt8] = []
        for (index, label) in labels.enumerated() {
            if index > 0 { text.append(UInt8(ascii: ".")) }
            for octet in label {
                guard octet > 0x20, octet < 0x7F, octet != UInt8(ascii: ".") else { return nil }
                text.append(Self.lowercased(octet))
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The same name whatever the case of its ASCII letters (RFC 4343 §3): how a server's echo of a
    /// question is compared with the question, since servers may change its case.
    public func equalsIgnoringCase(_ other: DNSName) -> Bool {
        guard labels.count == other.labels.count else { return false }
        return zip(labels, other.labels).allSatisfy { mine, theirs in
            mine.count == theirs.count && zip(mine, theirs).allSatisfy { Self.lowercased($0) == Self.lowercased($1) }
        }
    }

    static func lowercased(_ octet: UInt8) -> UInt8 {
        octet >= UInt8(ascii: "A") && octet <= UInt8(ascii: "Z") ? octet | 0x20 : octet
    }

    /// The wire form without compression: each label after its length, then the root label.
    public var wire: [UInt8] {
        var bytes: [UInt8] = []
        for label in labels {
            bytes.append(UInt8(label.count))
            bytes += label
        }
        bytes.append(0)
        return bytes
    }

    /// The name as the query log shows it: the host name when it is one, else what dig prints without the
    /// final dot, so a query for a name no host has is still seen for what it asked.
    public var displayName: String {
        if let hostName { return hostName }
        return labels.isEmpty ? "." : String(description.dropLast())
    }

    /// Lower case, escaped where a label holds a dot or an unprintable octet (`\.`, `\DDD`), with a
    /// trailing dot: as dig prints a name.
    public var description: String {
        guard !labels.isEmpty else { return "." }
        var text = ""
        for label in labels {
            for octet in label {
                switch octet {
                case UInt8(ascii: "."), UInt8(ascii: "\\"):
                    text += "\\" + String(UnicodeScalar(octet))
                case 0x21..<0x7F:
                    text.append(Character(UnicodeScalar(Self.lowercased(octet))))
                default:
                    let digits = String(octet)
                    text += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
                }
            }
            text += "."
        }
        return text
    }
}
