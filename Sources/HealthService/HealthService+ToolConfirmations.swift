import Foundation
import HealthAccess
import HealthModel
import HealthStore

/// Confirmations of destructive tool calls (MCP 2026-07-28 `input_required`), kept in the store so that every app
/// server on one database accepts a confirmation another one issued (two servers behind a load balancer).
///
/// A question is a setting `mcp_confirmation:<sha256 of the token>` holding the SHA-256 of what it is bound to (the
/// tool, its arguments and the principal: never a health value, never the token) and its expiry. Redemption is one
/// ``HealthStore/updateSetting(_:_:)`` transaction that marks the question used with a nonce of its own: only the
/// caller whose nonce is there afterwards wins, so two servers redeeming the same token at once confirm once. The
/// setting is then removed; expired and used questions are swept when a new one is issued. ``StoreCopier`` does not
/// copy these settings.
///
/// ```swift
/// let token = try await service.issueToolConfirmation(binding: "delete_entries|{\"log_id\":\"w-1\"}|mcp:default")
/// let confirmed = try await otherServersService.redeemToolConfirmation(token, binding: sameBinding)   // true once
/// ```
extension HealthService {
    /// The settings' key prefix of pending tool confirmations.
    public static let toolConfirmationSettingPrefix = "mcp_confirmation:"
    /// How long a question stays answerable by default (10 minutes).
    public static let toolConfirmationLifetime: TimeInterval = 600
    /// The most questions kept at once; beyond, the ones closest to expiry are dropped.
    public static let toolConfirmationCapacity = 1024

    struct StoredToolConfirmation: Codable {
        /// Hex SHA-256 of the binding.
        var binding: String
        /// Seconds since 1970.
        var expires: Double
        /// The nonce of the redemption that won, once used.
        var redeemed: String?
    }

    /// A new single-use question bound to `binding` (any text naming the tool, its arguments and the principal),
    /// valid `lifetime` seconds (1 s to 1 day): its token, 48 hex digits, to hand to the client as `requestState`.
    public func issueToolConfirmation(binding: String, lifetime: TimeInterval = toolConfirmationLifetime) async throws -> String {
        guard lifetime >= 1, lifetime <= 86_400 else {
            throw HealthError(.invalidArgument, "a confirmation lives between 1 second and 1 day", argument: "lifetime")
        }
        try await sweepToolConfirmations(keeping: Self.toolConfirmationCapacity - 1)
        let token = Self.randomHex(bytes: 24)
        let stored = StoredToolConfirmation(binding: Self.digest(binding), expires: clock().addingTimeInterval(lifetime).timeIntervalSince1970)
        let text = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        try await store.setSetting(Self.toolConfirmationKey(token), text)
        return token
    }

    /// True, once across every server on the store, when `token` was issued for `binding` and has not expired. A token
    /// presented with another binding stays pending (it is not the caller's to spend); an expired one is removed.
    public func redeemToolConfirmation(_ token: String, binding: String) async throws -> Bool {
        guard token.utf8.count == 48, token.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return false
        }
        let key = Self.toolConfirmationKey(token)
        let nonce = Self.randomHex(bytes: 16)
        let expected = Self.digest(binding)
        let now = clock().timeIntervalSince1970
        let updated = try await store.updateSetting(key) { text in
            guard let text, var stored = try? JSONDecoder().decode(StoredToolConfirmation.self, from: Data(text.utf8)) else {
                return nil   // absent, or unreadable: nothing to confirm (an unreadable one is dropped)
            }
            guard stored.redeemed == nil, stored.binding == expected else { return text }
            guard stored.expires > now else { return nil }
            stored.redeemed = nonce
            return String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        }
        guard let updated, let stored = try? JSONDecoder().decode(StoredToolConfirmation.self, from: Data(updated.utf8)),
              stored.redeemed == nonce else {
            return false
        }
        // Used: remove it (a failure here leaves it marked used, which no one can redeem again; the sweep removes it).
        _ = try? await store.updateSetting(key) { text in text == updated ? nil : text }
        return true
    }

    /// Removes expired and used questions, then the ones closest to expiry beyond `keeping`.
    func sweepToolConfirmations(keeping: Int) async throws {
        let now = clock().timeIntervalSince1970
        var live: [(key: String, expires: Double)] = []
        for (key, text) in try await store.settings(prefix: Self.toolConfirmationSettingPrefix) {
            if let stored = try? JSONDecoder().decode(StoredToolConfirmation.self, from: Data(text.utf8)),
               stored.redeemed == nil, stored.expires > now {
                live.append((key, stored.expires))
                continue
            }
            try await store.updateSetting(key) { current in current == text ? nil : current }
        }
        guard live.count > keeping else { return }
        for entry in live.sorted(by: { $0.expires < $1.expires }).prefix(live.count - max(keeping, 0)) {
            try await store.setSetting(entry.key, nil)
        }
    }

    static func toolConfirmationKey(_ token: String) -> String {
        toolConfirmationSettingPrefix + digest("healthbridge.tool-confirmation:" + token)
    }

    static func digest(_ text: String) -> String {
        AccessStore.tokenHash(text).map { String(format: "%02x", $0) }.joined()
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
