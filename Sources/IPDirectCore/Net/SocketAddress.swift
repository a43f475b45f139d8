/// An address and port, written `1.2.3.4:80` or `[::1]:80`.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// Parses `a.b.c.d:port` or `[v6]:port`; the port is required.
    public init?<S: StringProtocol>(_ text: S) {
        let text = Substring(text)
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
            guard hostPart.contains(":") else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            guard !hostPart.contains(":") else { return nil }
        }
        guard let ip = IPAddress(hostPart),
              !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = UInt16(portPart) else { return nil }
        self.init(ip: ip, port: port)
    }

    public var description: String {
        ip.isIPv6 ? "[\(ip)]:\(port)" : "\(ip):\(port)"
    }
}
