import Crypto
import Foundation
import HealthAPI
import HealthSupport

/// Certificate fingerprints: the SHA-256 of the certificate's DER encoding, written as 64 lowercase hex digits
/// (`3f9a…`). Input is accepted in either common spelling — lowercase hex, or uppercase hex with colons
/// (`3F:9A:…`) as browsers and `openssl x509 -fingerprint -sha256` print it — and normalised to lowercase hex.
public enum CertificateFingerprint {
    public static func sha256(der: some DataProtocol) -> String {
        hex(SHA256.hash(data: der))
    }

    /// Lowercase hex of any byte sequence.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The normal form of a fingerprint a person typed or scanned, or nil when it is not a SHA-256 fingerprint.
    public static func normalize(_ text: String) -> String? {
        let stripped = text.trimmingCharacters(in: .whitespaces).lowercased().filter { $0 != ":" && $0 != " " }
        guard stripped.utf8.count == 64, stripped.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        return stripped
    }

    /// Uppercase hex with colons, for people comparing with other tools' output.
    public static func colonSeparated(_ fingerprint: String) -> String {
        var pairs = [String]()
        var current = ""
        for character in fingerprint.uppercased() {
            current.append(character)
            if current.count == 2 { pairs.append(current); current = "" }
        }
        return pairs.joined(separator: ":")
    }

    /// Constant-time comparison of two normalised fingerprints.
    public static func matches(_ a: String, _ b: String) -> Bool {
        ConstantTime.equals(a, b)
    }
}
