import Storage

/// The station's queue database: one row per tap, scan or close, oldest first by `id`, and a log of what
/// support did to the queue (a cleared action is recorded there in full, never silently lost).
enum QueueSchema {
    /// The columns of `actions`, in their order in a row's record: what a salvage reads a row as when
    /// SQLite cannot read the schema (queue-1 and queue-2 both have them so).
    static let actionColumns = [
        "id", "org", "kind", "pick_task_id", "label", "payload", "idempotency_key", "state", "tries", "created_at",
        "updated_at", "next_attempt_at", "last_status", "last_error", "sent_at",
    ]

    static let migrations = [
        Migration(
            "queue-1",
            sql: """
                CREATE TABLE actions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    org TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('pick', 'setQty', 'scan')),
                    pick_task_id TEXT NOT NULL,
                    label TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'inFlight', 'sent', 'dead')),
                    tries INTEGER NOT NULL DEFAULT 0,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL,
                    next_attempt_at REAL NOT NULL DEFAULT 0,
                    last_status INTEGER,
                    last_error TEXT,
                    sent_at REAL);
                CREATE INDEX actions_by_state ON actions (state, id);
                CREATE TABLE station_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, event TEXT NOT NULL,
                    action_id INTEGER, actor TEXT, detail TEXT NOT NULL);
                CREATE TABLE queue_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """),
        // Every time as Timestamp text (`2026-11-30T10:00:00.123Z`), the one form the station writes
        // on the wire and in its other columns; queue-1 kept two of them as REAL seconds since 1970
        // (a next attempt of 0 meant "at once": now NULL), the pause's retry time as seconds since
        // 2001, and migrations' own times without milliseconds. SQLite cannot change a column's
        // type, so `actions` is rebuilt with every row, id and AUTOINCREMENT high-water mark kept
        // (an id is never handed out twice, so the station log's ids stay unambiguous).
        Migration(
            "queue-2",
            sql: """
                CREATE TABLE actions_v2 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    org TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('pick', 'setQty', 'scan')),
                    pick_task_id TEXT NOT NULL,
                    label TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'inFlight', 'sent', 'dead')),
                    tries INTEGER NOT NULL DEFAULT 0,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL,
                    next_attempt_at TEXT,
                    last_status INTEGER,
                    last_error TEXT,
                    sent_at TEXT);
                INSERT INTO actions_v2 (id, org, kind, pick_task_id, label, payload, idempotency_key, state, tries,
                    created_at, updated_at, next_attempt_at, last_status, last_error, sent_at)
                SELECT id, org, kind, pick_task_id, label, payload, idempotency_key, state, tries,
                    created_at, updated_at,
                    CASE WHEN next_attempt_at > 0
                        THEN strftime('%Y-%m-%dT%H:%M:%fZ', next_attempt_at, 'unixepoch') END,
                    last_status, last_error,
                    CASE WHEN sent_at IS NOT NULL THEN strftime('%Y-%m-%dT%H:%M:%fZ', sent_at, 'unixepoch') END
                FROM actions;
                CREATE TEMP TABLE queue_2_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'actions';
                DROP TABLE actions;
                ALTER TABLE actions_v2 RENAME TO actions;
                DELETE FROM sqlite_sequence WHERE name = 'actions';
                INSERT INTO sqlite_sequence (name, seq)
                    SELECT 'actions', MAX(seq) FROM (
                        SELECT seq FROM temp.queue_2_sequence UNION ALL SELECT MAX(id) AS seq FROM actions)
                    HAVING MAX(seq) IS NOT NULL;
                DROP TABLE temp.queue_2_sequence;
                CREATE INDEX actions_by_state ON actions (state, id);
                UPDATE queue_state SET value = json_set(value, '$.retryAt',
                        strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(value, '$.retryAt') + 978307200, 'unixepoch'))
                    WHERE key = 'pause' AND json_valid(value) AND json_type(value, '$.retryAt') IN ('integer', 'real');
                \(Migration.normaliseAppliedTimes)
                """),
        // Two more kinds of action: a short pick and a batch's close. The kind's CHECK is part of the
        // table, which SQLite cannot alter: `actions` is rebuilt as in queue-2, every row, id and
        // AUTOINCREMENT high-water mark kept.
        Migration(
            "queue-3",
            sql: """
                CREATE TABLE actions_v3 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    org TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('pick', 'setQty', 'scan', 'short', 'close')),
                    pick_task_id TEXT NOT NULL,
                    label TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    idempotency_key TEXT NOT NULL UNIQUE,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'inFlight', 'sent', 'dead')),
                    tries INTEGER NOT NULL DEFAULT 0,
                    created_at TEXT NOT NULL,
                    updated_at TEXT NOT NULL,
                    next_attempt_at TEXT,
                    last_status INTEGER,
                    last_error TEXT,
                    sent_at TEXT);
                INSERT INTO actions_v3 (id, org, kind, pick_task_id, label, payload, idempotency_key, state, tries,
                    created_at, updated_at, next_attempt_at, last_status, last_error, sent_at)
                SELECT id, org, kind, pick_task_id, label, payload, idempotency_key, state, tries,
                    created_at, updated_at, next_attempt_at, last_status, last_error, sent_at
                FROM actions;
                CREATE TEMP TABLE queue_3_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'actions';
                DROP TABLE actions;
                ALTER TABLE actions_v3 RENAME TO actions;
                DELETE FROM sqlite_sequence WHERE name = 'actions';
                INSERT INTO sqlite_sequence (name, seq)
                    SELECT 'actions', MAX(seq) FROM (
                        SELECT seq FROM temp.queue_3_sequence UNION ALL SELECT MAX(id) AS seq FROM actions)
                    HAVING MAX(seq) IS NOT NULL;
                DROP TABLE temp.queue_3_sequence;
                CREATE INDEX actions_by_state ON actions (state, id);
                """),
    ]
}
