import IPDirectCore

/// What the SOCKS readers promise for any bytes a client sends: each decides as soon as the bytes do and
/// never changes its mind as more arrive, never waits past its largest message, and lets through only
/// names made of host name bytes.
enum SOCKSInvariants {
    static func check(_ bytes: UnsafeRawBufferPointer) {
        checkReader(bytes, "SOCKS5 greeting", SOCKS5Greeting.parse, maximumLength: SOCKS5Greeting.maximumLength) {
            FuzzCheck.require((1...255).contains($0.methods.count), "greeting with \($0.methods.count) methods")
        }
        checkReader(bytes, "SOCKS5 credentials", SOCKS5Credentials.parse, maximumLength: SOCKS5Credentials.maximumLength) {
            for field in [$0.username, $0.password] {
                FuzzCheck.require((1...255).contains(field.utf8.count), "credential field of \(field.utf8.count) bytes")
            }
        }
        checkReader(bytes, "SOCKS5 request", SOCKS5Request.parse, maximumLength: SOCKS5Request.maximumLength) {
            checkAddress($0.address)
            FuzzCheck.require($0.port > 0 || $0.command == .udpAssociate, "port 0 for \($0.command)")
            checkReplyReadsBack($0)
        }
        if SOCKS5Request.unsupportedAddressType(bytes) {
            let outcome = SOCKS5Request.parse(bytes)
            FuzzCheck.require(outcome == .invalid("address type \(bytes[3]) not supported"),
                              "an unknown address type read as \(outcome)")
        }
        checkReader(bytes, "SOCKS4 request", SOCKS4Request.parse, maximumLength: SOCKS4Request.maximumLength) {
            checkAddress($0.address)
            FuzzCheck.require($0.port > 0, "SOCKS4 port 0")
        }
    }

    /// Feeds `bytes` as if they arrived one at a time: every prefix asks for more until the first that
    /// decides, which decides exactly as the whole input does; a message is found when its last byte
    /// arrives; and no reader is still undecided at its maximum length.
    private static func checkReader<Message: Equatable>(
        _ bytes: UnsafeRawBufferPointer, _ what: String, _ parse: (UnsafeRawBufferPointer) -> SOCKSParse<Message>,
        maximumLength: Int, checkMessage: (Message) -> Void
    ) {
        let whole = parse(bytes)
        for count in 0...min(bytes.count, maximumLength) {
            let outcome = FuzzCheck.withExactCopy(UnsafeRawBufferPointer(rebasing: bytes[..<count]), parse)
            if case .incomplete = outcome { continue }
            FuzzCheck.require(outcome == whole, "\(what): \(count) bytes read as \(outcome), all \(bytes.count) as \(whole)")
            switch outcome {
            case .complete(let message, let length):
                FuzzCheck.require(length == count && length <= bytes.count,
                                  "\(what) of \(length) bytes found after \(count) of \(bytes.count)")
                checkMessage(message)
            case .invalid(let reason):
                FuzzCheck.require(!reason.isEmpty && reason.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F },
                                  "\(what) refused with an unprintable reason: \(reason)")
            case .incomplete:
                break
            }
            return
        }
        FuzzCheck.require(bytes.count < maximumLength, "\(what) still incomplete after \(maximumLength) bytes")
    }

    /// A name that reached the caller must be fit for a log line and the resolver.
    private static func checkAddress(_ address: SOCKSAddress) {
        guard case .domain(let name) = address else { return }
        FuzzCheck.require(!name.isEmpty, "empty name")
        FuzzCheck.require(name.utf8.allSatisfy(isLowerCaseHostNameByte), "name with bytes a host name cannot hold: \(name.utf8.map { $0 })")
        FuzzCheck.require(IPAddress(name) == nil, "an address passed as a name: \(name)")
    }

    private static func isLowerCaseHostNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    /// A reply has a request's layout (RFC 1928 §6): one built for the request's address reads back as it.
    private static func checkReplyReadsBack(_ request: SOCKS5Request) {
        guard case .ip(let address) = request.address, request.port > 0 else { return }
        var reply = SOCKS5Reply.bytes(.succeeded, bound: SocketAddress(ip: address, port: request.port))
        reply[1] = 1
        let again = reply.withUnsafeBytes(SOCKS5Request.parse)
        FuzzCheck.require(again == .complete(SOCKS5Request(command: .connect, address: request.address, port: request.port),
                                             length: reply.count), "reply for \(request) reads back as \(again)")
    }
}
