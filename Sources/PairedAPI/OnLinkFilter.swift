import HealthSupport
import NIOCore
import NIOPosix
import Synchronization

/// Which peers the mDNS responder answers: RFC 6762 §11 — a responder answers only queries from its own link. A
/// source address is on-link when it is loopback, IPv6 link-local, or inside the subnet of one of this machine's
/// interfaces. Anything else (a unicast query routed from another network, a spoofed far address) gets no answer,
/// so the responder is useless as a reflector.
public final class OnLinkFilter: Sendable {
    /// One interface network: address and netmask bytes (4 for IPv4, 16 for IPv6).
    public struct Network: Sendable, Equatable {
        public var address: [UInt8]
        public var netmask: [UInt8]
        public init(address: [UInt8], netmask: [UInt8]) { self.address = address; self.netmask = netmask }

        func contains(_ bytes: [UInt8]) -> Bool {
            guard bytes.count == address.count, netmask.count == address.count else { return false }
            for index in bytes.indices where bytes[index] & netmask[index] != address[index] & netmask[index] {
                return false
            }
            return true
        }
    }

    private let fixed: [Network]?
    private let cache = Mutex<(networks: [Network], read: NIODeadline)?>(nil)
    static let refresh = TimeAmount.seconds(5)

    /// - Parameter networks: the networks to accept; nil reads this machine's interfaces (refreshed every 5 s).
    public init(networks: [Network]? = nil) { self.fixed = networks }

    public func accepts(_ source: SocketAddress) -> Bool {
        guard let bytes = Self.bytes(of: source) else { return false }
        return Self.isOnLink(bytes, networks: networks())
    }

    /// The decision on raw address bytes (4 or 16).
    public static func isOnLink(_ bytes: [UInt8], networks: [Network]) -> Bool {
        if Loopback.isLoopback(addressBytes: bytes) { return true }
        if bytes.count == 16 {
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10
            // IPv4-mapped (::ffff:a.b.c.d): judge the IPv4 address.
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return isOnLink(Array(bytes[12..<16]), networks: networks)
            }
        }
        return networks.contains { $0.contains(bytes) }
    }

    func networks() -> [Network] {
        if let fixed { return fixed }
        let now = NIODeadline.now()
        if let cached = cache.withLock({ $0 }), now - cached.read < Self.refresh { return cached.networks }
        let read = Self.interfaceNetworks()
        cache.withLock { $0 = (read, now) }
        return read
    }

    /// This machine's interface networks.
    static func interfaceNetworks() -> [Network] {
        let devices = (try? System.enumerateDevices()) ?? []
        return devices.compactMap { device in
            guard let address = device.address.flatMap(bytes(of:)), let netmask = device.netmask.flatMap(bytes(of:)),
                  address.count == netmask.count else { return nil }
            return Network(address: address, netmask: netmask)
        }
    }

    static func bytes(of address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default:
            return nil
        }
    }
}
