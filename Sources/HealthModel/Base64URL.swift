import Foundation

/// Base64url without padding (RFC 4648 §5): the one encoding of opaque cursors, tokens and keys on every wire.
///
/// ```swift
/// let text = Base64URL.encode(Data([0xFB, 0xFF]))   // "-_8"
/// let data = Base64URL.decode(text)                 // [0xFB, 0xFF]
/// ```
public enum Base64URL {
    /// Encodes bytes: `+` → `-`, `/` → `_`, no `=` padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url with or without padding; nil for anything else.
    public static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F || byte == 0x3D
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
