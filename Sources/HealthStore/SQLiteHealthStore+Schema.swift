import Foundation
import GRDB
import HealthModel

extension SQLiteHealthStore {
    /// The store's schema, one migration per version. Never edit a shipped migration: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                INSERT INTO counters (name, value) VALUES ('seq', 0);
                CREATE TABLE types (
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    max_duration REAL NOT NULL DEFAULT 0
                );
                CREATE TABLE units (id INTEGER PRIMARY KEY, unit TEXT NOT NULL UNIQUE);
                CREATE TABLE sources (
                    id INTEGER PRIMARY KEY,
                    key TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    bundle_id TEXT,
                    device TEXT,
                    category INTEGER NOT NULL
                );
                CREATE TABLE samples (
                    seq INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL,
                    type_id INTEGER NOT NULL,
                    source_id INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    value REAL,
                    unit_id INTEGER,
                    created REAL,
                    tz_offset INTEGER,
                    tz_name TEXT,
                    source_version TEXT,
                    sync_id TEXT,
                    sync_version INTEGER,
                    metadata TEXT
                );
                CREATE UNIQUE INDEX samples_uuid ON samples(uuid);
                CREATE INDEX samples_scan ON samples(type_id, start, seq, "end", value, source_id, unit_id);
                CREATE INDEX samples_sync ON samples(sync_id, source_id) WHERE sync_id IS NOT NULL;
                CREATE TABLE tombstones (
                    seq INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL,
                    type_id INTEGER NOT NULL,
                    sync_id TEXT,
                    sync_version INTEGER,
                    deleted REAL NOT NULL
                );
                CREATE TABLE workouts (
                    seq INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    activity TEXT NOT NULL,
                    source_id INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    duration REAL NOT NULL,
                    created REAL,
                    tz_offset INTEGER,
                    tz_name TEXT,
                    metadata TEXT,
                    detail TEXT NOT NULL
                );
                CREATE INDEX workouts_start ON workouts(start);
                CREATE TABLE route_points (
                    route BLOB NOT NULL,
                    idx INTEGER NOT NULL,
                    time REAL NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    ele REAL, speed REAL, course REAL, h_acc REAL, v_acc REAL,
                    PRIMARY KEY (route, idx)
                ) WITHOUT ROWID;
                CREATE TABLE correlations (
                    seq INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    type_id INTEGER NOT NULL,
                    source_id INTEGER NOT NULL,
                    start REAL NOT NULL,
                    "end" REAL NOT NULL,
                    created REAL,
                    metadata TEXT,
                    members TEXT NOT NULL
                );
                CREATE INDEX correlations_type_start ON correlations(type_id, start);
                CREATE TABLE documents (
                    id INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    kind TEXT NOT NULL,
                    start REAL,
                    "end" REAL,
                    source_name TEXT,
                    json TEXT NOT NULL
                );
                CREATE INDEX documents_kind_start ON documents(kind, start);
                CREATE TABLE type_sources (
                    type_id INTEGER NOT NULL,
                    source_id INTEGER NOT NULL,
                    PRIMARY KEY (type_id, source_id)
                ) WITHOUT ROWID;
                CREATE TABLE source_priority (
                    type_id INTEGER NOT NULL,
                    source_id INTEGER NOT NULL,
                    rank INTEGER NOT NULL,
                    PRIMARY KEY (type_id, source_id)
                ) WITHOUT ROWID;
                """)
        }
        // Route points packed per route (RoutePointColumns) instead of a row per point: one row written per route on
        // import, one read per summary. The rows of older stores are packed here.
        migrator.registerMigration("v2-route-columns") { db in
            try db.execute(sql: """
                CREATE TABLE routes (
                    id INTEGER PRIMARY KEY,
                    uuid BLOB NOT NULL UNIQUE,
                    count INTEGER NOT NULL,
                    points BLOB NOT NULL
                )
                """)
            try packLegacyRoutePoints(db)
            try db.execute(sql: "DROP TABLE route_points")
        }
        // Export records keyed with their creation date (natural key version 2): the samples older stores imported
        // under version 1 are rekeyed, so that re-importing the same export adds nothing.
        migrator.registerMigration("v3-export-key-creation") { db in
            try rekeyExportSamples(db)
        }
        return migrator
    }

    /// Packs the `route_points` rows of a version-1 store into `routes`, route by route.
    static func packLegacyRoutePoints(_ db: Database) throws {
        let routes = try Data.fetchAll(db, sql: "SELECT DISTINCT route FROM route_points")
        let rows = try db.makeStatement(sql: """
            SELECT time, lat, lon, ele, speed, course, h_acc, v_acc FROM route_points WHERE route = ? ORDER BY idx
            """)
        for route in routes {
            var columns = RoutePointColumns()
            let cursor = try Row.fetchCursor(rows, arguments: [route])
            while let row = try cursor.next() {
                let optional: (Int) -> Double = { index in (row[index] as Double?) ?? .nan }
                columns.append(time: row[0], latitude: row[1], longitude: row[2], elevation: optional(3),
                               speed: optional(4), course: optional(5), horizontalAccuracy: optional(6),
                               verticalAccuracy: optional(7))
            }
            try db.execute(sql: "INSERT INTO routes (uuid, count, points) VALUES (?, ?, ?)",
                           arguments: [route, columns.count, columns.packed()])
        }
    }
}
