import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Drops slow or abusive HTTP/1 connections. Sits after the HTTP decoder (Hummingbird's `additionalChannelHandlers`):
///
/// - a request must arrive completely (head to end) within `requestTimeout` of its head: slow-drip bodies are cut;
/// - a request under `longRequest`'s path gets that path's longer deadline (from its head) only once the router has
///   authenticated it and said so with ``LongRequestGranted`` (a user outbound event, sent before the body is read):
///   naming the path is not enough, so an unauthenticated drip is cut at `requestTimeout` like any other;
/// - a response must be taken by the client within `responseTimeout`: a peer that stops reading is dropped;
/// - after a response carrying `Connection: close` the connection closes at once.
///
/// An answer sent before its request body was read (413) leaves the rest of the body to be drained, which the
/// request deadline bounds; closing at once would make the kernel reset the connection and could lose the answer.
///
/// Waiting for a request head (TLS handshake, headers, keep-alive idle) is bounded by Hummingbird's `idleTimeout`,
/// which only counts complete HTTP parts, so slowly dripped header bytes do not keep a connection alive either.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Sent by the router (`channel.triggerUserOutboundEvent`) once the request in progress has authenticated for
    /// the long path: its deadline becomes the long one, counted from its head. Ignored when no request is in
    /// progress or the request is not for the long path. (Pipelined behind an authenticated push, a request whose
    /// head arrived before the push's grant could receive it; that needs a valid token, so it is no wider than one.)
    ///
    /// ```swift
    /// try? await context.channel.triggerUserOutboundEvent(ConnectionGuard.LongRequestGranted()).get()
    /// ```
    struct LongRequestGranted: Sendable {}

    let requestTimeout: TimeAmount
    let responseTimeout: TimeAmount
    /// A path whose authenticated requests may take longer to arrive (the Health Auto Export receiver's bodies reach
    /// 64 MB); granted per request by ``LongRequestGranted``.
    let longRequest: (path: String, timeout: TimeAmount)?
    private var requestTimer: Scheduled<Void>?
    private var responseTimer: Scheduled<Void>?
    private var closeAfterResponse = false
    /// When the request in progress started and whether it is under the long path; nil between requests.
    private var current: (started: NIODeadline, longPath: Bool)?

    init(requestTimeout: TimeAmount, responseTimeout: TimeAmount, longRequest: (path: String, timeout: TimeAmount)? = nil) {
        self.requestTimeout = requestTimeout
        self.responseTimeout = responseTimeout
        self.longRequest = longRequest
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let started = context.eventLoop.now
            let path = head.path.map { $0.prefix { $0 != "?" } }
            // The long path, or any other receiver's (Health Connect's beside Health Auto Export's).
            current = (started, longRequest.map { long in
                path == long.path[...] || PairedAPIServer.ingestPaths.contains { path == $0[...] }
            } ?? false)
            scheduleRequestDeadline(context: context, at: started + requestTimeout)
        case .end:
            requestTimer?.cancel()
            requestTimer = nil
            current = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
            responseTimer?.cancel()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            responseTimer = context.eventLoop.scheduleTask(in: responseTimeout) {
                loopBound.value.close(promise: nil)
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            let written = promise ?? context.eventLoop.makePromise()
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in
                let (handler, context) = loopBound.value
                handler.responseTimer?.cancel()
                handler.responseTimer = nil
                if handler.closeAfterResponse {
                    handler.requestTimer?.cancel()
                    context.close(promise: nil)
                }
            }
            context.write(data, promise: written)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is LongRequestGranted else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if let current, current.longPath, let longRequest, longRequest.timeout > requestTimeout {
            scheduleRequestDeadline(context: context, at: current.started + longRequest.timeout)
        }
        promise?.succeed(())
    }

    /// Closes the connection at `deadline` unless the request has arrived by then; replaces any earlier deadline.
    private func scheduleRequestDeadline(context: ChannelHandlerContext, at deadline: NIODeadline) {
        requestTimer?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        requestTimer = context.eventLoop.scheduleTask(deadline: deadline) {
            loopBound.value.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        responseTimer?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        requestTimer?.cancel()
        responseTimer?.cancel()
        context.fireChannelInactive()
    }
}
