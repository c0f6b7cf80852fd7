import NIOCore
import PipelineCore
import Testing

@testable import Intake

/// ``ClientAddressKey``: whom every per-client limit of the intake counts a client as (the
/// connection cap and the notification routes' rate limit).
@Suite struct ClientAddressKeyTests {
    static func key(_ address: String) throws -> ClientAddressKey {
        ClientAddressKey(try SocketAddress(ipAddress: address, port: 443))
    }

    @Test func anIPv6ClientCountsByItsSlash64() throws {
        #expect(try Self.key("2001:db8:1:2::1") == Self.key("2001:db8:1:2:ffff::9"))
        #expect(try Self.key("2001:db8:1:2::") == Self.key("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        // The port is not the client's
        #expect(
            try Self.key("2001:db8:1:2::1") == ClientAddressKey(SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1)))
        // Another /64 is another client
        #expect(try Self.key("2001:db8:1:2::1") != Self.key("2001:db8:1:3::1"))
        #expect(try Self.key("2001:db8:1:2::1") != Self.key("3001:db8:1:2::1"))
        #expect(try Self.key("::1") != Self.key("2001:db8::1"))
    }

    @Test func anIPv4ClientCountsWholeAndMappedIPv4AsIPv4() throws {
        #expect(try Self.key("192.0.2.7") != Self.key("192.0.2.8"))
        #expect(try Self.key("::ffff:192.0.2.7") == Self.key("192.0.2.7"))
        #expect(try Self.key("::ffff:192.0.2.7") != Self.key("::ffff:192.0.2.8"))
        // Not mapped: an IPv6 address whose last 32 bits spell the same IPv4 address
        #expect(try Self.key("::192.0.2.7") != Self.key("192.0.2.7"))
        #expect(try Self.key("64:ff9b::192.0.2.7") != Self.key("192.0.2.7"))
        // An IPv4 address is never an IPv6 /64 whose first bytes it shares
        #expect(try Self.key("192.0.2.7") != Self.key("c000:207::"))
    }

    @Test(arguments: ["192.0.2.7", "::ffff:192.0.2.7", "2001:db8:1:2::1", "::1", "64:ff9b::192.0.2.7", "0.0.0.0"])
    func theKeyOfTheAddressTextIsTheKeyOfTheSocketAddress(_ address: String) throws {
        #expect(ClientAddressKey(ipAddress: address) == (try Self.key(address)))
    }

    @Test func aKeyReadsAsTheClientItCounts() {
        #expect(ClientAddressKey(ipAddress: "192.0.2.7").description == "192.0.2.7")
        #expect(ClientAddressKey(ipAddress: "::ffff:192.0.2.7").description == "192.0.2.7")
        #expect(ClientAddressKey(ipAddress: "2001:db8:1:2:ffff::9").description == "2001:db8:1:2::/64")
        #expect(ClientAddressKey(ipAddress: "not an address").description == "unknown")
        #expect(ClientAddressKey(ipAddress: nil) == ClientAddressKey(nil))
    }

    @Test func aClientWithoutAnIPAddressIsOneClient() throws {
        let unknown = ClientAddressKey(nil)
        #expect(unknown == ClientAddressKey(nil))
        #expect(try ClientAddressKey(SocketAddress(unixDomainSocketPath: "/tmp/iap.sock")) == unknown)
        #expect(try Self.key("0.0.0.0") != unknown && Self.key("::") != unknown)
    }
}
