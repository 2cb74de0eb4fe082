import NIOCore
import NIOHTTPTypes
import Synchronization

/// Counts the open connections of each peer address so that one host cannot take every connection of the server:
/// ``acquire(_:)`` refuses a connection beyond `perAddress` open ones from the same address.
public final class ConnectionLimiter: Sendable {
    public let perAddress: Int
    private let open = Mutex<[String: Int]>([:])

    public init(perAddress: Int) {
        self.perAddress = max(1, perAddress)
    }

    /// Takes a slot for `address`; false when the address already holds `perAddress` connections.
    public func acquire(_ address: String) -> Bool {
        open.withLock { open in
            let count = open[address, default: 0]
            guard count < perAddress else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Gives back a slot taken by ``acquire(_:)``.
    public func release(_ address: String) {
        open.withLock { open in
            guard let count = open[address] else { return }
            if count <= 1 { open.removeValue(forKey: address) } else { open[address] = count - 1 }
        }
    }

    /// Open connections of `address` (tests, diagnostics).
    public func count(_ address: String) -> Int { open.withLock { $0[address, default: 0] } }
}

/// The first handler of every export API connection (placed with Hummingbird's `additionalChannelHandlers`, which
/// are in the pipeline before the channel becomes active):
///
/// - takes a ``ConnectionLimiter`` slot for the peer address when the connection opens, and closes the connection at
///   once (before any TLS work is answered) when the address already holds its share;
/// - closes a connection that has not delivered a complete request head within `handshakeTimeout` of opening: the TLS
///   handshake and the first request head together. Later waits are bounded by the idle timeout.
final class ConnectionAdmission: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let limiter: ConnectionLimiter
    let handshakeTimeout: TimeAmount
    private var address: String?
    private var admitted = false
    private var handshakeTimer: Scheduled<Void>?

    init(limiter: ConnectionLimiter, handshakeTimeout: TimeAmount) {
        self.limiter = limiter
        self.handshakeTimeout = handshakeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        context.fireChannelActive()
    }

    private func admit(context: ChannelHandlerContext) {
        guard address == nil else { return }
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        address = peer
        guard limiter.acquire(peer) else {
            context.close(promise: nil)
            return
        }
        admitted = true
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        handshakeTimer = context.eventLoop.scheduleTask(in: handshakeTimeout) {
            loopBound.value.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data), let timer = handshakeTimer {
            timer.cancel()
            handshakeTimer = nil
        }
        context.fireChannelRead(data)
    }

    private func finish() {
        handshakeTimer?.cancel()
        handshakeTimer = nil
        if admitted, let address {
            admitted = false
            limiter.release(address)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }
}
