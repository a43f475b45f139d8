/// A block of addresses in CIDR notation (RFC 4632 §3.1, RFC 4291 §2.3): `10.0.0.0/8`, `fc00::/7`. A bare
/// address is the block of that one address (/32 or /128). A block inside `::ffff:0:0/96` is kept as the
/// IPv4 block it maps, since mapped clients are matched as IPv4.
public struct IPPrefix: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block: every bit past `length` is zero.
    public let network: IPAddress
    public let length: Int

    /// Why a text is not a prefix.
    public enum ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        case notAPrefix(String)
        case lengthOutOfRange(String, maximum: Int)
        /// Bits are set past the length: the block the text most likely means is `network`.
        case hostBitsSet(String, network: IPPrefix)

        public var description: String {
            switch self {
            case .notAPrefix(let text):
                return "\(LogQuote.singleQuoted(text)) is not an address or a prefix such as 192.168.0.0/16 or fd00::/8"
            case .lengthOutOfRange(let text, let maximum):
                return "\(LogQuote.singleQuoted(text)): the prefix length must be 0-\(maximum)"
            case .hostBitsSet(let text, let network):
                return "\(LogQuote.singleQuoted(text)) has bits set past the prefix length; the network is \(network)"
            }
        }
    }

    /// Parses `address/length` or a bare address.
    public init?(_ text: String) {
        guard case .success(let prefix) = IPPrefix.parse(text) else { return nil }
        self = prefix
    }

    private init(checked network: IPAddress, length: Int) {
        let mappedBlockLength = 96
        if case .v4(let value) = network.unmapped, network.isIPv6, length >= mappedBlockLength {
            self.network = .v4(value)
            self.length = length - mappedBlockLength
        } else {
            self.network = network
            self.length = length
        }
    }

    public static func parse(_ text: String) -> Result<IPPrefix, ParseError> {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return .failure(.notAPrefix(text)) }
        let maximum = bits(of: address)
        guard parts.count == 2 else { return .success(IPPrefix(checked: address, length: maximum)) }
        let digits = parts[1]
        // Digits only: `Int("+8")` would accept a sign.
        guard !digits.isEmpty, digits.count <= 3, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let length = Int(digits) else { return .failure(.notAPrefix(text)) }
        guard length <= maximum else { return .failure(.lengthOutOfRange(text, maximum: maximum)) }
        let network = masked(address, to: length)
        guard network == address else {
            return .failure(.hostBitsSet(text, network: IPPrefix(checked: network, length: length)))
        }
        return .success(IPPrefix(checked: address, length: length))
    }

    /// Whether `address` lies in the block; an address of the other family never does.
    public func contains(_ address: IPAddress) -> Bool {
        switch (network, address) {
        case (.v4, .v4), (.v6, .v6): return IPPrefix.masked(address, to: length) == network
        default: return false
        }
    }

    /// Whether every address of `other` lies in this block.
    public func covers(_ other: IPPrefix) -> Bool {
        length <= other.length && contains(other.network)
    }

    public var description: String { "\(network)/\(length)" }

    static func bits(of address: IPAddress) -> Int {
        address.isIPv6 ? 128 : 32
    }

    /// `address` with every bit past the first `length` cleared. Swift's `<<` gives 0 for a shift by the
    /// whole width, which is the mask of length 0.
    static func masked(_ address: IPAddress, to length: Int) -> IPAddress {
        switch address {
        case .v4(let value):
            return .v4(value & (UInt32.max << (32 - length)))
        case .v6(let hi, let lo):
            return .v6(hi & (UInt64.max << (64 - min(length, 64))), lo & (UInt64.max << (128 - max(length, 64))))
        }
    }
}
