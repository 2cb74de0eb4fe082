import Foundation
import HealthModel

/// The scope an MCP client asks for in OAuth, per type and direction.
///
/// `health:read:<type>` and `health:write:<type>` ask for one type (any spelling the registry accepts, resolved to its
/// short identifier); a plain `health:read` or `health:write` asks for "whatever the person chooses" in that
/// direction; other tokens (`offline_access`, …) are kept and mean nothing here.
///
/// ```swift
/// let scope = try OAuthScope(parsing: "health:read:stepCount health:write:dietaryWater offline_access")
/// scope.read    // ["stepCount"]
/// scope.write   // ["dietaryWater"]
/// OAuthScope.granted(read: ["stepCount"], write: [])   // "health:read:stepCount"
/// ```
public struct OAuthScope: Sendable, Equatable {
    /// Types asked for reading, short identifiers, in the order asked.
    public var read: [String] = []
    /// Types asked for writing.
    public var write: [String] = []
    /// `health:read` without a type: the person picks the types to read.
    public var chooseRead = false
    /// `health:write` without a type: the person picks the types to write.
    public var chooseWrite = false
    /// Tokens that are not `health:…` (kept, ignored).
    public var other: [String] = []

    /// The scope tokens this server knows, for the metadata's `scopes_supported`.
    public static let supported = ["health:read", "health:write"]

    public init() {}

    /// Reads a space-separated scope. An unknown type or direction is `HEALTH_INVALID_ARGUMENT` (`invalid_scope`).
    public init(parsing text: String) throws(HealthError) {
        guard text.utf8.count <= 8192 else {
            throw HealthError(.invalidArgument, "the scope is longer than 8192 bytes", argument: "scope")
        }
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
            let parts = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.first == "health" else {
                if !other.contains(token) { other.append(token) }
                continue
            }
            guard parts.count >= 2, parts[1] == "read" || parts[1] == "write" else {
                throw HealthError(.invalidArgument, "unknown scope '\(token)'; write health:read, health:write, health:read:TYPE or health:write:TYPE",
                                  argument: "scope")
            }
            let isRead = parts[1] == "read"
            guard parts.count == 3, !parts[2].isEmpty else {
                if isRead { chooseRead = true } else { chooseWrite = true }
                continue
            }
            guard let type = try HealthService.grantTypes([parts[2]]).first, type != "*" else { continue }
            if isRead {
                if !read.contains(type) { read.append(type) }
            } else {
                if !write.contains(type) { write.append(type) }
            }
        }
    }

    /// Whether nothing about health was asked for.
    public var isEmpty: Bool { read.isEmpty && write.isEmpty && !chooseRead && !chooseWrite }

    /// The scope text of what was granted: one token per type and direction.
    public static func granted(read: [String], write: [String]) -> String {
        (read.map { "health:read:\($0)" } + write.map { "health:write:\($0)" }).joined(separator: " ")
    }

    /// Every type a person may be offered on the consent page (the registry's sample types and the extra grant
    /// types), sorted.
    public static var offerableTypes: [String] {
        Set(SampleTypeRegistry.all.map(\.identifier)).union(HealthService.extraGrantTypes).sorted()
    }
}
