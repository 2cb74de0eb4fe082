import GRDB

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
        return migrator
    }
}
