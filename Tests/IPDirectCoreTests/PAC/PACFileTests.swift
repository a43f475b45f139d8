import Testing
@testable import IPDirectCore

/// The proxy auto-config file and the `[pac]` section it is made from.
@Suite struct PACFileTests {
    static func diagnostics(_ text: String) -> [String] {
        guard case .failure(let error) = Config.parse(text) else { return [] }
        return error.diagnostics.map(\.message)
    }

    @Test func pointsAtTheListenerAddress() throws {
        let v4 = PACFile(proxy: try #require(SocketAddress("127.0.0.1:8080")), direct: []).script
        #expect(v4.contains("var proxy = \"PROXY 127.0.0.1:8080\";"))
        let v6 = PACFile(proxy: try #require(SocketAddress("[::1]:3128")), direct: []).script
        #expect(v6.contains("var proxy = \"PROXY [::1]:3128\";"))
    }

    @Test func listsTheDirectPatternsAndNeverResolvesNames() throws {
        let script = PACFile(proxy: try #require(SocketAddress("127.0.0.1:8080")),
                             direct: ["*.corp.example", "intranet?.example"]).script
        #expect(script.contains("var directPatterns = [\"*.corp.example\", \"intranet?.example\"];"))
        #expect(script.contains("function FindProxyForURL(url, host)"))
        #expect(!script.contains("dnsResolve("), "the client must not resolve names itself")
        #expect(!script.contains("; DIRECT"), "no silent fallback around the proxy")
        for (network, mask) in PACFile.privateIPv4Networks {
            #expect(script.contains("isInNet(host, \"\(network)\", \"\(mask)\")"))
        }
    }

    @Test func offersSOCKS5BeforeThePROXYFallbackWhenAsked() throws {
        let address = try #require(SocketAddress("127.0.0.1:8080"))
        #expect(PACFile(proxy: address, direct: [], socks: true).script
            .contains("var proxy = \"SOCKS5 127.0.0.1:8080; PROXY 127.0.0.1:8080\";"))
        let config = try Config.parse("[pac]\nsocks = true\n").get()
        #expect(config.pac.socks)
        #expect(!Config.defaults.pac.socks)
        #expect(Self.diagnostics("[pac]\nsocks = \"yes\"\n").first?.hasPrefix("socks: ") == true)
    }

    @Test func emptyDirectListIsAnEmptyArray() throws {
        let script = PACFile(proxy: try #require(SocketAddress("127.0.0.1:8080")), direct: []).script
        #expect(script.contains("var directPatterns = [];"))
    }

    @Test func readsDirectPatternsInLowerCase() throws {
        let config = try Config.parse("[pac]\ndirect = [\"*.Corp.Example\", \"host?.lan\"]\n").get()
        #expect(config.pac.direct == ["*.corp.example", "host?.lan"])
        #expect(Config.defaults.pac.direct.isEmpty)
    }

    @Test(arguments: ["a\"b", "a b", "x');alert(1);//", "", "host/path"])
    func refusesPatternsThatAreNotHostGlobs(pattern: String) {
        let messages = Self.diagnostics("[pac]\ndirect = [\"\(pattern.replacingQuotes)\"]\n")
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix("direct: ") == true)
    }

    @Test func refusesUnknownKeys() {
        #expect(Self.diagnostics("[pac]\nproxy = \"x\"\n") == ["unknown key 'proxy' in [pac]"])
    }
}

private extension String {
    /// TOML basic-string escaping for the one character the table above needs it for.
    var replacingQuotes: String {
        var out = ""
        for character in self { out += character == "\"" ? "\\\"" : String(character) }
        return out
    }
}
