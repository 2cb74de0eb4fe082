import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What tests that run the real executables need: where `swift build` put them, and a port to serve on.
///
/// ```swift
/// let healthbridge = BuiltProducts.executable(named: "healthbridge")
/// let port = try BuiltProducts.freeLoopbackPort()
/// ```
public enum BuiltProducts {
    /// An executable of this package (`healthbridge`, `diet-sync`, `diet-healthkit`) beside the test bundle: the
    /// bundle may be a directory (`….xctest/…`), so the search walks up to the build products.
    public static func executable(named name: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !directory.path.isEmpty, directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/\(name)")
    }

    /// A free TCP port on 127.0.0.1: bound and released, so another process could take it meanwhile (rarely).
    public static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PortError() }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw PortError() }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// No port could be bound on 127.0.0.1.
    public struct PortError: Error, CustomStringConvertible {
        public var description: String { "cannot bind a port on 127.0.0.1" }
    }
}
