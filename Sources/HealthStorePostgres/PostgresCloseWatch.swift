import PostgresNIO
import Synchronization

/// Answers a call whose pooled connection closes under it (PostgreSQL shut down or restarted, the network cut).
///
/// A query sent on a connection as PostgreSQL shuts down can be left waiting for good: the connection closes but the
/// query's answer never comes. ``PostgresHealthStore/withConnection(_:)`` runs each call's body inside
/// ``during(_:onClose:_:)``, so the caller is answered `.storeUnavailable` the moment the connection closes instead.
/// One close callback is registered per connection (not per call, which would pile callbacks on a connection that
/// lives for days); it runs whatever call is on the connection then.
///
/// ```swift
/// try await watch.during(connection, onClose: { abort() }) { try await body(connection) }
/// ```
final class PostgresCloseWatch: Sendable {
    /// The call on each open connection the watch has seen: its close action, `nil` between calls.
    private let calls = Mutex<[ObjectIdentifier: (@Sendable () -> Void)?]>([:])

    /// Runs `body` while `onClose` is what happens should `connection` close.
    func during<T>(_ connection: PostgresConnection, onClose: @escaping @Sendable () -> Void,
                   _ body: () async throws -> T) async rethrows -> T {
        let key = ObjectIdentifier(connection)
        let firstCall = calls.withLock { calls -> Bool in
            let first = calls[key] == nil
            calls[key] = .some(onClose)
            return first
        }
        if firstCall {
            connection.closeFuture.whenComplete { [weak self] _ in
                let action = self?.calls.withLock { $0.removeValue(forKey: key) }
                (action ?? nil)?()
            }
        }
        defer {
            calls.withLock { calls in
                if calls[key] != nil { calls[key] = .some(nil) }
            }
        }
        return try await body()
    }

    /// The connections being watched (tests).
    var count: Int { calls.withLock { $0.count } }
}

/// What a call does when its connection closes, set once the caller waits for it; a close before that runs it as
/// soon as it is set.
final class CloseAction: Sendable {
    private let state = Mutex<(fired: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    func set(_ action: @escaping @Sendable () -> Void) {
        let fire = state.withLock { state -> Bool in
            state.action = action
            return state.fired
        }
        if fire { action() }
    }

    func fire() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.fired = true
            return state.action
        }
        action?()
    }
}
