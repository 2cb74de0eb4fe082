import HTTPTypes
import HealthAPI
import Foundation
import HealthModel
import HealthSupport

/// Where the running console listens, written by `serve` (`<home>/console.json`, 0600) so that `healthbridge console`
/// in another terminal can print a login link to it.
public struct ConsoleRuntime: Codable, Sendable, Equatable {
    /// `http://127.0.0.1:8080`.
    public var origin: String
    public var pid: Int

    public static let fileName = "console.json"

    public init(origin: String, pid: Int) {
        self.origin = origin
        self.pid = pid
    }

    public func save(home: URL) {
        guard let data = try? JSONEncoder.wire.encode(self) else { return }
        try? PrivateFile.write(data, to: home.appendingPathComponent(Self.fileName), createDirectory: false)
    }

    /// The record of a console whose process still runs, if any.
    public static func load(home: URL) -> ConsoleRuntime? {
        guard let data = try? Data(contentsOf: home.appendingPathComponent(fileName)),
              let info = try? JSONDecoder().decode(ConsoleRuntime.self, from: data) else { return nil }
        return kill(pid_t(info.pid), 0) == 0 || errno == EPERM ? info : nil
    }
}

/// The loopback address this install's console listens on. Cookies are scoped by host, not by port: a console on
/// 127.0.0.1 would have its session cookie sent to every other web server on 127.0.0.1 the owner visits. Linux routes
/// all of 127.0.0.0/8 to the loopback interface, so each install draws an address of its own, `127.x.y.z` outside
/// 127.0.0.0/16, once, and keeps it in `<home>/console-address` (0600); the console's cookie then belongs to that
/// address alone. Where it cannot be bound (macOS has only 127.0.0.1 unless aliased), the console falls back to
/// 127.0.0.1 and says why.
///
/// ```swift
/// let address = ConsoleAddress.resolve(home: home)
/// if let reason = address.fallbackReason { logger.warning("\(reason)") }
/// let console = Console(..., configuration: .init(port: 8080, host: address.host), ...)
/// ```
public struct ConsoleAddress: Sendable, Equatable {
    /// The address to bind and to name in the login link.
    public var host: String
    /// Why the console is on the shared 127.0.0.1 instead of its own address; nil when it has one.
    public var fallbackReason: String?

    public static let fileName = "console-address"
    /// The shared loopback address, the fallback.
    public static let shared = "127.0.0.1"

    public init(host: String, fallbackReason: String? = nil) {
        self.host = host
        self.fallbackReason = fallbackReason
    }

    /// This install's own address when this machine can bind it, else 127.0.0.1 with the reason.
    public static func resolve(home: URL) -> ConsoleAddress {
        let own: String
        do {
            own = try loadOrCreate(home: home)
        } catch {
            return ConsoleAddress(host: shared, fallbackReason: "cannot keep the console's own address in \(home.appendingPathComponent(fileName).path) (\(error)); listening on 127.0.0.1, whose other web servers would also receive the console's session cookie")
        }
        if own == shared {
            return ConsoleAddress(host: shared, fallbackReason: "\(home.appendingPathComponent(fileName).path) names 127.0.0.1, whose other web servers would also receive the console's session cookie (delete the file for an address of the console's own)")
        }
        guard canBind(own) else {
            return ConsoleAddress(host: shared, fallbackReason: "this machine cannot listen on the console's own loopback address \(own) (on macOS: `sudo ifconfig lo0 alias \(own)`); listening on 127.0.0.1, whose other web servers would also receive the console's session cookie")
        }
        return ConsoleAddress(host: own)
    }

    /// The address kept in `<home>/console-address`, or a fresh one drawn and kept there (0600). A file that does
    /// not hold a 127.0.0.0/8 address is replaced.
    public static func loadOrCreate(home: URL) throws -> String {
        let file = home.appendingPathComponent(fileName)
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            let address = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if Loopback.isIPv4Loopback(address) { return address }
        }
        var generator = SystemRandomNumberGenerator()
        try PrivateFile.write(Data((random(using: &generator) + "\n").utf8), to: file, createDirectory: false)
        // Two processes starting at once keep whichever write landed last.
        let kept = (try String(contentsOf: file, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
        guard Loopback.isIPv4Loopback(kept) else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file.path]) }
        return kept
    }

    /// A random `127.x.y.z` outside 127.0.0.0/16 (where 127.0.0.1, systemd-resolved's 127.0.0.53 and Debian's
    /// 127.0.1.1 live), never a network or broadcast-looking last byte.
    public static func random(using generator: inout some RandomNumberGenerator) -> String {
        "127.\(Int.random(in: 1...254, using: &generator)).\(Int.random(in: 0...255, using: &generator)).\(Int.random(in: 1...254, using: &generator))"
    }

    /// True when a TCP socket can be bound to `address` (any port) on this machine.
    public static func canBind(_ address: String) -> Bool {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = 0
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else { return false }
        return withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
