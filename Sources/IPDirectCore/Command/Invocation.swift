/// What the command line asks for: `ipdirect [run|check|resolve|nft-rules] [options]`, `run` when no command is named.
/// Parsed here rather than by a library: the one that did brought in FoundationEssentials, about 3 MiB of
/// the daemon's resident memory at start for three commands and four options.
public enum Invocation: Equatable, Sendable {
    /// Serve in the foreground with the file, or the built-in configuration when nil.
    case run(configPath: String?)
    /// Validate the file (or the built-in configuration) and exit.
    case check(configPath: String?)
    /// Resolve `name` as the proxy would; `repetitions` more cached lookups are timed; with `port`, rank the
    /// addresses by connecting to each.
    case resolve(name: String, configPath: String?, repetitions: Int, port: UInt16?)
    /// Print the nftables table for `[transparent]` and exit.
    case nftRules(configPath: String?)
    case version
    /// Print `text` (the usage of the command it names) and exit 0.
    case help(String)

    /// The command that runs when none is named.
    static let defaultCommand = "run"

    /// Parses the arguments after the program name; the error is a line to print above the usage.
    public static func parse(_ arguments: [String]) -> Result<Invocation, InvocationError> {
        var remaining = arguments[...]
        var command = defaultCommand
        if let first = remaining.first, CommandSpec.named(first) != nil {
            command = first
            remaining = remaining.dropFirst()
        }
        let spec = CommandSpec.named(command)!
        var options: [String: String] = [:]
        var positionals: [String] = []
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return .success(.help(spec.usage))
            case "--version":
                return .success(.version)
            default:
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            let (flag, attached) = split(argument)
            guard let option = spec.options.first(where: { $0.spellings.contains(flag) }) else {
                return .failure(InvocationError("unknown option '\(flag)'", usage: spec.usage))
            }
            guard let value = attached ?? remaining.popFirst() else {
                return .failure(InvocationError("missing value for '\(flag)'", usage: spec.usage))
            }
            options[option.name] = value
        }
        return spec.build(options, positionals)
    }

    /// "--config=FILE" as ("--config", "FILE"); other arguments as they are.
    private static func split(_ argument: String) -> (flag: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

/// A command line that cannot be run: why, and the usage of the command it was meant for.
public struct InvocationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public let usage: String

    init(_ reason: String, usage: String) {
        self.reason = reason
        self.usage = usage
    }

    public var description: String { "Error: \(reason)\n\(usage)" }

    /// sysexits(3) EX_USAGE: the command was used incorrectly.
    public static let exitStatus: Int32 = 64
}
