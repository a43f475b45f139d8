/// The server's answer to a SOCKS5 request (RFC 1928 §6).
///
///     +----+-----+-------+------+----------+----------+
///     |VER | REP |  RSV  | ATYP | BND.ADDR | BND.PORT |
///     | 1  |  1  | X'00' |  1   | Variable |    2     |
///     +----+-----+-------+------+----------+----------+
public enum SOCKS5Reply {
    /// The reply with `code`; BND is the address the proxy connected from, when it has one. A failure
    /// has none to give, and clients of CONNECT ignore it, so it is then IPv4 0.0.0.0 port 0.
    public static func bytes(_ code: SOCKS5ReplyCode, bound: SocketAddress? = nil) -> [UInt8] {
        let bound = bound ?? SocketAddress(ip: .v4(0), port: 0)
        let addressType = bound.ip.isIPv6 ? SOCKS5Request.AddressType.ipv6 : SOCKS5Request.AddressType.ipv4
        return [SOCKS5Greeting.version, code.rawValue, 0, addressType] + bound.ip.bytes
            + [UInt8(truncatingIfNeeded: bound.port >> 8), UInt8(truncatingIfNeeded: bound.port)]
    }
}
