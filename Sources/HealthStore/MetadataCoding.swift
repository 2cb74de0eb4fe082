import Foundation

/// Encodes and decodes `[String: String]` metadata as the store keeps it: a JSON object with sorted keys (stable
/// output), written byte by byte without intermediate strings.
///
/// ```swift
/// MetadataCoding.encode(["HKWasUserEntered": "1"])  // {"HKWasUserEntered":"1"}
/// ```
public enum MetadataCoding {
    /// The JSON object, or nil for empty metadata (stored as NULL).
    public static func encode(_ metadata: [String: String]) -> String? {
        if metadata.isEmpty { return nil }
        var buffer: [UInt8] = []
        encode(metadata, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends the JSON object to `buffer`.
    public static func encode(_ metadata: [String: String], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        if metadata.count == 1, let (key, value) = metadata.first {
            appendQuoted(key, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            appendQuoted(value, to: &buffer)
        } else {
            for (index, key) in metadata.keys.sorted().enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                appendQuoted(key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                appendQuoted(metadata[key] ?? "", to: &buffer)
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Appends `string` as a JSON string literal (quoted; `"`, `\` and control characters escaped).
    public static func appendQuoted(_ string: String, to buffer: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0), to: &buffer) }
    }

    /// Appends UTF-8 bytes as a JSON string literal (quoted; `"`, `\` and control characters escaped).
    public static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var plainStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if plainStart < index { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[plainStart..<index])) }
            plainStart = index + 1
            if byte >= 0x20 {
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            } else {
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]])
            }
        }
        if plainStart < bytes.count { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[plainStart...])) }
        buffer.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    public static func decode(_ json: String?) -> [String: String] {
        guard let json, let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in object {
            result[key] = value as? String ?? "\(value)"
        }
        return result
    }
}
