import Foundation

/// Encodes and decodes `[String: String]` metadata as a JSON object, fast and with sorted keys (stable output).
enum MetadataCoding {
    static func encode(_ metadata: [String: String]) -> String? {
        if metadata.isEmpty { return nil }
        var out = "{"
        var first = true
        for key in metadata.keys.sorted() {
            if !first { out += "," }
            first = false
            appendQuoted(key, to: &out)
            out += ":"
            appendQuoted(metadata[key] ?? "", to: &out)
        }
        out += "}"
        return out
    }

    /// Encodes into a reusable byte buffer (no intermediate Strings): the import loop's path.
    static func encode(_ metadata: [String: String], into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
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

    static func appendQuoted(_ string: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\\")); buffer.append(byte)
            case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hex[Int(byte >> 4)], hex[Int(byte & 0xf)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    static func decode(_ json: String?) -> [String: String] {
        guard let json, let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        var result: [String: String] = [:]
        for (key, value) in object {
            result[key] = value as? String ?? "\(value)"
        }
        return result
    }

    static func appendQuoted(_ string: String, to out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
