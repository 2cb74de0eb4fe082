import Crypto
import HealthAPI
import Foundation
import Synchronization
import HealthModel
import HealthStore
import HealthSupport
import GRDB

/// The access state of a data directory, in `<home>/export.sqlite` (mode 0600, WAL), apart from the health store so
/// its migrations stay untouched: paired clients (token hashes only), one-time pairing codes (hashes only), the
/// sharing switch and shared types, ingest tokens, console login keys, and the audit log. Shared by `serve` and the
/// management commands (`pair-code`, `clients`, `sharing`, `audit`) running in other processes.
///
/// The service owns it (`HealthService.open(store:access:)`) and decides who may use it; adapters call the service.
/// The file name and the migration identifiers are those of the export server's state it was, so an existing file
/// opens and keeps working.
public final class AccessStore: Sendable {
    let pool: any DatabaseWriter
    /// The file, nil for an in-memory store (tests).
    public let url: URL?

    public static let fileName = "export.sqlite"
    /// Wrong codes from one address that lock that address out of pairing.
    public static let maxCodeFailures = 5

    /// The access store of a data directory, one per file in a process: SQLite's POSIX locks are per process, and a
    /// second handle on the same file (opened and closed beside a live connection) would drop them.
    ///
    /// ```swift
    /// let state = try AccessStore.open(home: home.directory)
    /// ```
    public static func open(home: URL) throws -> AccessStore {
        let path = home.appendingPathComponent(fileName).standardizedFileURL.path
        return try opened.withLock { table in
            if let state = table[path] { return state }
            let state = try AccessStore(home: home)
            table[path] = state
            return state
        }
    }

    static let opened = Mutex<[String: AccessStore]>([:])

    /// Opens the file (creating it 0600). Prefer ``open(home:)``: it shares one state per file in the process.
    public init(home: URL) throws {
        let url = home.appendingPathComponent(Self.fileName)
        self.url = url
        // Create the file 0600 before SQLite does (its -wal and -shm files copy the database's permissions); only when
        // it does not exist yet, never beside a live connection.
        if !FileManager.default.fileExists(atPath: url.path) {
            do {
                try PrivateFile.createIfMissing(url.path)
            } catch {
                throw AccessStoreError("cannot open \(url.path): \(error)")
            }
        }
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.label = "export-state"
        // Every commit is fsync'd: an audit entry written before an answer leaves survives a crash or power loss.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        do {
            let pool = try SharedDatabaseFile.openingWhileBusy { try DatabasePool(path: url.path, configuration: config) }
            try Self.migrator.migrateSharedFile(pool)
            self.pool = pool
        } catch {
            throw AccessStoreError("cannot open the access state \(url.path): \(error)")
        }
    }

    /// An access store in memory, for tests: the same schema, gone when the last reference goes.
    ///
    /// ```swift
    /// let service = try await HealthService.open(store: try SQLiteHealthStore(location: .inMemory), access: try AccessStore.inMemory())
    /// ```
    public static func inMemory() throws -> AccessStore { try AccessStore(queue: DatabaseQueue()) }

    init(queue: DatabaseQueue) throws {
        url = nil
        try Self.migrator.migrate(queue)
        pool = queue
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE client (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at REAL NOT NULL,
                    last_seen_at REAL,
                    revoked_at REAL
                );
                CREATE TABLE pair_code (
                    id INTEGER PRIMARY KEY,
                    code_hash BLOB NOT NULL UNIQUE,
                    created_at REAL NOT NULL,
                    expires_at REAL NOT NULL,
                    failures INTEGER NOT NULL DEFAULT 0,
                    state TEXT NOT NULL DEFAULT 'active'
                );
                CREATE TABLE audit (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at REAL NOT NULL,
                    event TEXT NOT NULL,
                    request_id TEXT,
                    client TEXT,
                    address TEXT,
                    method TEXT,
                    route TEXT,
                    status INTEGER,
                    decision TEXT,
                    detail TEXT
                );
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                """)
        }
        migrator.registerMigration("v2") { db in
            // Pruning by kind; wrong pairing codes counted per address.
            try db.execute(sql: """
                CREATE INDEX audit_event ON audit (event, id);
                CREATE TABLE pair_failure (
                    address TEXT PRIMARY KEY NOT NULL,
                    failures INTEGER NOT NULL,
                    last_at REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3") { db in
            // Clients paired as an app (HealthBridgeKit) act as `app:<app_id>`; NULL keeps `device:<id>`.
            try db.execute(sql: "ALTER TABLE client ADD COLUMN app_id TEXT")
        }
        migrator.registerMigration("v4") { db in
            // Push tokens of the Health Auto Export receiver: a name, the token's hash, never the token.
            try db.execute(sql: """
                CREATE TABLE ingest_token (
                    name TEXT PRIMARY KEY NOT NULL,
                    token_hash BLOB NOT NULL UNIQUE,
                    created_at REAL NOT NULL,
                    last_used_at REAL,
                    revoked_at REAL
                );
                """)
        }
        migrator.registerMigration("v5") { db in
            // A code issued for an app (`healthbridge pair-code --app ID`): the app id a client acts as comes from the
            // code the owner issued, never from what the client says (issue 21). NULL: a plain device code.
            try db.execute(sql: "ALTER TABLE pair_code ADD COLUMN app_id TEXT")
        }
        registerOAuthMigrations(&migrator)
        return migrator
    }

    // MARK: Secrets

    /// 256 random bits, base64url without padding (43 characters).
    public static func newToken() -> String { RandomToken.make() }

    public static func tokenHash(_ token: String) -> [UInt8] { Array(SHA256.hash(data: Data(token.utf8))) }

    /// The client id as audit entries show it: a hash, never the id itself.
    public static func clientHash(_ clientID: String) -> String {
        String(Self.hex(SHA256.hash(data: Data("healthbridge.client:\(clientID)".utf8))).prefix(16))
    }

    /// Lowercase hex of bytes.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int(truncatingIfNeeded: $0 >> 4)], digits[Int(truncatingIfNeeded: $0 & 0x0F)]] })
    }

    /// Pairing codes: 8 characters from an alphabet without look-alikes (≈ 40 bits), shown as `XXXX-XXXX`.
    static let codeAlphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    public static func normalizeCode(_ code: String) -> String {
        String(code.uppercased().filter { $0 != "-" && $0 != " " }.prefix(64))
    }

    static func codeHash(_ code: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(("healthbridge.pair:" + normalizeCode(code)).utf8)))
    }

    // MARK: Pairing codes

    /// Issues a one-time code valid for `lifetime`. Only its hash is stored. With `appId`, the code is issued for
    /// that app: the client redeeming it acts as `app:<appId>` (the owner confirmed that app by issuing the code);
    /// without, it pairs a device (`device:<clientId>`).
    ///
    /// ```swift
    /// let (code, expires) = try state.issuePairingCode(appId: "org.example.dietsync")
    /// ```
    public func issuePairingCode(lifetime: TimeInterval = 300, appId: String? = nil,
                                 now: Date = Date()) throws -> (code: String, expires: Date) {
        if let appId, !PairRequest.isValidAppId(appId) {
            throw HealthError(.invalidArgument, "an app id is 1 to 128 letters, digits, '.', '-' or '_'")
        }
        var generator = SystemRandomNumberGenerator()
        let raw = String((0..<8).map { _ in Self.codeAlphabet[Int.random(in: 0..<Self.codeAlphabet.count, using: &generator)] })
        let code = String(raw.prefix(4)) + "-" + String(raw.suffix(4))
        let expires = now.addingTimeInterval(lifetime)
        try pool.write { db in
            try db.execute(sql: "DELETE FROM pair_code WHERE expires_at < ?", arguments: [now.timeIntervalSince1970 - 86_400])
            // A new code gives every address a fresh budget of wrong codes.
            try db.execute(sql: "DELETE FROM pair_failure")
            try db.execute(sql: "INSERT INTO pair_code (code_hash, created_at, expires_at, app_id) VALUES (?, ?, ?, ?)",
                           arguments: [Data(Self.codeHash(String(code))), now.timeIntervalSince1970, expires.timeIntervalSince1970,
                                       appId])
        }
        return (String(code), expires)
    }

    public enum Redemption: Sendable, Equatable {
        case paired(token: String, clientID: String)
        /// No active code matches; `burnt` is true when this failure burnt the active codes.
        case invalid(burnt: Bool)
        case expired
        /// The code was burnt by too many wrong attempts.
        case burnt
        /// The code was already used.
        case used
        /// The client claimed an app id the code was not issued for (a plain device code, or a code for another
        /// app). The code is not used up: the owner's client can still redeem it as issued.
        case appMismatch
        /// This address sent ``AccessStore/maxCodeFailures`` wrong codes: it may not redeem any code until a new one
        /// is issued or `retryAfter` seconds have passed. Other addresses are not affected.
        case lockedOut(retryAfter: Int)
    }

    /// How long an address that sent too many wrong codes stays locked out (unless a new code is issued sooner).
    public static let lockout: TimeInterval = 900
    /// Wrong codes from all addresses together that burn the active codes: a guard against guessing from many
    /// addresses, far above what a person mistyping or one hostile host can reach (each is locked out after
    /// ``maxCodeFailures``). 1,000 guesses at a 40-bit code succeed with a probability below 10⁻⁹.
    public static let maxTotalCodeFailures = 1_000

    /// Redeems a code: on success marks it used and creates a client whose token only the caller sees. Wrong codes
    /// are counted per address: the ``maxCodeFailures``-th locks that address out (``Redemption/lockedOut(retryAfter:)``)
    /// without burning the code for anyone else; only ``maxTotalCodeFailures`` wrong codes in all burn the active codes.
    ///
    /// The client's app id is the one the code was issued for (``issuePairingCode(lifetime:appId:now:)``), never a
    /// claim: `appId` is only checked against it (``Redemption/appMismatch`` when they differ).
    public func redeem(code: String, clientName: String, appId: String? = nil, address: String = "unknown",
                       now: Date = Date()) async throws -> Redemption {
        let hash = Data(Self.codeHash(code))
        let t = now.timeIntervalSince1970
        return try await pool.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT failures, last_at FROM pair_failure WHERE address = ?",
                                          arguments: [address]) {
                let failures: Int = row["failures"]
                let last: Double = row["last_at"]
                if failures >= Self.maxCodeFailures, t - last < Self.lockout {
                    return .lockedOut(retryAfter: max(1, Int((Self.lockout - (t - last)).rounded(.up))))
                }
            }
            if let row = try Row.fetchOne(db, sql: "SELECT id, expires_at, state, app_id FROM pair_code WHERE code_hash = ?",
                                          arguments: [hash]) {
                let state: String = row["state"]
                let expires: Double = row["expires_at"]
                let issuedFor: String? = row["app_id"]
                switch state {
                case "used": return .used
                case "burnt": return .burnt
                default:
                    if expires <= t { return .expired }
                    if let appId, appId != issuedFor { return .appMismatch }
                    try db.execute(sql: "UPDATE pair_code SET state = 'used' WHERE id = ?", arguments: [row["id"] as Int64])
                    try db.execute(sql: "DELETE FROM pair_failure WHERE address = ?", arguments: [address])
                    let token = Self.newToken()
                    var generator = SystemRandomNumberGenerator()
                    let id = Self.hex((0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) })
                    try db.execute(sql: "INSERT INTO client (id, name, token_hash, created_at, app_id) VALUES (?, ?, ?, ?, ?)",
                                   arguments: [id, clientName, Data(Self.tokenHash(token)), t, issuedFor])
                    return .paired(token: token, clientID: id)
                }
            }
            try db.execute(sql: """
                INSERT INTO pair_failure (address, failures, last_at) VALUES (?, 1, ?)
                ON CONFLICT(address) DO UPDATE SET
                    failures = CASE WHEN ? - last_at >= ? THEN 1 ELSE failures + 1 END, last_at = excluded.last_at
                """, arguments: [address, t, t, Self.lockout])
            try db.execute(sql: "DELETE FROM pair_failure WHERE last_at < ?", arguments: [t - Self.lockout])
            try db.execute(sql: "UPDATE pair_code SET failures = failures + 1 WHERE state = 'active' AND expires_at > ?",
                           arguments: [t])
            let burnt = try Int.fetchOne(db, sql: "SELECT count(*) FROM pair_code WHERE state = 'active' AND failures >= ?",
                                         arguments: [Self.maxTotalCodeFailures]) ?? 0
            if burnt > 0 {
                try db.execute(sql: "UPDATE pair_code SET state = 'burnt' WHERE state = 'active' AND failures >= ?",
                               arguments: [Self.maxTotalCodeFailures])
            }
            return .invalid(burnt: burnt > 0)
        }
    }

    // MARK: Clients

    /// A paired client, as ``clients()`` lists it (the contract's `PairedClient`).
    public typealias Client = PairedClient

    static func client(_ row: Row) -> Client {
        let id: String = row["id"]
        return Client(id: id, name: row["name"], createdAt: Date(timeIntervalSince1970: row["created_at"]),
                      lastSeenAt: (row["last_seen_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                      revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                      appId: row["app_id"], auditId: clientHash(id))
    }

    public func clients() throws -> [Client] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM client ORDER BY created_at").map(Self.client)
        }
    }

    /// One client by id (nil if none).
    public func client(id: String) async throws -> Client? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM client WHERE id = ?", arguments: [id]).map(Self.client)
        }
    }

    /// Revokes a client by id (or a unique prefix of at least 4 characters). Returns the client, nil if none matched.
    public func revoke(_ id: String, now: Date = Date()) throws -> Client? {
        try pool.write { db in
            let matches = try Row.fetchAll(db, sql: "SELECT * FROM client WHERE id = ? OR (length(?) >= 4 AND id LIKE ? || '%')",
                                           arguments: [id, id, id.filter { $0.isHexDigit }])
            guard matches.count == 1 else {
                if matches.count > 1 { throw AccessStoreError("'\(id)' matches \(matches.count) clients; give more of the id") }
                return nil
            }
            var client = Self.client(matches[0])
            if client.revokedAt == nil {
                try db.execute(sql: "UPDATE client SET revoked_at = ? WHERE id = ?", arguments: [now.timeIntervalSince1970, client.id])
                client.revokedAt = now
                try Self.insertAudit(AuditEvent(at: now, event: .consentChange, client: client.auditId,
                                                detail: .init(action: "device.revoke")), db)
            }
            return client
        }
    }

    // MARK: Sharing

    public struct Sharing: Sendable, Equatable {
        public var state: SharingState
        /// Canonical type identifiers, sorted.
        public var types: [String]
        public var deviceName: String?
        public var lastExport: Date?
    }

    enum Key {
        static let sharingState = "sharing.state"
        static let sharingTypes = "sharing.types"
        static let deviceName = "device.name"
        static let lastExport = "export.last"
    }

    static func sharing(_ settings: [String: String]) -> Sharing {
        Sharing(state: settings[Key.sharingState].flatMap(SharingState.init(rawValue:)) ?? .active,
                types: (settings[Key.sharingTypes] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty },
                deviceName: settings[Key.deviceName],
                lastExport: settings[Key.lastExport].flatMap(Double.init).map(Date.init(timeIntervalSince1970:)))
    }

    static func settings(_ db: Database) throws -> [String: String] {
        var settings: [String: String] = [:]
        // Cached: read on every request of the paired API (``snapshot(tokenHash:)``).
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM setting")) { settings[row["key"]] = row["value"] }
        return settings
    }

    public func sharing() throws -> Sharing {
        try pool.read { db in Self.sharing(try Self.settings(db)) }
    }

    /// ``sharing()`` for async code: never blocks a thread of the cooperative pool waiting for a reader.
    public func currentSharing() async throws -> Sharing {
        try await pool.read { db in Self.sharing(try Self.settings(db)) }
    }

    /// Pauses or resumes sharing; a change is written to the audit log in the same transaction.
    public func setSharingState(_ state: SharingState, now: Date = Date()) throws {
        try pool.write { db in
            let old = try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [Key.sharingState])
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [Key.sharingState, state.rawValue])
            if old != state.rawValue, old != nil || state != .active {
                try Self.insertAudit(AuditEvent(at: now, event: .consentChange, detail: .init(action: "sharing.\(state.rawValue)")), db)
            }
        }
    }

    /// Writes one audit row inside the caller's transaction: the change and its record commit together.
    static func insertAudit(_ event: AuditEvent, _ db: Database) throws {
        let detail = try event.detail.map { String(decoding: try JSONEncoder.wire.encode($0), as: UTF8.self) }
        try db.execute(sql: """
            INSERT INTO audit (at, event, request_id, client, address, method, route, status, decision, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [event.at.timeIntervalSince1970, event.event.rawValue, event.requestId, event.client,
                             event.address, event.method, event.route, event.status, event.decision?.rawValue, detail])
    }

    /// Replaces the shared types (canonical identifiers).
    public func setSharedTypes(_ types: [String]) throws {
        try setSetting(Key.sharingTypes, Array(Set(types)).sorted().joined(separator: ","))
    }

    public func setDeviceName(_ name: String?) throws { try setSetting(Key.deviceName, name) }

    func setSetting(_ key: String, _ value: String?) throws {
        try pool.write { db in
            if let value {
                try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               arguments: [key, value])
            } else {
                try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key])
            }
        }
    }

    /// What one API request needs, in one read: the client holding the token (if any) and the sharing settings.
    public struct RequestSnapshot: Sendable {
        public var client: Client?
        public var sharing: Sharing
    }

    public func snapshot(tokenHash: [UInt8]?) async throws -> RequestSnapshot {
        try await pool.read { db in
            var client: Client?
            if let tokenHash, let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM client WHERE token_hash = ?"),
                                                         arguments: [Data(tokenHash)]) {
                client = Self.client(row)
            }
            return RequestSnapshot(client: client, sharing: Self.sharing(try Self.settings(db)))
        }
    }

    // MARK: Audit

    /// Appends audit events, and records when clients were last seen and the last export, in one transaction.
    public func append(_ events: [AuditEvent], lastSeen: [String: Date] = [:], lastExport: Date? = nil,
                       keepAtMost: Int = 1_000_000) async throws {
        guard !events.isEmpty || !lastSeen.isEmpty || lastExport != nil else { return }
        let encoder = JSONEncoder.wire
        try await pool.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO audit (at, event, request_id, client, address, method, route, status, decision, detail)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for event in events {
                let detail = event.detail.flatMap { try? encoder.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
                try statement.execute(arguments: [event.at.timeIntervalSince1970, event.event.rawValue, event.requestId,
                                                  event.client, event.address, event.method, event.route, event.status,
                                                  event.decision?.rawValue, detail])
            }
            for (id, date) in lastSeen {
                try db.execute(sql: "UPDATE client SET last_seen_at = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, id])
            }
            if let lastExport {
                try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                               arguments: [Key.lastExport, String(lastExport.timeIntervalSince1970)])
            }
            let every = Int64(Self.pruneInterval(keepAtMost: keepAtMost))
            if !events.isEmpty, let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM audit"),
               last % every < Int64(events.count), last > Int64(keepAtMost) {
                try Self.prune(db, keepAtMost: keepAtMost)
            }
        }
    }

    /// How often (in inserted rows) ``append(_:lastSeen:lastExport:keepAtMost:)`` checks whether to prune, at least.
    static let pruneEvery = 1000

    /// Inserted rows between two prunes: a prune walks up to `keepAtMost` index entries per kind, so it runs once per
    /// tenth of that many rows — about ten entries walked per row inserted, however long the log, instead of a walk of
    /// the whole log every thousand rows (which, on a full log, stalled the group commit for every thousand requests).
    static func pruneInterval(keepAtMost: Int) -> Int { max(pruneEvery, keepAtMost / 10) }

    /// Keeps at most `keepAtMost` entries of each kind (`api.request`, `pair.success`, `pair.failure`, `data.read`):
    /// request noise, however much, never evicts a pairing or a data read. Each kind is one walk of the
    /// `(event, id)` index.
    static func prune(_ db: Database, keepAtMost: Int) throws {
        for kind in AuditEvent.Kind.allCases {
            if let boundary = try Int64.fetchOne(db, sql: """
                SELECT id FROM audit WHERE event = ? ORDER BY id DESC LIMIT 1 OFFSET ?
                """, arguments: [kind.rawValue, keepAtMost]) {
                try db.execute(sql: "DELETE FROM audit WHERE event = ? AND id <= ?", arguments: [kind.rawValue, boundary])
            }
        }
    }

    /// The newest `limit` audit events, oldest first (optionally only those after id `after`).
    public func auditEvents(limit: Int = 100, after: Int64? = nil) throws -> [AuditEvent] {
        try pool.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT * FROM (SELECT * FROM audit WHERE id > ? ORDER BY id DESC LIMIT ?) ORDER BY id
                """, arguments: [after ?? 0, limit])
            let decoder = JSONDecoder()
            return rows.map { Self.auditEvent($0, decoder) }
        }
    }

    /// One row of the `audit` table as an event.
    static func auditEvent(_ row: Row, _ decoder: JSONDecoder) -> AuditEvent {
        AuditEvent(id: row["id"], at: Date(timeIntervalSince1970: row["at"]),
                   event: AuditEvent.Kind(rawValue: row["event"]) ?? .apiRequest, requestId: row["request_id"],
                   client: row["client"], address: row["address"], method: row["method"], route: row["route"],
                   status: row["status"], decision: (row["decision"] as String?).flatMap(AuditEvent.Decision.init(rawValue:)),
                   detail: (row["detail"] as String?).flatMap { try? decoder.decode(AuditEvent.Detail.self, from: Data($0.utf8)) })
    }

    /// Every stored audit byte, for tests that check no health value ever reaches the log.
    public func rawAuditDump() throws -> String {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM audit ORDER BY id").map { row in
                row.columnNames.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
            }.joined(separator: "\n")
        }
    }
}

/// A failure of the access store's own machinery (the file cannot be opened, an ambiguous client id): its message
/// is what the person reads.
public struct AccessStoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
