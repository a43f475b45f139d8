/// The nftables table that sends programs' TCP connections to the transparent listener (`ipdirect nft-rules`):
/// `redirect` in the nat output chain for local programs, and in nat prerouting for connections arriving on
/// `[transparent] interfaces`. ipdirect never loads it itself; a root unit does, and deletes it when ipdirect
/// stops, so no rule outlives the daemon and black-holes the traffic it redirects.
///
/// Never redirected: ipdirect's own connections (`exempt_user`: they would come back to it, a loop), this
/// machine's own addresses, `direct` (private and reserved blocks by default), and an address family nothing
/// listens for where the redirect arrives (it would meet a closed port).
public struct NFTRuleset: Sendable {
    public let settings: TransparentSettings
    /// The `[dns]` listener's addresses, for `redirect_dns`.
    public let dnsListen: [SocketAddress]

    public static let tableName = "ipdirect"

    public init(config: Config) {
        settings = config.transparent
        dnsListen = config.dns.listen
    }

    /// Where `redirect` sends a connection: a locally made one to 127.0.0.1 or ::1, one arriving on an
    /// interface to that interface's own address.
    public enum Arrival: Sendable {
        case loopback
        case interface
    }

    /// The port of the first of `listen` that a connection redirected in each family reaches on `arrival`:
    /// an unspecified address does for both arrivals, a loopback one only for the local redirect.
    public static func ports(of listen: [SocketAddress], arrival: Arrival) -> (v4: UInt16?, v6: UInt16?) {
        func reached(_ address: SocketAddress) -> Bool {
            address.ip.isUnspecified || (arrival == .loopback && address.ip.isLoopbackAddress)
        }
        return (listen.first { !$0.ip.isIPv6 && reached($0) }?.port, listen.first { $0.ip.isIPv6 && reached($0) }?.port)
    }

    /// The port every transparent listen address shares (checked by the configuration), nil when off.
    public var redirectPort: UInt16? { settings.listen.first?.port }

    /// The whole table, replaced atomically by `nft -f` (the table is made, deleted and made again in one
    /// transaction, so loading it twice is the same as once); nil when transparent mode is off.
    public func text(source: String) -> String? {
        guard redirectPort != nil else { return nil }
        let table = Self.tableName
        var lines = [
            "# ipdirect transparent mode, printed by `ipdirect nft-rules` for \(source).",
            "# Load as root with `nft -f FILE`; remove with `nft delete table inet \(table)`.",
            "table inet \(table)",
            "delete table inet \(table)",
            "table inet \(table) {",
        ]
        let v4 = settings.direct.filter { !$0.network.isIPv6 }
        let v6 = settings.direct.filter { $0.network.isIPv6 }
        lines += set("direct4", type: "ipv4_addr", v4)
        lines += set("direct6", type: "ipv6_addr", v6)
        lines += ["\tchain output {", "\t\ttype nat hook output priority -100; policy accept;"]
        lines += ["\t\t\(exemption) return"]
        lines += redirects(.loopback)
        lines += ["\t}"]
        if !settings.interfaces.isEmpty {
            lines += ["\tchain prerouting {", "\t\ttype nat hook prerouting priority -100; policy accept;"]
            lines += ["\t\tiifname != \(interfaceSet) return"]
            lines += redirects(.interface)
            lines += ["\t}"]
        }
        if settings.rejectQUIC {
            lines += ["\tchain quic_output {", "\t\ttype filter hook output priority 0; policy accept;",
                      "\t\t\(exemption) return", "\t\tudp dport 443 reject", "\t}"]
            if !settings.interfaces.isEmpty {
                lines += ["\tchain quic_forward {", "\t\ttype filter hook forward priority 0; policy accept;",
                          "\t\tiifname \(interfaceSet) udp dport 443 reject", "\t}"]
            }
        }
        lines += ["}"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `meta skuid NAME` (a name nft resolves when it loads the table) or `meta skuid UID`.
    private var exemption: String {
        let user = settings.exemptUser
        return user.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            ? "meta skuid \(user)" : "meta skuid \"\(user)\""
    }

    private var interfaceSet: String {
        "{ " + settings.interfaces.map { "\"\($0)\"" }.joined(separator: ", ") + " }"
    }

    /// The rules shared by both nat chains: what is never redirected, then the redirects.
    private func redirects(_ arrival: Arrival) -> [String] {
        var lines = ["\t\tfib daddr type local return",
                     "\t\tip daddr @direct4 return",
                     "\t\tip6 daddr @direct6 return"]
        let ports = settings.ports.map(String.init).joined(separator: ", ")
        lines += Self.redirect("tcp dport { \(ports) }", to: Self.ports(of: settings.listen, arrival: arrival))
        if settings.redirectDNS {
            let dns = Self.ports(of: dnsListen, arrival: arrival)
            lines += Self.redirect("udp dport 53", to: dns) + Self.redirect("tcp dport 53", to: dns)
        }
        return lines
    }

    /// `match` redirected to each family's port: one rule when both families share it, else a rule per family
    /// that has one (`meta nfproto`); none when neither does.
    private static func redirect(_ match: String, to ports: (v4: UInt16?, v6: UInt16?)) -> [String] {
        if let v4 = ports.v4, v4 == ports.v6 { return ["\t\t\(match) redirect to :\(v4)"] }
        var lines: [String] = []
        if let v4 = ports.v4 { lines.append("\t\tmeta nfproto ipv4 \(match) redirect to :\(v4)") }
        if let v6 = ports.v6 { lines.append("\t\tmeta nfproto ipv6 \(match) redirect to :\(v6)") }
        return lines
    }

    private func set(_ name: String, type: String, _ prefixes: [IPPrefix]) -> [String] {
        var lines = ["\tset \(name) {", "\t\ttype \(type)", "\t\tflags interval", "\t\tauto-merge"]
        if !prefixes.isEmpty {
            lines.append("\t\telements = { " + prefixes.map(\.description).joined(separator: ", ") + " }")
        }
        lines.append("\t}")
        return lines
    }
}
