/// What a SOCKS5 client asks for once authenticated (RFC 1928 §4).
///
///     +----+-----+-------+------+----------+----------+
///     |VER | CMD |  RSV  | ATYP | DST.ADDR | DST.PORT |
///     | 1  |  1  | X'00' |  1   | Variable |    2     |
///     +----+-----+-------+------+----------+----------+
public struct SOCKS5Request: Equatable, Sendable, CustomStringConvertible {
    public var command: SOCKSCommand
    public var address: SOCKSAddress
    /// 1...65535, except for UDP ASSOCIATE, where RFC 1928 §7 has a client that does not yet know
    /// its own port send 0.
    public var port: UInt16

    public init(command: SOCKSCommand, address: SOCKSAddress, port: UInt16) {
        self.command = command
        self.address = address
        self.port = port
    }

    /// VER, CMD, RSV, ATYP, a length byte, a 255-byte name and the port.
    public static let maximumLength = headerLength + 1 + 255 + portLength

    /// RFC 1928 §5 ATYP values.
    enum AddressType {
        static let ipv4: UInt8 = 1
        static let domain: UInt8 = 3
        static let ipv6: UInt8 = 4
    }

    static let headerLength = 4
    static let portLength = 2

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> SOCKSParse<SOCKS5Request> {
        guard bytes.count >= 1 else { return .incomplete }
        guard bytes[0] == SOCKS5Greeting.version else { return .invalid("version \(bytes[0]) in a SOCKS5 request") }
        guard bytes.count >= 3 else { return .incomplete }
        let command = SOCKSCommand(socks5: bytes[1])
        guard bytes[2] == 0 else { return .invalid("reserved byte \(bytes[2]) in a SOCKS5 request") }
        guard bytes.count >= headerLength else { return .incomplete }
        return address(bytes, type: bytes[3]).then { address, addressEnd in
            port(bytes, at: addressEnd, allowsZero: command == .udpAssociate).then { port, end in
                .complete(SOCKS5Request(command: command, address: address, port: port), length: end)
            }
        }
    }

    /// Whether `bytes` start with a well-formed request header whose ATYP is none of 1, 3 and 4. Such a
    /// request is invalid, since its length cannot be known, but RFC 1928 §6 has the server say why
    /// (reply 0x08) before it closes.
    public static func unsupportedAddressType(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= headerLength, bytes[0] == SOCKS5Greeting.version, bytes[2] == 0 else { return false }
        return ![AddressType.ipv4, AddressType.domain, AddressType.ipv6].contains(bytes[3])
    }

    /// DST.ADDR from `headerLength` on, complete with the offset after it.
    private static func address(_ bytes: UnsafeRawBufferPointer, type: UInt8) -> SOCKSParse<SOCKSAddress> {
        let start = headerLength
        switch type {
        case AddressType.ipv4, AddressType.ipv6:
            let end = start + (type == AddressType.ipv4 ? 4 : 16)
            guard bytes.count >= end else { return .incomplete }
            return .complete(.ip(IPAddress(bytes: Array(bytes[start..<end]))!), length: end)
        case AddressType.domain:
            guard bytes.count > start else { return .incomplete }
            let nameLength = Int(bytes[start])
            guard nameLength > 0 else { return .invalid("empty host name") }
            let name = (start + 1)..<(start + 1 + nameLength)
            for index in name.clamped(to: 0..<bytes.count) where !SOCKSAddress.isHostNameByte(bytes[index]) {
                return .invalid("host name byte \(bytes[index]) at offset \(index - name.lowerBound)")
            }
            guard bytes.count >= name.upperBound else { return .incomplete }
            guard let address = SOCKSAddress.hostName(bytes, name) else { return .invalid("invalid host name") }
            return .complete(address, length: name.upperBound)
        default:
            return .invalid("address type \(type) not supported")
        }
    }

    /// DST.PORT in network byte order.
    private static func port(_ bytes: UnsafeRawBufferPointer, at start: Int, allowsZero: Bool) -> SOCKSParse<UInt16> {
        let end = start + portLength
        guard bytes.count >= end else { return .incomplete }
        let port = UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1])
        guard port > 0 || allowsZero else { return .invalid("port 0") }
        return .complete(port, length: end)
    }

    public var description: String { "\(command) \(address.withPort(port))" }
}
