import Testing
import HealthSupport

@Suite("Loopback: the one rule")
struct LoopbackTests {
    @Test(arguments: ["127.0.0.1", "127.255.255.254", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]",
                      "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001", "::ffff:127.0.0.1",
                      "[::FFFF:127.9.8.7]", "0:0:0:0:0:ffff:127.0.0.1"])
    func loopback(_ host: String) {
        #expect(Loopback.isLoopback(host), "\(host)")
    }

    @Test(arguments: ["128.0.0.1", "126.255.255.255", "0.0.0.0", "192.168.1.20", "::", "::2", "::ffff:128.0.0.1",
                      "::ffff:10.0.0.1", "127.evil.example", "127.0.0.1.evil.example", "localhost.example",
                      "evil-localhost", "127.1", "127.0.0.256", "127.0.0.-1", "127.0.0.01111", "127..0.1", "",
                      "[127.0.0.1", "1::2::1", "::1%lo", "::127.0.0.1"])
    func notLoopback(_ host: String) {
        #expect(!Loopback.isLoopback(host), "\(host)")
    }

    @Test func addressesAreLiteralsOnly() {
        #expect(!Loopback.isLoopbackAddress("localhost"))
        #expect(Loopback.isLoopbackAddress("::1"))
        #expect(Loopback.isIPv4Loopback("127.0.0.1"))
        #expect(!Loopback.isIPv4Loopback("::1"))
        #expect(!Loopback.isIPv4Loopback("127.1"))
    }
}

@Suite("Loopback on address bytes")
struct LoopbackBytesTests {
    @Test func bytesFollowTheSameRule() {
        #expect(Loopback.isLoopback(addressBytes: [127, 0, 0, 1]))
        #expect(Loopback.isLoopback(addressBytes: [127, 255, 0, 9]))
        #expect(!Loopback.isLoopback(addressBytes: [128, 0, 0, 1]))
        #expect(Loopback.isLoopback(addressBytes: [UInt8](repeating: 0, count: 15) + [1]))
        #expect(!Loopback.isLoopback(addressBytes: [UInt8](repeating: 0, count: 15) + [2]))
        #expect(Loopback.isLoopback(addressBytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]))
        #expect(!Loopback.isLoopback(addressBytes: [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 0, 1]))
        #expect(!Loopback.isLoopback(addressBytes: [127, 0, 1]))
    }

    @Test func literalsParseToTheirBytes() {
        #expect(Loopback.addressBytes("127.0.0.1") == [127, 0, 0, 1])
        #expect(Loopback.addressBytes("::1") == [UInt8](repeating: 0, count: 15) + [1])
        #expect(Loopback.addressBytes("fe80::1:2") == [0xFE, 0x80] + [UInt8](repeating: 0, count: 10) + [0, 1, 0, 2])
        #expect(Loopback.addressBytes("::ffff:10.1.2.3") == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 1, 2, 3])
        #expect(Loopback.addressBytes("localhost") == nil)
        #expect(Loopback.addressBytes("1:2:3:4:5:6:7:8:9") == nil)
    }
}
