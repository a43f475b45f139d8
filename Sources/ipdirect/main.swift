import ArgumentParser
import Glibc
import IPDirectCore
import IPDirectIO

@main
struct IPDirectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ipdirect",
        abstract: "A local forward proxy that resolves upstream names itself and connects by IP.",
        version: IPDirectVersion.string,
        subcommands: [Run.self, Check.self, Resolve.self],
        defaultSubcommand: Run.self
    )
}

struct ConfigOption: ParsableArguments {
    @Option(name: [.short, .long], help: "TOML configuration file (default: built-in configuration with the public Cloudflare and Google DoH providers).")
    var config: String?

    /// Loads the file, or the built-in configuration when none was named; prints `FILE:LINE: message` per problem.
    func load() -> Config? {
        guard let path = config else { return Config.builtIn }
        switch ConfigFile.load(path: path) {
        case .success(let config):
            return config
        case .failure(let error):
            for diagnostic in error.diagnostics {
                printError(diagnostic.line > 0 ? "\(path):\(diagnostic.line): \(diagnostic.message)"
                                               : "\(path): \(diagnostic.message)")
            }
            return nil
        }
    }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the proxy in the foreground (the default).")

    @OptionGroup var options: ConfigOption

    func run() throws {
        guard let config = options.load() else { throw ExitCode(1) }
        do {
            let server = try Server(config: config, configPath: options.config)
            throw ExitCode(server.run())
        } catch let error as StartupError {
            printError("ipdirect: \(error)")
            throw ExitCode(1)
        }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Validate a configuration file and exit 0 if it is usable.")

    @OptionGroup var options: ConfigOption

    func run() throws {
        guard let config = options.load() else { throw ExitCode(1) }
        if let authFile = config.access.authFile, case .failure(let error) = PasswordFileReader.load(path: authFile) {
            for diagnostic in error.diagnostics { printError(diagnostic.formatted(file: authFile)) }
            throw ExitCode(1)
        }
        for warning in OpenProxyWarning.find(listen: config.proxy.listen, access: config.access) {
            printError("warning \(warning)")
        }
        print("\(options.config ?? "built-in defaults"): configuration ok")
    }
}

struct Resolve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resolve a host name the way the proxy would and print each address, its TTL left and its source.")

    @OptionGroup var options: ConfigOption

    @Argument(help: "The host name to resolve.")
    var name: String

    @Option(help: "After resolving, look the name up this many more times and print how many lookups a second the cache answers.")
    var `repeat`: Int = 0

    @Option(help: "Also connect to each address on this port and print them ranked as the proxy would rank them.")
    var port: UInt16?

    func run() throws {
        guard let config = options.load() else { throw ExitCode(1) }
        do {
            let (result, timing) = try SingleNameResolution.resolve(name, config: config, repeat: max(0, `repeat`))
            switch result {
            case .success(let lines):
                for line in lines { print(line) }
                if let timing { print(timing) }
                if let port {
                    let ranking = AddressRankingProbe.rank(lines.map(\.address), host: HostName.normalized(name),
                                                           port: port, config: config)
                    for line in ranking { print(line) }
                }
            case .failure(let failure):
                printError("ipdirect: \(failure)")
                throw ExitCode(2)
            }
        } catch let error as StartupError {
            printError("ipdirect: \(error)")
            throw ExitCode(1)
        }
    }
}

func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
