/// Which directions of access a principal has, per type.
///
/// ```swift
/// var grants = AccessGrants(read: .types(["stepCount"]), write: .none)
/// grants.read.allows("stepCount")   // true
/// ```
public struct AccessGrants: Sendable, Hashable, Codable {
    public var read: TypeGrant
    public var write: TypeGrant

    public init(read: TypeGrant, write: TypeGrant) {
        self.read = read
        self.write = write
    }

    public subscript(direction: AccessDirection) -> TypeGrant {
        get { direction == .read ? read : write }
        set { if direction == .read { read = newValue } else { write = newValue } }
    }
}

/// Read or write.
public enum AccessDirection: String, Sendable, Hashable, Codable, CaseIterable {
    case read, write
}

/// A set of types: every type (`all`, less `except`), or the listed ones.
public struct TypeGrant: Sendable, Hashable, Codable {
    public var all: Bool
    /// The types granted when `all` is false (short identifiers).
    public var types: Set<String>
    /// The types withheld when `all` is true.
    public var except: Set<String>

    public init(all: Bool = false, types: Set<String> = [], except: Set<String> = []) {
        self.all = all
        self.types = all ? [] : types
        self.except = all ? except : []
    }

    public static let all = TypeGrant(all: true)
    public static let none = TypeGrant()
    public static func types(_ types: Set<String>) -> TypeGrant { TypeGrant(types: types) }

    public func allows(_ type: String) -> Bool { all ? !except.contains(type) : types.contains(type) }

    public var isEmpty: Bool { !all && types.isEmpty }

    /// Grants `type` (`*` for every type).
    public mutating func allow(_ type: String) {
        if type == "*" { self = .all; return }
        if all { except.remove(type) } else { types.insert(type) }
    }

    /// Withholds `type` (`*` for every type).
    public mutating func deny(_ type: String) {
        if type == "*" { self = .none; return }
        if all { except.insert(type) } else { types.remove(type) }
    }

    /// `all`, `all except a, b`, `a, b`, or `none`.
    public var summary: String {
        if all { return except.isEmpty ? "all" : "all except " + except.sorted().joined(separator: ", ") }
        return types.isEmpty ? "none" : types.sorted().joined(separator: ", ")
    }

    enum CodingKeys: String, CodingKey { case all, types, except }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(all: try container.decodeIfPresent(Bool.self, forKey: .all) ?? false,
                  types: try container.decodeIfPresent(Set<String>.self, forKey: .types) ?? [],
                  except: try container.decodeIfPresent(Set<String>.self, forKey: .except) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(all, forKey: .all)
        try container.encode(types.sorted(), forKey: .types)
        try container.encode(except.sorted(), forKey: .except)
    }
}
