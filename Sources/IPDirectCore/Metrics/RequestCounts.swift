/// The series of `ipdirect_requests_total`: exchanges by method and the status sent. Counted where every
/// exchange ends, so the usual statuses sit in a fixed table indexed by method and status, and counting
/// one hashes nothing; only a status outside 100...599 goes to a dictionary.
public struct RequestCounts: Sendable, Equatable {
    /// One series: the method (bounded: extension methods are `other`) and the status sent, 0 when the
    /// client got no status line (it left, or the relay broke first).
    public struct Key: Sendable, Hashable {
        public var method: String
        public var status: Int

        public init(method: String, status: Int) {
            self.method = method
            self.status = status
        }
    }

    /// The table's rows, in the order of `row(of:)`.
    static let methods: [HTTPMethod] = [.get, .head, .post, .put, .delete, .connect, .options, .trace, .patch, .other]
    /// Column 0 is "no status sent"; columns 1... are the statuses of `tabledStatuses`.
    static let tabledStatuses = 100...599
    static let columns = tabledStatuses.count + 1

    private var table = [UInt64](repeating: 0, count: methods.count * columns)
    /// Series the table has no cell for: a method text no `HTTPMethod` prints, a status outside the table.
    private var untabled: [Key: UInt64] = [:]

    public init() {}

    public mutating func count(_ method: HTTPMethod, status: Int) {
        guard let column = Self.column(of: status) else {
            untabled[Key(method: method.description, status: status), default: 0] += 1
            return
        }
        table[Self.row(of: method) * Self.columns + column] += 1
    }

    /// Counts by the method's text, as `ipdirect_requests_total` labels it.
    public mutating func count(method: String, status: Int) {
        guard let kind = Self.methods.first(where: { $0.description == method }) else {
            untabled[Key(method: method, status: status), default: 0] += 1
            return
        }
        count(kind, status: status)
    }

    /// Every series counted at least once.
    public var byKey: [Key: UInt64] {
        var series = untabled
        for (index, value) in table.enumerated() where value > 0 {
            let method = Self.methods[index / Self.columns].description
            let column = index % Self.columns
            let status = column == 0 ? 0 : Self.tabledStatuses.lowerBound + column - 1
            series[Key(method: method, status: status), default: 0] += value
        }
        return series
    }

    /// Adds another worker's counts to these.
    public mutating func add(_ other: RequestCounts) {
        for index in table.indices { table[index] += other.table[index] }
        untabled.merge(other.untabled, uniquingKeysWith: +)
    }

    private static func column(of status: Int) -> Int? {
        if status == 0 { return 0 }
        return tabledStatuses.contains(status) ? status - tabledStatuses.lowerBound + 1 : nil
    }

    private static func row(of method: HTTPMethod) -> Int {
        switch method {
        case .get: return 0
        case .head: return 1
        case .post: return 2
        case .put: return 3
        case .delete: return 4
        case .connect: return 5
        case .options: return 6
        case .trace: return 7
        case .patch: return 8
        case .other: return 9
        }
    }
}
