import Foundation

/// The one rule for "only this machine can reach it", shared by every listener and client: `localhost`, a dotted quad
/// in 127.0.0.0/8, `::1` in any spelling, and an IPv4-mapped `::ffff:127.x.y.z`; brackets (`[::1]`) are accepted.
/// Names that merely start like one (`127.evil.example`, `localhost.example`) are not loopback, nor is `127.1`.
///
/// ```swift
/// Loopback.isLoopback("127.0.0.1")        // true
/// Loopback.isLoopback("[::1]")            // true
/// Loopback.isLoopback("127.evil.example") // false
/// ```
public enum Loopback {
    /// True for a host name or address only this machine can reach.
    public static func isLoopback(_ host: String) -> Bool {
        var name = host.trimmingCharacters(in: .whitespaces).lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" { return true }
        return isLoopbackAddress(name)
    }

    /// True for an address literal (no names) in 127.0.0.0/8, `::1`, or `::ffff:127.x.y.z`.
    public static func isLoopbackAddress(_ address: String) -> Bool {
        addressBytes(address).map(isLoopback(addressBytes:)) ?? false
    }

    /// True for a dotted quad in 127.0.0.0/8: four decimal parts of at most three digits, each 0…255.
    public static func isIPv4Loopback(_ address: String) -> Bool {
        ipv4Bytes(address).map(isLoopback(addressBytes:)) ?? false
    }

    /// The rule on raw address bytes (4 for IPv4, 16 for IPv6, as a socket gives them): 127.0.0.0/8, `::1`, and an
    /// IPv4-mapped `::ffff:127.x.y.z`.
    ///
    /// ```swift
    /// Loopback.isLoopback(addressBytes: [127, 0, 0, 1])   // true
    /// ```
    public static func isLoopback(addressBytes bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4:
            return bytes[0] == 127
        case 16:
            if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return true }
            // ::ffff:127.0.0.1 (an IPv4-mapped address) is 127.0.0.1.
            return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        default:
            return false
        }
    }

    /// The bytes of an IPv4 or IPv6 address literal (4 or 16), nil when `text` is not one.
    public static func addressBytes(_ text: String) -> [UInt8]? {
        let text = text.lowercased()
        if let bytes = ipv4Bytes(text) { return bytes }
        guard text.contains(":"), let groups = ipv6Groups(text) else { return nil }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    static func ipv4Bytes(_ text: some StringProtocol) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), let byte = UInt8(part) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// The eight 16-bit groups of an IPv6 literal (`::` expanded, a trailing dotted quad as two groups); nil when it
    /// is not one. A zone (`%lo0`) is not accepted.
    static func ipv6Groups(_ text: String) -> [UInt16]? {
        var head = text
        var tail: [UInt16] = []
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard let bytes = ipv4Bytes(text[text.index(after: lastColon)...]) else { return nil }
            tail = [UInt16(bytes[0]) << 8 | UInt16(bytes[1]), UInt16(bytes[2]) << 8 | UInt16(bytes[3])]
            head = String(text[...lastColon])
            // "::ffff:" keeps its colon for the split below unless it ends in "::".
            if !head.hasSuffix("::") { head.removeLast() }
        }
        func parse(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var groups: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                groups.append(value)
            }
            return groups
        }
        let halves = head.components(separatedBy: "::")
        let want = 8 - tail.count
        switch halves.count {
        case 1:
            guard let groups = parse(Substring(halves[0])), groups.count == want else { return nil }
            return groups + tail
        case 2:
            guard let left = parse(Substring(halves[0])), let right = parse(Substring(halves[1])),
                  left.count + right.count < want else { return nil }
            return left + Array(repeating: 0, count: want - left.count - right.count) + right + tail
        default:
            return nil
        }
    }
}
