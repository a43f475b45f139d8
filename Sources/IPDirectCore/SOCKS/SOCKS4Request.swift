/// A SOCKS4 request, or a SOCKS4a one that names the host instead of its address.
///
///     +----+----+----+----+----+----+----+----+----+----+....+----+----+....+----+
///     | VN | CD | DSTPORT |      DSTIP        | USERID       |NULL| HOST (4a)|NULL|
///     +----+----+----+----+----+----+----+----+----+----+....+----+----+....+----+
///        1    1      2              4           variable       1   variable   1
///
/// SOCKS4 has no RFC; the field layout is that of "SOCKS: A protocol for TCP proxy across firewalls"
/// (Ying-Da Lee) and SOCKS4a that of its extension "SOCKS 4A: A Simple Extension to SOCKS 4 Protocol".
/// Neither bounds USERID or HOST; here each is at most 255 bytes, so a client that never sends the
/// NUL is refused rather than buffered.
public struct SOCKS4Request: Equatable, Sendable, CustomStringConvertible {
    public var command: SOCKSCommand
    /// 1...65535.
    public var port: UInt16
    /// `.domain` only from a SOCKS4a request (or `.ip` when its name is a dotted quad).
    public var address: SOCKSAddress
    /// Often empty; any UTF-8, control characters included.
    public var userID: String

    public init(command: SOCKSCommand, port: UInt16, address: SOCKSAddress, userID: String) {
        self.command = command
        self.port = port
        self.address = address
        self.userID = userID
    }

    /// VN 4.
    public static let version: UInt8 = 4
    /// Longest USERID or HOST, without its NUL.
    public static let maximumFieldLength = 255
    /// The fixed part, then USERID and HOST with their NULs.
    public static let maximumLength = fixedLength + 2 * (maximumFieldLength + 1)

    static let fixedLength = 8

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> SOCKSParse<SOCKS4Request> {
        guard bytes.count >= 1 else { return .incomplete }
        guard bytes[0] == version else { return .invalid("version \(bytes[0]) in a SOCKS4 request") }
        guard bytes.count >= 4 else { return .incomplete }
        let port = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        guard port > 0 else { return .invalid("port 0") }
        guard bytes.count >= fixedLength else { return .incomplete }
        let command = SOCKSCommand(socks4: bytes[1])
        let destination = Array(bytes[4..<fixedLength])
        return nulTerminated(bytes, from: fixedLength, what: "user id", accepting: { _ in true }).then { user, userEnd in
            guard let userID = String(validating: bytes[user], as: UTF8.self) else { return .invalid("user id is not UTF-8") }
            guard isSOCKS4a(destination) else {
                let address = SOCKSAddress.ip(IPAddress(bytes: destination)!)
                return .complete(SOCKS4Request(command: command, port: port, address: address, userID: userID),
                                 length: userEnd)
            }
            return nulTerminated(bytes, from: userEnd, what: "host name", accepting: SOCKSAddress.isHostNameByte)
                .then { name, end in
                    guard !name.isEmpty else { return .invalid("empty host name") }
                    guard let address = SOCKSAddress.hostName(bytes, name) else { return .invalid("invalid host name") }
                    return .complete(SOCKS4Request(command: command, port: port, address: address, userID: userID),
                                     length: end)
                }
        }
    }

    /// CD 90 "request granted" or 91 "rejected or failed"; the reply's VN is 0 and its port and address
    /// are ignored by clients of CONNECT.
    public static func reply(granted: Bool) -> [UInt8] {
        let requestGranted: UInt8 = 0x5A
        let requestRejected: UInt8 = 0x5B
        return [0, granted ? requestGranted : requestRejected, 0, 0, 0, 0, 0, 0]
    }

    /// SOCKS4a marks a request that carries a host name with DSTIP 0.0.0.x, x not 0: an address no
    /// client could mean to reach.
    private static func isSOCKS4a(_ destination: [UInt8]) -> Bool {
        destination[0] == 0 && destination[1] == 0 && destination[2] == 0 && destination[3] != 0
    }

    /// The bytes from `start` up to a NUL, complete with the offset after the NUL. A byte `accepting`
    /// refuses ends the request at once, and so does a field that runs past `maximumFieldLength`.
    private static func nulTerminated(_ bytes: UnsafeRawBufferPointer, from start: Int, what: String,
                                      accepting: (UInt8) -> Bool) -> SOCKSParse<Range<Int>>
    {
        let limit = start + maximumFieldLength + 1
        var index = start
        while index < min(bytes.count, limit) {
            let byte = bytes[index]
            if byte == 0 { return .complete(start..<index, length: index + 1) }
            guard accepting(byte) else { return .invalid("\(what) byte \(byte) at offset \(index - start)") }
            index += 1
        }
        return index == limit ? .invalid("\(what) longer than \(maximumFieldLength) bytes") : .incomplete
    }

    public var description: String {
        userID.isEmpty ? "\(command) \(address.withPort(port))"
            : "\(command) \(address.withPort(port)) user \(LogQuote.quoted(userID))"
    }
}
