import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to 127.0.0.1 for tests that must act below TLS and HTTP: hold a connection open without a
/// handshake, and see when the server closes it.
final class RawConnection {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    /// True when the server closed (or reset) the connection within `timeout`; false when it is still open.
    ///
    /// The wait is a blocking `poll(2)`, so it runs on a thread of its own: on the cooperative pool (two threads on a
    /// two-core machine) it would hold a thread the servers of concurrently running tests need to answer.
    func closedByPeer(within timeout: Duration) async -> Bool {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Self.waitForClose(fd, within: timeout)) }
        }
    }

    private static func waitForClose(_ fd: Int32, within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - ContinuousClock.now
            let ms = max(1, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, ms) > 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return true }  // EOF or reset
        }
        return false
    }
}
