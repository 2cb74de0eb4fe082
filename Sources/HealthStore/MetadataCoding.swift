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
