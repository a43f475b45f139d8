/// JSON written as bytes into one buffer of its own, for answers of many rows (`/connections`): a row's dozen
/// values are copied in place, without a string each, which String's appends and interpolations cost several
/// times over (measured under callgrind: 23k instructions a row with strings, 2.9k here).
public struct JSONBuffer: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    public init(capacity: Int) {
        self.capacity = max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit {
        start.deallocate()
    }

    /// The bytes written so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: count)) }

    /// The text written so far.
    public var text: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    /// Text written as it is: punctuation and member names, which need no escaping.
    public mutating func raw(_ text: StaticString) {
        copy(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// A JSON string (RFC 8259 §7), or `null`.
    public mutating func string(_ value: String?) {
        guard let value else { return raw("null") }
        let copied = value.utf8.withContiguousStorageIfAvailable { source -> Bool in
            guard source.allSatisfy(Self.needsNoEscape), let base = source.baseAddress else { return false }
            append(UInt8(ascii: "\""))
            copy(base, count: source.count)
            append(UInt8(ascii: "\""))
            return true
        }
        if copied == true { return }
        append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            if Self.needsNoEscape(byte) {
                append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            default:
                raw("\\u00")
                append(Self.hexDigit(byte >> 4))
                append(Self.hexDigit(byte & 0xF))
            }
        }
        append(UInt8(ascii: "\""))
    }

    /// Bytes a JSON string holds as they are (RFC 8259 §7): not a quote, a backslash or a control character.
    private static func needsNoEscape(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// A whole number in decimal, or `null`.
    public mutating func integer<Number: BinaryInteger>(_ value: Number?) {
        guard let value else { return raw("null") }
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        var digits = 1
        var scale: UInt64 = 1
        while magnitude / scale >= 10 {
            scale *= 10
            digits += 1
        }
        reserve(digits)
        while scale > 0 {
            start[count] = UInt8(ascii: "0") + UInt8(magnitude / scale)
            count += 1
            magnitude %= scale
            scale /= 10
        }
    }

    /// `"192.0.2.1:443"` or `"[2001:db8::1]:443"`, or `null`; an IPv4 address without a string of its own.
    public mutating func address(_ address: SocketAddress?) {
        guard let address else { return raw("null") }
        guard case .v4(let value) = address.ip else { return string(address.description) }
        append(UInt8(ascii: "\""))
        for shift in stride(from: 24, through: 0, by: -8) {
            integer((value >> UInt32(shift)) & 0xFF)
            if shift > 0 { append(UInt8(ascii: ".")) }
        }
        append(UInt8(ascii: ":"))
        integer(address.port)
        append(UInt8(ascii: "\""))
    }

    /// `host:port` as a JSON string, an IPv6 literal in brackets (RFC 3986 §3.2.2).
    public mutating func hostPort(_ host: String, _ port: UInt16) {
        guard !host.utf8.contains(UInt8(ascii: ":")) else { return string(HostName.withPort(host, port)) }
        string(host)
        count -= 1
        append(UInt8(ascii: ":"))
        integer(port)
        append(UInt8(ascii: "\""))
    }

    private mutating func copy(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        (start + count).update(from: source, count: length)
        count += length
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        if count == capacity { reserve(1) }
        start[count] = byte
        count += 1
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.moveInitialize(from: start, count: count)
        start.deallocate()
        start = moved
        capacity = grown
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
