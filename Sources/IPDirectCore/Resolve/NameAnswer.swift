/// What one source said about both address families of a name.
public struct NameAnswer: Sendable, Equatable, CustomStringConvertible {
    public var v4: ProviderAnswer
    public var v6: ProviderAnswer

    public init(v4: ProviderAnswer, v6: ProviderAnswer) {
        self.v4 = v4
        self.v6 = v6
    }

    /// Splits an answer that covers both families at once (aliyun's `query=4,6`, tencent's
    /// `type=addrs`, the system resolver): a family without addresses has "no address".
    public init(splitting answer: ProviderAnswer) {
        switch answer {
        case .nameDoesNotExist:
            self.init(v4: .nameDoesNotExist, v6: .nameDoesNotExist)
        case .noAddresses:
            self.init(v4: .noAddresses, v6: .noAddresses)
        case .addresses(let answered):
            self.init(v4: .from(answered.filter { AddressFamily.v4.contains($0.address) }),
                      v6: .from(answered.filter { AddressFamily.v6.contains($0.address) }))
        }
    }

    public subscript(family: AddressFamily) -> ProviderAnswer {
        get { family == .v4 ? v4 : v6 }
        set { if family == .v4 { v4 = newValue } else { v6 = newValue } }
    }

    /// IPv4 first: a host without IPv6 connectivity fails those connects at once, while a
    /// blackholed IPv6 route would cost a whole connect timeout before IPv4 is tried.
    public var addresses: [IPAddress] {
        AddressFamily.allCases.flatMap { family -> [IPAddress] in
            if case .addresses(let answered) = self[family] { return answered.map(\.address) }
            return []
        }
    }

    /// Neither family has an address.
    public var isNegative: Bool { addresses.isEmpty }

    /// True when the name itself does not exist (NXDOMAIN), rather than only lacking addresses.
    public var nameDoesNotExist: Bool { v4 == .nameDoesNotExist || v6 == .nameDoesNotExist }

    /// The answer without loopback, private and other non-public addresses, and the addresses dropped:
    /// HTTPDNS answers pointing inside are DNS rebinding unless the operator allowed them.
    public func keepingPublicAddresses() -> (kept: NameAnswer, refused: [IPAddress]) {
        var kept = self
        var refused: [IPAddress] = []
        for family in AddressFamily.allCases {
            guard case .addresses(let answered) = self[family] else { continue }
            refused += answered.filter { $0.address.isNonPublic }.map(\.address)
            kept[family] = .from(answered.filter { !$0.address.isNonPublic })
        }
        return (kept, refused)
    }

    public var description: String { "v4: \(v4); v6: \(v6)" }
}
