import Foundation

/// JSON written straight into a `String`, for the documents and metadata an import produces in bulk (HRV beat lists,
/// electrocardiogram samples): what `JSONSerialization` would write, without boxing every value.
///
/// ```swift
/// var text = "["
/// JSONText.appendNumber(62, to: &text)
/// text += ","
/// JSONText.appendString("6:14:48.94 PM", to: &text)
/// text += "]"   // [62,"6:14:48.94 PM"]
/// ```
enum JSONText {
    /// A string literal, escaped.
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// A number: whole values without a fraction (`62`), others in their shortest exact form; `null` when not finite
    /// (JSON has no NaN or infinity).
    static func appendNumber(_ value: Double, to text: inout String) {
        guard value.isFinite else {
            text += "null"
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            text += String(Int64(value))
        } else {
            text += value.description
        }
    }
}
