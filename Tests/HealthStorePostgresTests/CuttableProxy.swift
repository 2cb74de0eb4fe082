import Foundation
import HealthModel
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP forwarder to PostgreSQL that a test can cut (every connection dropped, nothing listening: the
/// database "went away") and restore on the same port: a database restart without stopping the shared cluster.
final class CuttableProxy: Sendable {
    private let upstreamPort: UInt16
    private let state = Mutex<(listener: Int32, port: UInt16, sockets: Set<Int32>)>((-1, 0, []))
    /// Threads still using a socket: sockets are closed only once none does, so that no number is reused under them.
    private let busy = Atomic<Int>(0)

    var port: Int { Int(state.withLock { $0.port }) }

    init(upstreamPort: Int) throws {
        self.upstreamPort = UInt16(upstreamPort)
        try open(port: 0)
    }

    /// Listens again on the same port and forwards new connections.
    func restore() throws { try open(port: state.withLock { $0.port }) }

    /// Stops listening and drops every forwarded connection: shuts every socket down, waits for the threads using
    /// them to leave, then closes them.
    func cut() {
        let sockets = state.withLock { state -> [Int32] in
            defer { state.listener = -1; state.sockets = [] }
            return [state.listener] + Array(state.sockets)
        }
        for fd in sockets where fd >= 0 { shutdown(fd, Int32(SHUT_RDWR)) }
        let deadline = Date().addingTimeInterval(2)
        while busy.load(ordering: .sequentiallyConsistent) > 0, Date() < deadline { usleep(10_000) }
        for fd in sockets where fd >= 0 { Glibc.close(fd) }
    }

    private func open(port: UInt16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HealthError(.internalError, "no socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { Glibc.close(fd); throw HealthError(.internalError, "no listener") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let actual = UInt16(bigEndian: address.sin_port)
        state.withLock { $0.listener = fd; $0.port = actual }
        busy.add(1, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in
            acceptLoop(fd)
            busy.subtract(1, ordering: .sequentiallyConsistent)
        }
        thread.start()
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let live = state.withLock { state -> Bool in
                guard state.listener == listener, connected == 0 else { return false }
                state.sockets.insert(client)
                state.sockets.insert(upstream)
                return true
            }
            guard live else { Glibc.close(client); Glibc.close(upstream); continue }
            busy.add(2, ordering: .sequentiallyConsistent)
            Thread { [self] in
                Self.pump(from: client, to: upstream)
                busy.subtract(1, ordering: .sequentiallyConsistent)
            }.start()
            Thread { [self] in
                Self.pump(from: upstream, to: client)
                busy.subtract(1, ordering: .sequentiallyConsistent)
            }.start()
        }
    }

    private static func pump(from source: Int32, to target: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let read = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { break }
            var sent = 0
            while sent < read {
                let n = buffer.withUnsafeBytes { send(target, $0.baseAddress! + sent, read - sent, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return }
                sent += n
            }
        }
    }
}
