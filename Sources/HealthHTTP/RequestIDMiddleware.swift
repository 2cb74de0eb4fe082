import HTTPTypes
import Hummingbird

/// A request context that carries the id the edge gave the request (for the audit log, logs and error bodies).
public protocol RequestIdentifyingContext: RequestContext {
    var requestId: String { get set }
}

/// Gives every request a fresh id (24 lowercase hex digits, 96 random bits), puts it in the context before anything
/// else runs, and returns it in a response header (`X-Request-Id`) together with `responseHeaders` (e.g.
/// `Cache-Control: no-store`) on every answer, refusals included.
///
/// ```swift
/// router.add(middleware: RequestIDMiddleware<MyContext>(responseHeaders: [.cacheControl: "no-store"]))
/// ```
public struct RequestIDMiddleware<Context: RequestIdentifyingContext>: RouterMiddleware {
    public let header: HTTPField.Name
    public let responseHeaders: HTTPFields

    public init(header: HTTPField.Name = .xRequestID, responseHeaders: HTTPFields = [:]) {
        self.header = header
        self.responseHeaders = responseHeaders
    }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id = Self.newRequestID()
        context.requestId = id
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[header] = id
        for field in responseHeaders { response.headers[field.name] = field.value }
        return response
    }

    /// 96 random bits as 24 lowercase hex digits.
    public static func newRequestID() -> String {
        var generator = SystemRandomNumberGenerator()
        let a = generator.next() as UInt64, b = generator.next() as UInt32
        let bytes = withUnsafeBytes(of: a.bigEndian) { Array($0) } + withUnsafeBytes(of: b.bigEndian) { Array($0) }
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension HTTPField.Name {
    /// `X-Request-Id`.
    public static let xRequestID = HTTPField.Name("X-Request-Id")!
}
