import Foundation

/// A secret of 32 random bytes from the system's generator, base64url without padding: bearer tokens, console keys
/// and sessions, CSRF values.
///
/// ```swift
/// let token = RandomToken.make()   // 43 characters of [A-Za-z0-9_-]
/// ```
public enum RandomToken {
    /// `byteCount` random bytes (32 unless told) as base64url (RFC 4648 §5), without padding.
    public static func make(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<max(1, byteCount)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
