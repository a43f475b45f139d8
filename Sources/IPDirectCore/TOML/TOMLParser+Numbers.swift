/// Unquoted values: booleans, integers and floats (TOML 1.0 "Integer", "Float", "Boolean"),
/// and recognising date/time values so they can be refused with a clear message.
extension TOMLParser {
    /// Reads the whole unquoted token first, so a malformed one is skipped as a unit and
    /// reading can go on after recording it.
    mutating func parseBareValue() throws(TOMLProblem) -> TOMLValue? {
        let line = currentLine
        let start = position
        while let byte = peek(), Self.isBareValueByte(byte) { position += 1 }
        guard position > start else { throw problem("expected a value, found \(describeNext())") }
        if Self.isDate(bytes[start..<position]) { skipTimeAfterDate() }
        let token = bytes[start..<position]
        let text = String(decoding: token, as: UTF8.self)
        switch Self.classify(token, isDate: Self.isDate(token) || Self.isTime(token)) {
        case .success(let kind):
            return TOMLValue(kind, line: line)
        case .failure(let reason):
            problems.append(TOMLProblem(line: line, message: reason.message(for: text)))
            return nil
        }
    }

    /// Why an unquoted token is not a value; `message(for:)` words it with the token itself.
    enum BareValueFailure: Error, CustomStringConvertible {
        case dateTime
        case unquoted
        case leadingZero
        case signedPrefixed
        case outOfRange
        case malformed

        func message(for token: String) -> String {
            switch self {
            case .dateTime: return "date/time values such as \(LogQuote.singleQuoted(token)) are not supported; write it as a string"
            case .unquoted: return "invalid value \(LogQuote.singleQuoted(token)); strings must be quoted"
            case .leadingZero: return "leading zeros are not allowed in \(LogQuote.token(token))"
            case .signedPrefixed: return "a sign is not allowed on hex, octal or binary integers: \(LogQuote.token(token))"
            case .outOfRange: return "\(LogQuote.token(token)) does not fit in a 64-bit number"
            case .malformed: return "\(LogQuote.token(token)) is not a valid number"
            }
        }

        var description: String {
            switch self {
            case .dateTime: return "date/time"
            case .unquoted: return "unquoted"
            case .leadingZero: return "leading zero"
            case .signedPrefixed: return "signed prefixed integer"
            case .outOfRange: return "out of range"
            case .malformed: return "malformed"
            }
        }
    }

    static func classify(_ token: ArraySlice<UInt8>, isDate: Bool) -> Result<TOMLValue.Kind, BareValueFailure> {
        if isDate { return .failure(.dateTime) }
        switch String(decoding: token, as: UTF8.self) {
        case "true": return .success(.boolean(true))
        case "false": return .success(.boolean(false))
        case "inf", "+inf": return .success(.float(.infinity))
        case "-inf": return .success(.float(-.infinity))
        case "nan", "+nan", "-nan": return .success(.float(.nan))
        default: break
        }
        guard let first = token.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || isDigit(first) else {
            // ".5" was meant as a number; TOML wants a digit before the point.
            let looksNumeric = token.first == UInt8(ascii: ".") && token.dropFirst().first.map(isDigit) == true
            return .failure(looksNumeric ? .malformed : .unquoted)
        }
        let isNegative = first == UInt8(ascii: "-")
        let unsigned = isDigit(first) ? token : token.dropFirst()
        if unsigned.count > 2, unsigned.first == UInt8(ascii: "0"), let radix = prefixRadix(unsigned.dropFirst().first!) {
            if unsigned.count != token.count { return .failure(.signedPrefixed) }
            return prefixedInteger(unsigned.dropFirst(2), radix: radix).map { .integer($0) }
        }
        if unsigned.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            return float(unsigned, isNegative: isNegative).map { .float($0) }
        }
        guard let digits = withoutUnderscores(unsigned, isValidDigit: isDigit) else { return .failure(.malformed) }
        if digits.count > 1 && digits.first == UInt8(ascii: "0") { return .failure(.leadingZero) }
        let signed = (isNegative ? "-" : "") + String(decoding: digits, as: UTF8.self)
        guard let value = Int64(signed) else { return .failure(.outOfRange) }
        return .success(.integer(value))
    }

    /// `0x`, `0o` and `0b` integers: non-negative, lower-case prefix, underscores between digits.
    private static func prefixedInteger(_ body: ArraySlice<UInt8>, radix: Int64) -> Result<Int64, BareValueFailure> {
        guard let digits = withoutUnderscores(body, isValidDigit: { digitValue($0).map { Int64($0) < radix } ?? false }) else {
            return .failure(.malformed)
        }
        var value: Int64 = 0
        for byte in digits {
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: radix)
            let (sum, overflowAdd) = shifted.addingReportingOverflow(Int64(digitValue(byte)!))
            if overflowShift || overflowAdd { return .failure(.outOfRange) }
            value = sum
        }
        return .success(value)
    }

    /// Integer part (no leading zeros), then a fraction, an exponent or both.
    private static func float(_ body: ArraySlice<UInt8>, isNegative: Bool) -> Result<Double, BareValueFailure> {
        let exponentStart = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } ?? body.endIndex
        let mantissa = body[..<exponentStart]
        let dot = mantissa.firstIndex(of: UInt8(ascii: "."))
        guard let integerPart = withoutUnderscores(mantissa[..<(dot ?? mantissa.endIndex)], isValidDigit: isDigit) else {
            return .failure(.malformed)
        }
        if integerPart.count > 1 && integerPart.first == UInt8(ascii: "0") { return .failure(.leadingZero) }
        var normalized = (isNegative ? "-" : "") + String(decoding: integerPart, as: UTF8.self)
        if let dot {
            guard let fraction = withoutUnderscores(mantissa[(dot + 1)...], isValidDigit: isDigit) else {
                return .failure(.malformed)
            }
            normalized += "." + String(decoding: fraction, as: UTF8.self)
        }
        if exponentStart < body.endIndex {
            var exponent = body[(exponentStart + 1)...]
            var exponentSign = ""
            if let sign = exponent.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentSign = String(Character(Unicode.Scalar(sign)))
                exponent = exponent.dropFirst()
            }
            guard let digits = withoutUnderscores(exponent, isValidDigit: isDigit) else { return .failure(.malformed) }
            normalized += "e" + exponentSign + String(decoding: digits, as: UTF8.self)
        }
        guard let value = Double(normalized) else { return .failure(.malformed) }
        guard value.isFinite else { return .failure(.outOfRange) }
        return .success(value)
    }

    /// The digits with underscores removed, or nil unless every underscore sits between two digits.
    private static func withoutUnderscores(_ text: ArraySlice<UInt8>, isValidDigit: (UInt8) -> Bool) -> [UInt8]? {
        var digits: [UInt8] = []
        var previousWasDigit = false
        for byte in text {
            if byte == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
            } else {
                guard isValidDigit(byte) else { return nil }
                digits.append(byte)
                previousWasDigit = true
            }
        }
        return previousWasDigit ? digits : nil
    }

    // MARK: Dates and times, recognised only to be refused

    /// `1979-05-27...`: four digits and a dash.
    private static func isDate(_ token: ArraySlice<UInt8>) -> Bool {
        let dashOffset = 4
        return token.count > dashOffset && token.prefix(dashOffset).allSatisfy(isDigit)
            && token[token.startIndex + dashOffset] == UInt8(ascii: "-")
    }

    /// `07:32:00...`: two digits and a colon.
    private static func isTime(_ token: ArraySlice<UInt8>) -> Bool {
        let colonOffset = 2
        return token.count > colonOffset && token.prefix(colonOffset).allSatisfy(isDigit)
            && token[token.startIndex + colonOffset] == UInt8(ascii: ":")
    }

    /// TOML allows a space instead of `T` between date and time (RFC 3339 §5.6 note).
    private mutating func skipTimeAfterDate() {
        let timeStart = position + 1
        guard peek() == ASCII.space, timeStart + 2 < bytes.count,
              Self.isTime(bytes[timeStart..<(timeStart + 3)]) else { return }
        position = timeStart
        while let byte = peek(), Self.isBareValueByte(byte) { position += 1 }
    }

    private static func isBareValueByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func digitValue(_ byte: UInt8) -> UInt8? {
        HTTPByte.hexValue(byte)
    }

    private static func prefixRadix(_ letter: UInt8) -> Int64? {
        switch letter {
        case UInt8(ascii: "x"): return 16
        case UInt8(ascii: "o"): return 8
        case UInt8(ascii: "b"): return 2
        default: return nil
        }
    }
}
