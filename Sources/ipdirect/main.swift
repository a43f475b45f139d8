import Glibc
import IPDirectCore
import IPDirectIO

/// Loads the file, or the built-in configuration when none was named; prints `FILE:LINE: message` per problem.
func loadConfig(_ path: String?) -> Config? {
    guard let path else { return Config.builtIn }
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

func run(configPath: String?) -> Int32 {
    guard let config = loadConfig(configPath) else { return 1 }
    do {
        return try Server(config: config, configPath: configPath).run()
    } catch {
        printError("ipdirect: \(error)")
        return 1
    }
}

/// The `[transparent]` table on standard output; exit 1 when the file is unusable or transparent mode is off
/// (an empty table would redirect nothing and say nothing).
func printNFTRules(configPath: String?) -> Int32 {
    guard let config = loadConfig(configPath) else { return 1 }
    guard let text = NFTRuleset(config: config).text(source: configPath ?? "the built-in configuration") else {
        printError("ipdirect nft-rules: [transparent] listen is empty in \(configPath ?? "the built-in configuration"): transparent mode is off, there are no rules to print")
        return 1
    }
    print(text, terminator: "")
    return 0
}

func check(configPath: String?) -> Int32 {
    guard let config = loadConfig(configPath) else { return 1 }
    if let authFile = config.access.authFile, case .failure(let error) = PasswordFileReader.load(path: authFile) {
        for diagnostic in error.diagnostics { printError(diagnostic.formatted(file: authFile)) }
        return 1
    }
    for warning in OpenProxyWarning.find(listen: config.proxy.listen, access: config.access) {
        printError("warning \(warning)")
    }
    print("\(configPath ?? "built-in defaults"): configuration ok")
    return 0
}

func resolve(_ name: String, configPath: String?, repetitions: Int, port: UInt16?) -> Int32 {
    guard let config = loadConfig(configPath) else { return 1 }
    do {
        let (result, timing) = try SingleNameResolution.resolve(name, config: config, repeat: repetitions)
        switch result {
        case .success(let lines):
            for line in lines { print(line) }
            if let timing { print(timing) }
            if let port {
                let ranking = AddressRankingProbe.rank(lines.map(\.address), host: HostName.normalized(name),
                                                       port: port, config: config)
                for line in ranking { print(line) }
            }
            return 0
        case .failure(let failure):
            printError("ipdirect: \(failure)")
            return 2
        }
    } catch {
        printError("ipdirect: \(error)")
        return 1
    }
}

func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

switch Invocation.parse(Array(CommandLine.arguments.dropFirst())) {
case .failure(let error):
    printError("\(error)")
    exit(InvocationError.exitStatus)
case .success(.help(let usage)):
    print(usage)
case .success(.version):
    print(IPDirectVersion.string)
case .success(.run(let configPath)):
    exit(run(configPath: configPath))
case .success(.check(let configPath)):
    exit(check(configPath: configPath))
case .success(.resolve(let name, let configPath, let repetitions, let port)):
    exit(resolve(name, configPath: configPath, repetitions: repetitions, port: port))
case .success(.nftRules(let configPath)):
    exit(printNFTRules(configPath: configPath))
}
