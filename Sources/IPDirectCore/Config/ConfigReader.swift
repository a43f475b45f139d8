/// Problems with one value, each tied to its line (array elements may sit on their own lines),
/// before the key name is put in front of them.
struct ConfigValueProblems: Error, CustomStringConvertible {
    var items: [(line: Int, message: String)]

    var description: String {
        items.map { "\($0.line): \($0.message)" }.joined(separator: "\n")
    }

    init(line: Int, _ message: String) {
        items = [(line, message)]
    }

    init(_ items: [(line: Int, message: String)]) {
        self.items = items
    }
}

/// Why a value was refused, before the reader adds the key name and line. Written as a string
/// literal: `.failure("\(LogQuote.singleQuoted(text)) is not an IP address")`.
struct ConfigRejection: Error, ExpressibleByStringInterpolation, CustomStringConvertible {
    var message: String

    var description: String { message }

    init(stringLiteral message: String) {
        self.message = message
    }

    init(stringInterpolation: DefaultStringInterpolation) {
        message = String(stringInterpolation: stringInterpolation)
    }
}

/// Turns a TOML value into a typed setting, or explains why it cannot. Readers compose:
/// `.list(of: .port, allowEmpty: true)` reads `[443, 8443]`.
struct ConfigReader<Value> {
    let read: (TOMLValue) -> Result<Value, ConfigValueProblems>

    init(_ read: @escaping (TOMLValue) -> Result<Value, ConfigValueProblems>) {
        self.read = read
    }

    /// Adds a check or conversion after this reader; `transform` returns the value or a message.
    func then<Next>(_ transform: @escaping (Value) -> Result<Next, ConfigRejection>) -> ConfigReader<Next> {
        ConfigReader<Next> { value in
            read(value).flatMap { typed in
                transform(typed).mapError { ConfigValueProblems(line: value.line, $0.message) }
            }
        }
    }

    static func mismatch(_ expected: String, _ value: TOMLValue) -> ConfigValueProblems {
        ConfigValueProblems(line: value.line, "expected \(expected), found \(value.typeDescription)")
    }
}

extension ConfigReader where Value == Bool {
    static var boolean: ConfigReader {
        ConfigReader { value in
            guard case .boolean(let flag) = value.kind else { return .failure(mismatch("true or false", value)) }
            return .success(flag)
        }
    }
}

extension ConfigReader where Value == String {
    static var string: ConfigReader {
        ConfigReader { value in
            guard case .string(let text) = value.kind else { return .failure(mismatch("a string", value)) }
            return .success(text)
        }
    }

    /// A non-empty string without control characters, such as a file path.
    static var nonEmptyText: ConfigReader {
        string.then { text in
            if text.isEmpty { return .failure("must not be empty") }
            if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return .failure("must not contain control characters")
            }
            return .success(text)
        }
    }
}

extension ConfigReader where Value == Int {
    static func integer(in range: ClosedRange<Int>) -> ConfigReader {
        ConfigReader { value in
            guard case .integer(let number) = value.kind else { return .failure(mismatch("an integer", value)) }
            guard let exact = Int(exactly: number), range.contains(exact) else {
                return .failure(ConfigValueProblems(line: value.line, "\(number) is out of range (\(range.lowerBound)-\(range.upperBound))"))
            }
            return .success(exact)
        }
    }

    /// A duration written in seconds (integer or float, greater than 0), stored in milliseconds.
    static func milliseconds(fromSecondsUpTo maximumSeconds: Int) -> ConfigReader {
        let millisecondsPerSecond = 1000.0
        return ConfigReader { value in
            let seconds: Double
            let written: String
            switch value.kind {
            case .integer(let number):
                seconds = Double(number)
                written = String(number)
            case .float(let number):
                seconds = number
                written = String(number)
            default:
                return .failure(mismatch("a number of seconds", value))
            }
            guard seconds.isFinite, seconds > 0 else {
                return .failure(ConfigValueProblems(line: value.line, "\(written) is not a positive number of seconds"))
            }
            guard seconds <= Double(maximumSeconds) else {
                return .failure(ConfigValueProblems(line: value.line, "\(written) seconds is more than the maximum of \(maximumSeconds)"))
            }
            // Rounded by hand: Double.rounded() needs libm, which targets without Glibc do not link.
            let scaled = seconds * millisecondsPerSecond
            var milliseconds = Int(scaled)
            if scaled - Double(milliseconds) >= 0.5 { milliseconds += 1 }
            guard milliseconds >= 1 else {
                return .failure(ConfigValueProblems(line: value.line, "\(written) seconds is less than one millisecond"))
            }
            return .success(milliseconds)
        }
    }
}

extension ConfigReader where Value == UInt16 {
    /// A TCP port; 0 ("any port") is refused because it means nothing in a rule or address.
    static var port: ConfigReader {
        ConfigReader { value in
            guard case .integer(let number) = value.kind else { return .failure(mismatch("a port number", value)) }
            guard number >= 1, let port = UInt16(exactly: number) else {
                return .failure(ConfigValueProblems(line: value.line, "\(number) is not a port (1-\(UInt16.max))"))
            }
            return .success(port)
        }
    }
}

extension ConfigReader where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enum's raw values, listed in the message when the value is not one of them.
    static var choice: ConfigReader {
        ConfigReader<String>.string.then { text in
            if let choice = Value(rawValue: text) { return .success(choice) }
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure("\(LogQuote.singleQuoted(text)) is not one of \(allowed)")
        }
    }
}

extension ConfigReader {
    /// An array whose elements all pass `element`; every bad element is reported, duplicates too.
    static func list<Element: Hashable & CustomStringConvertible>(
        of element: ConfigReader<Element>, allowEmpty: Bool
    ) -> ConfigReader<[Element]> where Value == [Element] {
        ConfigReader<[Element]> { value in
            guard case .array(let items) = value.kind else { return .failure(mismatch("an array", value)) }
            if items.isEmpty && !allowEmpty {
                return .failure(ConfigValueProblems(line: value.line, "must list at least one value"))
            }
            var elements: [Element] = []
            var firstLines: [Element: Int] = [:]
            var problems: [(line: Int, message: String)] = []
            for item in items {
                switch element.read(item) {
                case .success(let parsed):
                    if let firstLine = firstLines[parsed] {
                        problems.append((item.line, "\(parsed) is listed twice (first on line \(firstLine))"))
                    } else {
                        firstLines[parsed] = item.line
                        elements.append(parsed)
                    }
                case .failure(let failure):
                    problems += failure.items
                }
            }
            return problems.isEmpty ? .success(elements) : .failure(ConfigValueProblems(problems))
        }
    }
}

extension ConfigReader {
    /// One value or an array of them, for lists of addresses: people write a single address as a plain
    /// string (`listen = "127.0.0.1:9000"`), which reads as a list of one. `expected` names both forms in
    /// the message for anything else ("an address or an array of addresses").
    static func oneOrList<Element: Hashable & CustomStringConvertible>(
        of element: ConfigReader<Element>, allowEmpty: Bool, expected: String
    ) -> ConfigReader<[Element]> where Value == [Element] {
        let list = ConfigReader<[Element]>.list(of: element, allowEmpty: allowEmpty)
        return ConfigReader<[Element]> { value in
            switch value.kind {
            case .string: return element.read(value).map { [$0] }
            case .array: return list.read(value)
            default: return .failure(mismatch(expected, value))
            }
        }
    }
}

extension ConfigReader {
    /// The items of an array of tables written `[[header]]`. A single `[header]` table is the usual slip,
    /// so it gets a hint naming what each table holds (`itemName`: "pin", "provider").
    static func arrayOfTables(_ value: TOMLValue, header: String, itemName: String) -> Result<[TOMLValue], ConfigValueProblems> {
        switch value.kind {
        case .array(let elements):
            return .success(elements)
        case .table:
            return .failure(ConfigValueProblems(line: value.line, "write each \(itemName) as a \(header) table, with double brackets"))
        default:
            return .failure(mismatch("\(header) tables", value))
        }
    }
}
