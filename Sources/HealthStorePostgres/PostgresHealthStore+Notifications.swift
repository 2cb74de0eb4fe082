import Foundation
import HealthModel
import HealthStore
import Logging
import PostgresNIO

/// Change-feed subscribers and the listener that hears every store's commits on the schema.
struct PostgresObserverTable: Sendable {
    var continuations: [UUID: AsyncStream<ChangeNotification>.Continuation] = [:]
    /// Anchors already announced (the store's own commits are announced twice: at once, and by `NOTIFY`).
    var announced = Set<Int64>()
    var announcedOrder: [Int64] = []
    /// The highest anchor announced or caught up to: where a reconnected listener catches up from.
    var highest: Int64 = -1
    var listener: Task<Void, Never>?
    var connection: PostgresConnection?

    /// Records an anchor; false when it was already announced.
    mutating func record(_ anchor: Int64) -> Bool {
        highest = max(highest, anchor)
        guard announced.insert(anchor).inserted else { return false }
        announcedOrder.append(anchor)
        if announcedOrder.count > 1_024 {
            let dropped = announcedOrder.prefix(512)
            announcedOrder.removeFirst(512)
            for anchor in dropped { announced.remove(anchor) }
        }
        return true
    }
}

extension PostgresHealthStore {
    /// Emits the changed types after every commit on the schema, from this store, another store object or another
    /// process: each write transaction sends `NOTIFY <schema>_changes`, and a dedicated connection `LISTEN`s while
    /// anyone subscribes. A listener that lost its connection reconnects by itself and announces what it missed.
    public func changeNotifications() -> AsyncStream<ChangeNotification> {
        let (stream, continuation) = AsyncStream<ChangeNotification>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let (task, connection) = self.observers.withLock { table -> (Task<Void, Never>?, PostgresConnection?) in
                table.continuations[id] = nil
                guard table.continuations.isEmpty else { return (nil, nil) }
                defer { table.listener = nil; table.connection = nil }
                return (table.listener, table.connection)
            }
            task?.cancel()
            if let connection { Task { try? await connection.close() } }
        }
        if closed.withLock({ $0 }) {
            continuation.finish()
            return stream
        }
        observers.withLock { table in
            table.continuations[id] = continuation
            if table.listener == nil {
                table.listener = Task { [weak self] in await self?.listenForCommits() }
            }
        }
        return stream
    }

    /// Tells every subscriber which types changed, once per anchor.
    func notify(types: Set<String>, anchor: Int64) {
        let targets = observers.withLock { table -> [AsyncStream<ChangeNotification>.Continuation] in
            guard table.record(anchor) else { return [] }
            return Array(table.continuations.values)
        }
        if types.isEmpty { return }
        let notification = ChangeNotification(types: types, anchor: anchor)
        for continuation in targets { continuation.yield(notification) }
    }

    /// Listens on `<schema>_changes` until cancelled, reconnecting with a growing pause (at most 2 s) after the
    /// connection drops. Each time its `LISTEN` takes effect (the first time too) it announces what was committed
    /// since the highest anchor the store knew (at its opening, its own commits, what it heard): a commit made while
    /// the listener was connecting, or away, is announced once, never lost. A commit made shortly before a
    /// subscription may be announced to it as well, which a subscriber treats as any change: it reads the feed.
    func listenForCommits() async {
        let channel = configuration.schema + "_changes"
        var pause = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                let connection = try await Self.connect(configuration, login: loginAsRole.isSet, logger: logger)
                let keep = observers.withLock { table -> Bool in
                    guard table.listener != nil else { return false }
                    table.connection = connection
                    return true
                }
                guard keep, !Task.isCancelled else {
                    try? await connection.close()
                    return
                }
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: channel) { notifications in
                    await self.catchUp()
                    pause = .milliseconds(100)
                    for try await notification in notifications {
                        await self.heard(notification.payload)
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("the change listener lost PostgreSQL; reconnecting", metadata: ["error": "\(type(of: error))"])
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(2))
        }
    }

    /// Announces one `NOTIFY` payload (`<anchor>:<types>`).
    func heard(_ payload: String) async {
        guard let colon = payload.firstIndex(of: ":"), let anchor = Int64(payload[..<colon]) else { return }
        let types = Set(payload[payload.index(after: colon)...].split(separator: ",").map(String.init))
        if types.isEmpty {
            await catchUp()
        } else {
            notify(types: types, anchor: anchor)
        }
    }

    /// Announces the types changed since the highest anchor announced (one notification).
    func catchUp() async {
        let since = observers.withLock { $0.highest }
        guard since >= 0, let (types, current) = try? await changedTypes(since: since), current > since else { return }
        notify(types: types, anchor: current)
    }
}
