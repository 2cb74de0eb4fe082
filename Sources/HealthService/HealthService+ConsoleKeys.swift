import Foundation
import HealthAccess
import HealthModel

/// The web console's one-time login keys: issued to the owner (`healthbridge console`, `serve`), redeemed once by the
/// browser that opens the link.
extension HealthService {
    /// Issues a one-time console login key valid for `lifetime` seconds (owner only).
    ///
    /// ```swift
    /// print("\(origin)/login?key=\(try await service.issueConsoleKey())")
    /// ```
    public func issueConsoleKey(lifetime: TimeInterval = AccessStore.consoleKeyLifetime) async throws -> String {
        try ownerAccess("issue console login keys").issueConsoleKey(lifetime: lifetime)
    }

    /// Redeems a console login key: true once for a key issued and not expired. Any principal may ask: the key is
    /// the credential.
    public func redeemConsoleKey(_ key: String) async throws -> Bool {
        try await accessStore().redeemConsoleKey(key)
    }
}
