import Testing
@testable import IPDirectCore

@Suite struct NetworkFingerprintTests {
    static let ipv4Table = """
    Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
    eth0\t00000000\t0102000A\t0003\t0\t0\t0\t00000000\t0\t0\t0
    eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
    """
    static let ipv6Table = """
    00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0
    fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
    """

    @Test func readsTheDefaultRoutesOfBothFamilies() {
        let fingerprint = NetworkFingerprint(addresses: [], ipv4RouteTable: Self.ipv4Table, ipv6RouteTable: Self.ipv6Table)
        #expect(fingerprint.defaultRoutes == ["eth0 0102000A", "eth0 fe800000000000000000000000000001"])
    }

    @Test func theSameAddressesInAnotherOrderAreNoChange() {
        let first = NetworkFingerprint(addresses: ["eth0 10.0.0.5", "lo 127.0.0.1"], ipv4RouteTable: Self.ipv4Table, ipv6RouteTable: "")
        let second = NetworkFingerprint(addresses: ["lo 127.0.0.1", "eth0 10.0.0.5"], ipv4RouteTable: Self.ipv4Table, ipv6RouteTable: "")
        #expect(first == second)
    }

    @Test func aNewAddressOrGatewayIsAChange() {
        let before = NetworkFingerprint(addresses: ["lo 127.0.0.1"], ipv4RouteTable: Self.ipv4Table, ipv6RouteTable: "")
        let added = NetworkFingerprint(addresses: ["lo 127.0.0.1", "lo 192.0.2.9"], ipv4RouteTable: Self.ipv4Table, ipv6RouteTable: "")
        let rerouted = NetworkFingerprint(addresses: ["lo 127.0.0.1"],
                                          ipv4RouteTable: "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\neth0\t00000000\t0202000A\t0003\t0\t0\t0\t00000000\n",
                                          ipv6RouteTable: "")
        #expect(before != added)
        #expect(before != rerouted)
    }
}
