import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Drops slow or abusive HTTP/1 connections. Sits after the HTTP decoder (Hummingbird's `additionalChannelHandlers`):
///
/// - a request must arrive completely (head to end) within `requestTimeout` of its head: slow-drip bodies are cut;
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

    let requestTimeout: TimeAmount
    let responseTimeout: TimeAmount
    /// A path whose requests may take longer to arrive (the Health Auto Export receiver's bodies reach 64 MB).
    let longRequest: (path: String, timeout: TimeAmount)?
    private var requestTimer: Scheduled<Void>?
    private var responseTimer: Scheduled<Void>?
    private var closeAfterResponse = false

    init(requestTimeout: TimeAmount, responseTimeout: TimeAmount, longRequest: (path: String, timeout: TimeAmount)? = nil) {
        self.requestTimeout = requestTimeout
        self.responseTimeout = responseTimeout
        self.longRequest = longRequest
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestTimer?.cancel()
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            var timeout = requestTimeout
            if let longRequest, head.path?.hasPrefix(longRequest.path) == true { timeout = max(timeout, longRequest.timeout) }
            requestTimer = context.eventLoop.scheduleTask(in: timeout) {
                loopBound.value.close(promise: nil)
            }
        case .end:
            requestTimer?.cancel()
            requestTimer = nil
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
