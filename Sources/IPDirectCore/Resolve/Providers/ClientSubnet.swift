/// The network a provider is told the clients are in (`client_subnet = "203.0.113.0/24"`), so it
/// answers with the nodes nearest to them rather than to the daemon: RFC 7871 EDNS Client Subnet for
/// DoH, `edns_client_subnet=` for the JSON API, `ip=` for Alibaba Cloud and Tencent DNSPod.
///
/// Host bits must be zero as written: RFC 7871 §6 has a server answer FORMERR to an ADDRESS with bits
/// set past SOURCE PREFIX-LENGTH, and a silently masked `203.0.113.7/16` would hide a typo, so the
/// configuration refuses such a value and names the prefix it probably meant.
public struct ClientSubnet: Sendable, Hashable, CustomStringConvertible {
    /// The network address, host bits zero.
    public let address: IPAddress
    /// 0-32 for IPv4, 0-128 for IPv6. RFC 7871 §7.1.2: 0 asks the resolver not to use any client
    /// address at all (no ECS scoping), which only the DNS-based formats can say.
    public let prefixLength: Int

    /// RFC 7871 §6: the EDNS0 option code of ECS.
    public static let optionCode: UInt16 = 8
    /// RFC 7871 §6 FAMILY: address family numbers from IANA's registry (1 IPv4, 2 IPv6).
    static let ipv4Family: UInt16 = 1
    static let ipv6Family: UInt16 = 2

    /// A subnet from an address whose host bits are already zero; nil otherwise or when the length
    /// does not fit the family.
    public init?(address: IPAddress, prefixLength: Int) {
        let bits = address.isIPv6 ? 128 : 32
        guard (0...bits).contains(prefixLength), Self.masked(address.bytes, prefixLength) == address.bytes else {
            return nil
        }
        self.address = address
        self.prefixLength = prefixLength
    }

    /// Parses `203.0.113.0/24` or `2001:db8:1200::/40`; nil when `text` is not such a network.
    public init?(_ text: String) {
        guard case .success(let subnet) = Self.parse(text) else { return nil }
        self = subnet
    }

    /// `203.0.113.0/24` or `2001:db8:1200::/40`, or why it is not one.
    static func parse(_ text: String) -> Result<ClientSubnet, ConfigRejection> {
        guard let slash = text.firstIndex(of: "/") else {
            return .failure("\(LogQuote.singleQuoted(text)) has no prefix length; write a network such as 203.0.113.0/24 or 2001:db8::/56")
        }
        let addressText = text[..<slash]
        let lengthText = text[text.index(after: slash)...]
        guard let address = IPAddress(addressText) else {
            return .failure("\(LogQuote.singleQuoted(text)): \(LogQuote.singleQuoted(addressText)) is not an IP address")
        }
        let bits = address.isIPv6 ? 128 : 32
        guard !lengthText.isEmpty, lengthText.utf8.count <= 3,
              lengthText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let length = Int(lengthText), length <= bits
        else {
            return .failure("\(LogQuote.singleQuoted(text)): \(LogQuote.singleQuoted(lengthText)) is not a prefix length of an \(address.isIPv6 ? "IPv6" : "IPv4") address (0-\(bits))")
        }
        let network = IPAddress(bytes: masked(address.bytes, length))!
        guard network == address else {
            return .failure("\(LogQuote.singleQuoted(text)) has host bits set past /\(length); write the network, \(network)/\(length)")
        }
        return .success(ClientSubnet(address: address, prefixLength: length)!)
    }

    /// The family of the address, as the ECS FAMILY field numbers it.
    var familyNumber: UInt16 { address.isIPv6 ? Self.ipv6Family : Self.ipv4Family }

    /// RFC 7871 §6: the address truncated to the bytes the prefix needs (none for /0).
    public var truncatedAddress: [UInt8] {
        Array(address.bytes.prefix((prefixLength + 7) / 8))
    }

    /// The whole EDNS0 option (RFC 6891 §6.1.2 OPTION-CODE, OPTION-LENGTH, then RFC 7871 §6 FAMILY,
    /// SOURCE PREFIX-LENGTH, SCOPE PREFIX-LENGTH 0 as a query must send, ADDRESS).
    public var ednsOption: [UInt8] {
        let address = truncatedAddress
        var option: [UInt8] = []
        option.appendBigEndian(Self.optionCode)
        option.appendBigEndian(UInt16(4 + address.count))
        option.appendBigEndian(familyNumber)
        option.append(UInt8(prefixLength))
        option.append(0)
        option += address
        return option
    }

    /// `203.0.113.0/24`: the form Google's JSON API takes as `edns_client_subnet=`.
    public var description: String { "\(address)/\(prefixLength)" }

    /// `bytes` with every bit past the first `prefixLength` cleared.
    static func masked(_ bytes: [UInt8], _ prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xFF >> UInt8(kept))
        }
    }
}

extension Array where Element == UInt8 {
    /// Network byte order (RFC 1035 §2.3.2).
    mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }
}

extension ConfigReader where Value == ClientSubnet {
    /// `client_subnet = "203.0.113.0/24"`.
    static var clientSubnet: ConfigReader {
        ConfigReader<String>.string.then(ClientSubnet.parse)
    }
}
