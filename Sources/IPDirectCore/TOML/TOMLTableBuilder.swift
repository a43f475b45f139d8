/// A table while the document is being read. It remembers how it came to exist, because
/// TOML 1.0 ("Table" and "Array of Tables" sections) allows defining each table only once:
/// a header may complete a table that an earlier header created as a parent, but nothing may
/// reopen a table that a header, dotted keys or an inline table already defined.
final class TOMLTableBuilder {
    enum Origin: CustomStringConvertible {
        /// Created as a parent by a header such as `[a.b]`; a later `[a]` may still define it.
        case implicit
        /// Defined by its own `[header]` or `[[header]]` (or the document root).
        case header
        /// Created by a dotted key (`a.b = 1`); only that same section may add to it.
        case dotted(section: Int)

        var description: String {
            switch self {
            case .implicit: return "implicit"
            case .header: return "header"
            case .dotted(let section): return "dotted(section \(section))"
            }
        }
    }

    enum Slot {
        /// A plain value; inline tables and static arrays are values too, so they stay closed.
        case value(TOMLValue, keyLine: Int)
        case table(TOMLTableBuilder, keyLine: Int)
        case tableArray([TOMLTableBuilder], keyLine: Int)
    }

    var origin: Origin
    let line: Int
    private(set) var slots: [String: Slot] = [:]
    private var order: [String] = []

    init(origin: Origin, line: Int) {
        self.origin = origin
        self.line = line
    }

    subscript(key: String) -> Slot? {
        get { slots[key] }
        set {
            if slots[key] == nil { order.append(key) }
            slots[key] = newValue
        }
    }

    /// Handles `[path]`: walks or creates the parents, then defines the last table.
    func defineTable(_ path: [String], line: Int) throws(TOMLProblem) -> TOMLTableBuilder {
        let parent = try headerParent(path, line: line, header: "[\(Self.display(path))]")
        let key = path[path.count - 1]
        switch parent[key] {
        case nil:
            let table = TOMLTableBuilder(origin: .header, line: line)
            parent[key] = .table(table, keyLine: line)
            return table
        case .table(let table, _):
            switch table.origin {
            case .implicit:
                table.origin = .header
                return table
            case .header:
                throw TOMLProblem(line: line, message: "table [\(Self.display(path))] is defined twice (first on line \(table.line))")
            case .dotted:
                throw TOMLProblem(line: line, message: "table [\(Self.display(path))] was already defined by dotted keys on line \(table.line)")
            }
        case .tableArray(_, let keyLine):
            throw TOMLProblem(line: line, message: "[\(Self.display(path))] is an array of tables (line \(keyLine)), not a table")
        case .value(let value, _):
            throw TOMLProblem(line: line, message: "cannot define table [\(Self.display(path))]: it is already set to \(value.typeDescription) on line \(value.line)")
        }
    }

    /// Handles `[[path]]`: appends a new table to the array, creating the array the first time.
    func appendTable(_ path: [String], line: Int) throws(TOMLProblem) -> TOMLTableBuilder {
        let parent = try headerParent(path, line: line, header: "[[\(Self.display(path))]]")
        let key = path[path.count - 1]
        let table = TOMLTableBuilder(origin: .header, line: line)
        switch parent[key] {
        case nil:
            parent[key] = .tableArray([table], keyLine: line)
        case .tableArray(let tables, let keyLine):
            parent[key] = .tableArray(tables + [table], keyLine: keyLine)
        case .table(let existing, _):
            throw TOMLProblem(line: line, message: "cannot use [[\(Self.display(path))]]: it is a table defined on line \(existing.line)")
        case .value(let value, _):
            throw TOMLProblem(line: line, message: "cannot append to [[\(Self.display(path))]]: it is already set to \(value.typeDescription) on line \(value.line)")
        }
        return table
    }

    /// Handles `a.b.c = value` in this table, `section` counting the headers read so far.
    func assign(_ path: [String], value: TOMLValue, keyLine: Int, section: Int) throws(TOMLProblem) {
        var table = self
        for (depth, key) in path.dropLast().enumerated() {
            let prefix = Self.display(Array(path[...depth]))
            switch table[key] {
            case nil:
                let child = TOMLTableBuilder(origin: .dotted(section: section), line: keyLine)
                table[key] = .table(child, keyLine: keyLine)
                table = child
            case .table(let child, _):
                switch child.origin {
                case .implicit:
                    child.origin = .dotted(section: section)
                case .dotted(let created) where created == section:
                    break
                case .dotted:
                    throw TOMLProblem(line: keyLine, message: "cannot add to \(LogQuote.singleQuoted(prefix)) with a dotted key: it was defined in an earlier section (line \(child.line))")
                case .header:
                    throw TOMLProblem(line: keyLine, message: "cannot add to \(LogQuote.singleQuoted(prefix)) with a dotted key: it is defined by a [header] on line \(child.line)")
                }
                table = child
            case .tableArray(_, let line):
                throw TOMLProblem(line: keyLine, message: "cannot add to \(LogQuote.singleQuoted(prefix)) with a dotted key: it is an array of tables (line \(line))")
            case .value(let existing, _):
                if case .table = existing.kind {
                    throw TOMLProblem(line: keyLine, message: "cannot add to \(LogQuote.singleQuoted(prefix)) with a dotted key: it is an inline table (line \(existing.line)), which is closed")
                }
                throw TOMLProblem(line: keyLine, message: "cannot add to \(LogQuote.singleQuoted(prefix)) with a dotted key: it is already set to \(existing.typeDescription) on line \(existing.line)")
            }
        }
        let key = path[path.count - 1]
        if let existing = table[key] {
            throw TOMLProblem(line: keyLine, message: "duplicate key \(LogQuote.singleQuoted(Self.display(path))) (first set on line \(existing.keyLine))")
        }
        table[key] = .value(value, keyLine: keyLine)
    }

    /// Walks a header path to the table that will hold its last key; the last element of an
    /// array of tables stands for the array, as TOML 1.0 specifies.
    private func headerParent(_ path: [String], line: Int, header: String) throws(TOMLProblem) -> TOMLTableBuilder {
        var table = self
        for key in path.dropLast() {
            switch table[key] {
            case nil:
                let child = TOMLTableBuilder(origin: .implicit, line: line)
                table[key] = .table(child, keyLine: line)
                table = child
            case .table(let child, _):
                table = child
            case .tableArray(let tables, _):
                table = tables[tables.count - 1]
            case .value(let value, _):
                throw TOMLProblem(line: line, message: "cannot define \(header): \(LogQuote.singleQuoted(key)) is already set to \(value.typeDescription) on line \(value.line)")
            }
        }
        return table
    }

    /// The finished, immutable tree.
    func build() -> TOMLTable {
        var result = TOMLTable()
        for key in order {
            switch slots[key]! {
            case .value(let value, let keyLine):
                result.entries.append(.init(key: key, line: keyLine, value: value))
            case .table(let table, let keyLine):
                result.entries.append(.init(key: key, line: keyLine, value: TOMLValue(.table(table.build()), line: table.line)))
            case .tableArray(let tables, let keyLine):
                let elements = tables.map { TOMLValue(.table($0.build()), line: $0.line) }
                result.entries.append(.init(key: key, line: keyLine, value: TOMLValue(.array(elements), line: keyLine)))
            }
        }
        return result
    }

    /// `a.b."c d"` for messages: bare where TOML allows it, quoted otherwise.
    static func display(_ path: [String]) -> String {
        path.map { key in
            let isBare = !key.isEmpty && key.utf8.allSatisfy(TOMLParser.isBareKeyByte)
            return isBare ? key : "\"\(key)\""
        }.joined(separator: ".")
    }
}

extension TOMLTableBuilder.Slot {
    var keyLine: Int {
        switch self {
        case .value(_, let line), .table(_, let line), .tableArray(_, let line): return line
        }
    }
}
