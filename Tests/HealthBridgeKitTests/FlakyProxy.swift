import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of the server that drops connections at random. Half of the dropped
/// connections are cut as soon as the server starts answering — the request reached the server and was applied, the
/// answer is lost (the client sees the connection close) — and half before the request is forwarded.
final class FlakyProxy: Sendable {
    let port: Int
    let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex<(dropRate: Double, lostAnswers: Int, refused: Int, connections: Int)>((0, 0, 0, 0))

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var dropRate: Double {
        get { state.withLock { $0.dropRate } }
        set { state.withLock { $0.dropRate = newValue } }
    }

    /// (connections, answers lost after the server got the request, connections cut before it).
    var figures: (connections: Int, lostAnswers: Int, refused: Int) {
        state.withLock { ($0.connections, $0.lostAnswers, $0.refused) }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let (rate, _, _, _) = state.withLock { $0.connections += 1; return $0 }
            let roll = Double.random(in: 0..<1)
            let mode = roll < rate / 2 ? 2 : (roll < rate ? 1 : 0)
            Thread.detachNewThread { [self] in relay(client, mode: mode) }
        }
    }

    /// mode 0: relay; 1: cut when the answer starts; 2: cut at once.
    private func relay(_ client: Int32, mode: Int) {
        if mode == 2 {
            state.withLock { $0.refused += 1 }
            close(client)
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(upstreamPort).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(upstream)
            close(client)
            return
        }
        let requestSent = Atomic<Bool>(false)
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            Self.pump(from: client, to: upstream) { chunk in
                // ClientHello, then Finished (and the request): from the second chunk on, the request is on its way.
                if chunk >= 2 { requestSent.store(true, ordering: .sequentiallyConsistent) }
                return true
            }
            done.leave()
        }
        Self.pump(from: upstream, to: client) { [self] _ in
            guard mode == 1, requestSent.load(ordering: .sequentiallyConsistent) else { return true }
            // Hold the answer back, give the server time to commit, then cut: applied, answer lost.
            Thread.sleep(forTimeInterval: 0.15)
            state.withLock { $0.lostAnswers += 1 }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
            return false
        }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(upstream, Int32(SHUT_RDWR))
        done.wait()
        close(client)
        close(upstream)
    }

    /// Copies bytes until the source ends; `forward(chunkNumber)` false stops without forwarding the chunk.
    private static func pump(from source: Int32, to target: Int32, forward: (Int) -> Bool) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var chunk = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            chunk += 1
            guard forward(chunk) else { return }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(target, $0.baseAddress! + offset, count - offset) }
                if written <= 0 { return }
                offset += written
            }
        }
        shutdown(target, Int32(SHUT_WR))
    }
}
