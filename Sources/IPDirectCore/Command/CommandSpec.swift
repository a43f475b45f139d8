/// One command of `ipdirect`: its options, its help text, and how its parsed arguments become an `Invocation`.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        /// The key its value is kept under.
        let name: String
        let spellings: [String]
        let help: String
    }

    let name: String
    let abstract: String
    let options: [Option]
    /// The positional arguments, for the usage line.
    let positionals: String
    let build: @Sendable (_ options: [String: String], _ positionals: [String]) -> Result<Invocation, InvocationError>

    static let overview = "A local forward proxy that resolves upstream names itself and connects by IP."

    static let configOption = Option(
        name: "config", spellings: ["-c", "--config"],
        help: "TOML configuration file (default: built-in configuration with the public Cloudflare and Google DoH providers).")

    static let all: [CommandSpec] = [
        CommandSpec(name: "run", abstract: "Run the proxy in the foreground (the default).", options: [configOption],
                    positionals: "") { options, positionals in
            noPositionals(positionals, command: "run").map { .run(configPath: options["config"]) }
        },
        CommandSpec(name: "check", abstract: "Validate a configuration file and exit 0 if it is usable.",
                    options: [configOption], positionals: "") { options, positionals in
            noPositionals(positionals, command: "check").map { .check(configPath: options["config"]) }
        },
        CommandSpec(
            name: "resolve",
            abstract: "Resolve a host name the way the proxy would and print each address, its TTL left and its source.",
            options: [
                configOption,
                Option(name: "repeat", spellings: ["--repeat"],
                       help: "After resolving, look the name up this many more times and print how many lookups a second the cache answers."),
                Option(name: "port", spellings: ["--port"],
                       help: "Also connect to each address on this port and print them ranked as the proxy would rank them."),
            ],
            positionals: " <name>", build: resolve),
        CommandSpec(name: "nft-rules",
                    abstract: "Print the nftables table that redirects programs' connections to [transparent] listen, for root to load with nft -f.",
                    options: [configOption], positionals: "") { options, positionals in
            noPositionals(positionals, command: "nft-rules").map { .nftRules(configPath: options["config"]) }
        },
    ]

    static func named(_ name: String) -> CommandSpec? {
        all.first { $0.name == name }
    }

    private static func resolve(_ options: [String: String], _ positionals: [String]) -> Result<Invocation, InvocationError> {
        let usage = named("resolve")!.usage
        guard positionals.count == 1, let name = positionals.first else {
            return .failure(InvocationError(positionals.isEmpty ? "missing the host name to resolve"
                                                                : "one host name only, not \(positionals.count)", usage: usage))
        }
        var repetitions = 0
        if let written = options["repeat"] {
            guard let parsed = Int(written), parsed >= 0 else {
                return .failure(InvocationError("--repeat takes a whole number, 0 or more", usage: usage))
            }
            repetitions = parsed
        }
        var port: UInt16?
        if let written = options["port"] {
            guard let parsed = UInt16(written) else {
                return .failure(InvocationError("--port takes a port number (0-65535)", usage: usage))
            }
            port = parsed
        }
        return .success(.resolve(name: name, configPath: options["config"], repetitions: repetitions, port: port))
    }

    private static func noPositionals(_ positionals: [String], command: String) -> Result<Void, InvocationError> {
        guard let unexpected = positionals.first else { return .success(()) }
        return .failure(InvocationError("unexpected argument '\(unexpected)'", usage: named(command)!.usage))
    }

    /// The help text: what the command does, how to call it, its options and, for the default, the other commands.
    var usage: String {
        let optionSpellings = options.map { option in
            option.spellings.joined(separator: ", ") + " <\(option.name)>"
        }
        let width = (optionSpellings + ["-h, --help"]).map(\.count).max()! + 2
        func row(_ left: String, _ right: String) -> String {
            "  " + left + String(repeating: " ", count: max(1, width - left.count)) + right
        }
        var lines = ["OVERVIEW: \(name == Invocation.defaultCommand ? CommandSpec.overview : abstract)", "",
                     "USAGE: ipdirect \(name == Invocation.defaultCommand ? "[<subcommand>]" : name) [<options>]\(positionals)", "", "OPTIONS:"]
        lines += zip(optionSpellings, options).map { row($0, $1.help) }
        lines += [row("--version", "Show the version."), row("-h, --help", "Show help information.")]
        if name == Invocation.defaultCommand {
            lines += ["", "SUBCOMMANDS:"] + CommandSpec.all.map { spec in
                row(spec.name + (spec.name == Invocation.defaultCommand ? " (default)" : ""), spec.abstract)
            }
        }
        return lines.joined(separator: "\n")
    }
}
