import IPDirectCore

/// What the ClientHello reader promises for any bytes a redirected client sends: it decides as soon as the
/// bytes do and never changes its mind as more arrive, never waits past its limit, and names only host names.
enum ClientHelloInvariants {
    static func check(_ bytes: UnsafeRawBufferPointer) {
        let whole = ClientHelloReader.read(bytes)
        // Every prefix that decides decides as the whole input does; the rest ask for more. Checked at every
        // length up to a few hundred bytes and at a sample beyond, to keep each input fast.
        var count = 0
        while count <= bytes.count {
            let outcome = FuzzCheck.withExactCopy(UnsafeRawBufferPointer(rebasing: bytes[..<count]), ClientHelloReader.read)
            if outcome != .incomplete {
                FuzzCheck.require(outcome == whole, "ClientHello: \(count) bytes read as \(outcome), all \(bytes.count) as \(whole)")
            }
            count += count < 600 ? 1 : 97
        }
        FuzzCheck.require(bytes.count < ClientHelloReader.maximumBytes || whole != .incomplete,
                          "ClientHello still incomplete after \(bytes.count) bytes")
        if case .serverName(let name) = whole {
            let acceptable = !name.isEmpty && name.utf8.count <= 253 && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
            }
            FuzzCheck.require(acceptable && IPAddress(name) == nil, "ClientHello server name \(name) is not a host name")
        }
        _ = FuzzCheck.withExactCopy(bytes, FirstBytesKind.of)
    }
}
