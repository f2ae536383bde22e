import Storage

/// The station's queue database: one row per tap or scan, oldest first by `id`, and a log of what
/// support did to the queue (a cleared action is recorded there in full, never silently lost).
enum QueueSchema {
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
                """)
    ]
}
