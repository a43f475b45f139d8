import Testing
@testable import IPDirectCore

@Suite struct InvocationTests {
    @Test(arguments: [
        ([], Invocation.run(configPath: nil)),
        (["--config", "a.toml"], .run(configPath: "a.toml")),
        (["run", "-c", "a.toml"], .run(configPath: "a.toml")),
        (["run", "--config=a.toml"], .run(configPath: "a.toml")),
        (["check", "--config", "a.toml"], .check(configPath: "a.toml")),
        (["check"], .check(configPath: nil)),
        (["resolve", "www.example.test"], .resolve(name: "www.example.test", configPath: nil, repetitions: 0, port: nil)),
        (["resolve", "--config", "a.toml", "a.test", "--repeat", "5", "--port", "443"],
         .resolve(name: "a.test", configPath: "a.toml", repetitions: 5, port: 443)),
        (["--version"], .version),
        (["check", "--version"], .version),
    ])
    func commandLinesMeanWhatTheUsageSays(arguments: [String], expected: Invocation) throws {
        #expect(try Invocation.parse(arguments).get() == expected)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["check", "--config"], "missing value for '--config'"),
        (["resolve"], "missing the host name to resolve"),
        (["resolve", "a.test", "b.test"], "one host name only, not 2"),
        (["resolve", "a.test", "--repeat", "-1"], "--repeat takes a whole number, 0 or more"),
        (["resolve", "a.test", "--port", "65536"], "--port takes a port number (0-65535)"),
        (["run", "extra"], "unexpected argument 'extra'"),
        (["check", "--repeat", "3"], "unknown option '--repeat'"),
    ])
    func refusesCommandLinesItCannotRunAndSaysWhy(arguments: [String], reason: String) {
        guard case .failure(let error) = Invocation.parse(arguments) else {
            Issue.record("\(arguments) was accepted")
            return
        }
        #expect(error.reason == reason)
        #expect(error.usage.contains("USAGE: ipdirect"))
    }

    @Test func helpOfTheDefaultCommandListsEveryCommand() throws {
        guard case .help(let text) = try Invocation.parse(["--help"]).get() else {
            Issue.record("--help did not ask for help")
            return
        }
        for command in ["run (default)", "check", "resolve"] { #expect(text.contains(command)) }
    }

    @Test func helpOfResolveNamesItsOptionsAndTheHostArgument() throws {
        guard case .help(let text) = try Invocation.parse(["resolve", "-h"]).get() else {
            Issue.record("-h did not ask for help")
            return
        }
        #expect(text.contains("USAGE: ipdirect resolve [<options>] <name>"))
        for option in ["--config", "--repeat", "--port"] { #expect(text.contains(option)) }
    }
}
