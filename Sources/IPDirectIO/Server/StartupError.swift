/// A reason the daemon cannot start, printed as is before exiting 1.
public struct StartupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
