import Testing
@testable import IPDirectCore

/// A head as the proxy holds it: raw bytes, so tests can read back the ranges a parser returns.
struct RawHead: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]

    init(_ text: String) { bytes = Array(text.utf8) }
    init(bytes: [UInt8]) { self.bytes = bytes }

    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    func parseRequest(limits: HTTPHeadLimits = HTTPHeadLimits()) -> RequestHeadParseResult {
        bytes.withUnsafeBytes { RequestHeadParser.parse($0, limits: limits) }
    }

    func parseResponse(to method: HTTPMethod = .get, limits: HTTPHeadLimits = HTTPHeadLimits())
        -> ResponseHeadParseResult
    {
        bytes.withUnsafeBytes { ResponseHeadParser.parse($0, requestMethod: method, limits: limits) }
    }

    /// The request head, or a recorded issue naming what came back instead.
    func request(limits: HTTPHeadLimits = HTTPHeadLimits(), sourceLocation: SourceLocation = #_sourceLocation)
        -> RequestHead?
    {
        let result = parseRequest(limits: limits)
        guard case .complete(let head) = result else {
            Issue.record("expected a complete request head, got \(result)", sourceLocation: sourceLocation)
            return nil
        }
        return head
    }

    func response(to method: HTTPMethod = .get, sourceLocation: SourceLocation = #_sourceLocation) -> ResponseHead? {
        let result = parseResponse(to: method)
        guard case .complete(let head) = result else {
            Issue.record("expected a complete response head, got \(result)", sourceLocation: sourceLocation)
            return nil
        }
        return head
    }

    /// "Name: value" for every field, with the parsed ranges read back.
    func fieldTexts(_ fields: [HeaderField]) -> [String] {
        fields.map { "\(text($0.name)): \(text($0.value))" }
    }

    var testDescription: String {
        String(decoding: bytes, as: UTF8.self).replacingCRLF
    }
}

/// One input that must be refused with `status` and a reason containing `because`; `label` names the
/// case in the test report.
struct Rejection: Sendable, CustomTestStringConvertible {
    let label: String
    let because: String
    let head: RawHead
    let status: Int

    init(_ label: String, because: String, _ text: String, _ status: Int = 400) {
        self.label = label
        self.because = because
        self.head = RawHead(text)
        self.status = status
    }

    init(_ label: String, because: String, bytes: [UInt8], _ status: Int = 400) {
        self.label = label
        self.because = because
        self.head = RawHead(bytes: bytes)
        self.status = status
    }

    /// Records an issue unless `result` refuses with this row's status and reason.
    func check(_ error: HTTPParseError?, got result: CustomStringConvertible) {
        guard let error else {
            Issue.record("expected \(status) (\(because)), got \(result)")
            return
        }
        #expect(error.status == status)
        #expect(!error.reason.isEmpty)
        #expect(error.reason.contains(because), "reason: \(error.reason)")
    }

    var testDescription: String { label }
}

extension String {
    /// Line ends made visible for test output.
    var replacingCRLF: String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out
    }
}

/// A deterministic generator (SplitMix64, with its published constants), so a random split that fails
/// can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Checks a count of class bytes over `length` bytes (`HTTPByteWord`, `HTTPByteVector`): every byte value at every
/// position of class bytes, followed by bytes in and out of the class (a byte outside the class after the first
/// must not change the count).
func checkEveryByteAtEveryPosition(length: Int, _ inClass: (UInt8) -> Bool,
                                   _ count: (UnsafeRawBufferPointer) -> Int)
{
    let fillers: [UInt8] = [UInt8(ascii: "a"), 0x00, 0x20, 0x22, 0x2D, 0x3A, 0x3E, 0x7F, 0x80, 0xFF, HTTPByte.cr]
    for position in 0..<length {
        for byte in UInt8.min...UInt8.max {
            for filler in fillers {
                var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                bytes[position] = byte
                for later in position + 1..<bytes.count { bytes[later] = filler }
                let expected = bytes.firstIndex { !inClass($0) } ?? bytes.count
                #expect(bytes.withUnsafeBytes(count) == expected, "byte \(byte) at \(position), then \(filler)")
            }
        }
    }
}
