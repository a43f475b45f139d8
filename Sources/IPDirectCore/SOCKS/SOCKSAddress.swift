/// The destination a SOCKS client names: an address, or a host name for the proxy to resolve
/// (SOCKS5 ATYP 3, SOCKS4a).
public enum SOCKSAddress: Equatable, Hashable, Sendable, CustomStringConvertible {
    case ip(IPAddress)
    /// As the readers make it: lower-cased, only host name bytes, never an IP literal.
    case domain(String)

    public var description: String {
        switch self {
        case .ip(let address): return address.description
        case .domain(let name): return name
        }
    }

    /// `host:port` as log lines write a destination, with brackets around an IPv6 address.
    public func withPort(_ port: UInt16) -> String {
        switch self {
        case .ip(let address): return SocketAddress(ip: address, port: port).description
        case .domain(let name): return HostName.withPort(name, port)
        }
    }

    /// Whether a name may hold `byte` at all. The readers refuse any other byte as soon as it arrives,
    /// so a name of spaces, controls or UTF-8 never reaches a log line or the resolver.
    static func isHostNameByte(_ byte: UInt8) -> Bool {
        HTTPByte.isHostNameChar(byte)
    }

    /// The name in `range`, checked as strictly as a host in an HTTP request target (`URIAuthority`),
    /// so a destination refused over HTTP is not reachable over SOCKS: no empty labels, at most 253
    /// characters, and no numeric forms other than a dotted quad, which comes back as `.ip`.
    static func hostName(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> SOCKSAddress? {
        guard !range.isEmpty, range.allSatisfy({ isHostNameByte(bytes[$0]) }),
              case .success(let authority) = URIAuthority.parse(bytes, range, portRequired: false)
        else { return nil }
        if IPAddress.mayBeLiteral(authority.host), let address = IPAddress(authority.host) {
            return .ip(address)
        }
        return .domain(authority.host)
    }
}
