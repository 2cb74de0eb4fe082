/// The one reading of `Authorization: Bearer <token>` (RFC 6750): the scheme in any case, one or more spaces after it,
/// the token without surrounding blanks; nil for a missing header, another scheme, or a token that is empty, longer
/// than `maxLength` bytes or holds anything but visible ASCII.
///
/// ```swift
/// BearerToken.parse("bearer   abc123")  // "abc123"
/// BearerToken.parse("Basic dXNlcg==")   // nil
/// BearerToken.parse("Bearer")           // nil
/// ```
public enum BearerToken {
    /// The longest token accepted by default (bytes).
    public static let defaultMaxLength = 4096

    /// The token of an `Authorization` header value, or nil.
    public static func parse(_ header: String?, maxLength: Int = defaultMaxLength) -> String? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count,
              zip(bytes, scheme).allSatisfy({ lowercased($0) == $1 }),
              isBlank(bytes[scheme.count]) else { return nil }
        var start = scheme.count
        while start < bytes.count, isBlank(bytes[start]) { start += 1 }
        var end = bytes.count
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        let token = bytes[start..<end]
        guard !token.isEmpty, token.count <= maxLength, token.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: token, as: UTF8.self)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
