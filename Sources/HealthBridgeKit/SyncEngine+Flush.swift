import Foundation
import GRDB
import HealthModel

/// What one ``SyncEngine/flush()`` did.
///
/// ```swift
/// let report = await engine.flush()
/// if let next = report.nextAttemptAt { print("retrying at \(next)") }
/// ```
public struct FlushReport: Sendable, Hashable {
    /// Entries confirmed by the server in this flush.
    public var synced = 0
    /// Entries that stopped for good in this flush (denied, invalid, conflict).
    public var stopped = 0
    /// Entries that failed for a reason that may pass and will be retried.
    public var deferred = 0
    /// Entries still pending after the flush.
    public var pending = 0
    /// When the head of the queue is due (entries go in order), nil when none is pending.
    public var nextAttemptAt: Date?
}

extension SyncEngine {
    /// Sends the due entries in outbox order until none is due or the server cannot be reached (the rest then wait
    /// for their backoff). Quantities go in batches of ``RetryPolicy/batchSize``. Returns at once when
    /// another flush is running (that one picks up new entries).
    ///
    /// ```swift
    /// let report = await engine.flush()
    /// print("\(report.synced) synced, \(report.pending) waiting")
    /// ```
    @discardableResult
    public func flush() async -> FlushReport {
        var report = FlushReport()
        let mine = flushing.withLock { running in
            if running { return false }
            running = true
            return true
        }
        if mine {
            defer { flushing.withLock { $0 = false } }
            while !Task.isCancelled {
                guard let due = try? dueEntries(), let first = due.first else { break }
                let stop: Bool
                if first.operation.sample != nil {
                    stop = await sendSamples(Array(due.prefix { $0.operation.sample != nil }), &report)
                } else {
                    stop = await sendOne(first, &report)
                }
                if stop { break }
            }
        }
        if let (pending, next) = try? await database.read({ db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM healthbridge_outbox WHERE status = 'pending'") ?? 0,
             // Sending stays in order: the head of the queue says when anything can go next.
             try Double.fetchOne(db, sql: "SELECT next_attempt_at FROM healthbridge_outbox WHERE status = 'pending' ORDER BY id LIMIT 1"))
        }) {
            report.pending = pending
            report.nextAttemptAt = next.map(Date.init(timeIntervalSince1970:))
        }
        return report
    }

    /// Sends queued entries until the task is cancelled: flushes, then sleeps until the next entry is due or a new
    /// one is queued. Start it once, in a task of its own.
    ///
    /// ```swift
    /// let sync = Task { await engine.run() }
    /// // …
    /// sync.cancel()
    /// ```
    public func run() async {
        while !Task.isCancelled {
            let report = await flush()
            let wait = report.nextAttemptAt.map { $0.timeIntervalSinceNow } ?? 30
            await waitForWork(seconds: min(30, max(0.005, wait)))
        }
    }

    func waitForWork(seconds: Double) async {
        let stream = wakeStream
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                _ = await iterator.next()
            }
            group.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1_000))) }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// The pending entries at the head of the outbox that are due: sending stays in order, so nothing overtakes
    /// an entry that waits for its retry.
    func dueEntries() throws -> [OutboxEntry] {
        let now = Date().timeIntervalSince1970
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM healthbridge_outbox WHERE status = 'pending' ORDER BY id LIMIT ?",
                             arguments: [policy.batchSize])
        }
        .prefix { ($0["next_attempt_at"] as Double) <= now }
        .compactMap(Self.entry)
    }

    /// Sends quantities in one request. Returns true when the flush should stop (the server is not
    /// reachable).
    func sendSamples(_ entries: [OutboxEntry], _ report: inout FlushReport) async -> Bool {
        let writes = entries.compactMap { entry in
            entry.operation.sample.map { SampleWrite(type: $0.type, value: $0.value, unit: $0.unit, date: $0.date,
                                                     syncId: entry.syncId, metadata: $0.metadata) }
        }
        let outcome: WriteResult
        do {
            outcome = try await manager.save(writes)
        } catch {
            if entries.count > 1, !Self.keepsPending(error) {
                // One of them is refused: send them one by one to find which.
                for entry in entries {
                    if await sendSamples([entry], &report) { return true }
                }
                return false
            }
            return recordFailure(error, entries, &report)
        }
        return confirm(entries, alreadyStored: outcome.unchanged, &report)
    }

    func sendOne(_ entry: OutboxEntry, _ report: inout FlushReport) async -> Bool {
        var stored = 0
        do {
            switch entry.operation {
            case .food(let meal):
                let outcome = try await manager.writeNutrition(from: meal)
                stored = outcome.inserted + outcome.replaced == 0 ? 1 : 0
            case .deleteFood(let logId): try await manager.deleteNutrition(logId: logId)
            case .quantity: return await sendSamples([entry], &report)
            }
        } catch {
            return recordFailure(error, [entry], &report)
        }
        return confirm([entry], alreadyStored: stored, &report)
    }

    /// Marks entries the server confirmed; stops the flush if the outbox cannot be written (they are sent again
    /// later, which the sync ids make harmless).
    func confirm(_ entries: [OutboxEntry], alreadyStored: Int, _ report: inout FlushReport) -> Bool {
        do {
            try markSynced(entries)
            report.synced += entries.count
            counters.withLock {
                $0.confirmed += entries.count
                $0.alreadyStored += alreadyStored
            }
            return false
        } catch {
            logger.error("cannot mark synced entries in the outbox", metadata: ["error": "\(type(of: error))"])
            return true
        }
    }

    /// Not paired (yet) or another certificate: the person can fix it, so the entries wait.
    static func keepsPending(_ error: HealthBridgeError) -> Bool {
        if case .unavailable = error { return true }
        return error.isTransient
    }

    /// Records a failure: a transient one reschedules the entries with backoff (and stops the flush), a
    /// permanent one gives them their final status.
    func recordFailure(_ error: HealthBridgeError, _ entries: [OutboxEntry], _ report: inout FlushReport) -> Bool {
        let failure = error.failure
        let message = String(failure.message.prefix(500))
        let now = Date().timeIntervalSince1970
        let keep = Self.keepsPending(error)
        let status: OutboxStatus
        switch failure.code {
        case _ where keep: status = .pending
        case .notAuthorized?, .unauthenticated?: status = .denied
        case .conflict?: status = .conflict
        default: status = .invalid
        }
        do {
            try database.write { db in
                for entry in entries {
                    let attempts = entry.attempts + 1
                    let next = now + policy.delay(afterAttempts: attempts, retryAfter: failure.retryAfter)
                    try db.execute(sql: """
                        UPDATE healthbridge_outbox SET status = ?, attempts = ?, next_attempt_at = ?, last_error = ?,
                            last_code = ? WHERE id = ? AND status = 'pending'
                        """, arguments: [status.rawValue, attempts, next, message, failure.code?.rawValue, entry.id])
                }
            }
        } catch {
            logger.error("cannot record a failed sync in the outbox", metadata: ["error": "\(type(of: error))"])
        }
        if keep {
            report.deferred += entries.count
            logger.info("sync deferred", metadata: ["entries": "\(entries.count)", "code": "\(failure.code?.rawValue ?? "no answer")"])
        } else {
            report.stopped += entries.count
            logger.warning("sync refused", metadata: ["entries": "\(entries.count)", "status": "\(status.rawValue)",
                                                      "code": "\(failure.code?.rawValue ?? "")"])
        }
        return keep
    }

    func markSynced(_ entries: [OutboxEntry]) throws {
        let now = Date().timeIntervalSince1970
        try database.write { db in
            for entry in entries {
                try db.execute(sql: """
                    UPDATE healthbridge_outbox SET status = 'synced', synced_at = ?, attempts = attempts + 1,
                        last_error = NULL, last_code = NULL WHERE id = ?
                    """, arguments: [now, entry.id])
            }
        }
    }
}
