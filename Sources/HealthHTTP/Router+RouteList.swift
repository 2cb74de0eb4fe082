import Hummingbird

/// One route as a router holds it: the method and the full path, with a leading `/` (`GET /api/v1/status`).
public struct RouteEntry: Sendable, Hashable, CustomStringConvertible {
    public var method: String
    public var path: String
    public init(method: String, path: String) { self.method = method; self.path = path }
    public var description: String { "\(method) \(path)" }
}

extension Router {
    /// The routes registered so far, read from the router itself (never a list kept beside it by hand).
    ///
    /// ```swift
    /// Set(router.routeList.map(\.description)) == documentedPaths
    /// ```
    public var routeList: [RouteEntry] {
        routes.map { route in
            let path = route.path.description
            return RouteEntry(method: route.method.rawValue, path: path.hasPrefix("/") ? path : "/" + path)
        }
    }
}
