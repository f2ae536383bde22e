import Storage

/// The API server's schema, as versioned migrations, for SQLite and for PostgreSQL: the same
/// identifiers, tables and columns. `server-1` is one text with only the few types the engines spell
/// differently filled in (see ``Spelling``); `server-2`, which stores the idempotency keys' times as
/// ``Timestamp`` text like every other time (they were seconds since 1970), is written per engine
/// because only PostgreSQL can change a column's type in place; `server-3` records stations (see
/// ``stationsAndHeartbeats(integer:keyOnlyTable:)``), `server-4` lets batches close
/// (``closingBatches(_:)``), `server-5` adds order lines' lots, dates and cases
/// (``lotsAndCases(integer:)``), `server-6` keeps stored answers in the order they are stored
/// (``answersInStoredOrder``), `server-7` lets a shift lead clear a station's call for help and
/// keep a fleet page's sign-in (``leadsScreen``), and `server-8` adds product names, totes, short
/// picks and complete batches (``namesTotesAndShorts(integer:keyOnlyTable:)``). Every table is keyed
/// by organisation first (the fleet page's sessions by their own key, which names the
/// organisation), so one organisation's rows are invisible to another's queries. The pack–pick interlock has no table: units locked are
/// computed from active shipments on every read.
enum ServerSchema {
    static let sqlite =
        migrations(
            Spelling(
                integer: "INTEGER", bytes: "BLOB", sequence: "seq INTEGER PRIMARY KEY", keyOnlyTable: " WITHOUT ROWID"))
        + [
            // SQLite cannot change a column's type: the table is rebuilt with every row.
            Migration(
                "server-2",
                sql: """
                    CREATE TABLE idempotency_keys_v2 (
                        org TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                        status INTEGER NOT NULL, body BLOB NOT NULL, created_at TEXT NOT NULL,
                        PRIMARY KEY (org, key)) WITHOUT ROWID;
                    INSERT INTO idempotency_keys_v2 (org, key, request_hash, status, body, created_at)
                    SELECT org, key, request_hash, status, body, strftime('%Y-%m-%dT%H:%M:%fZ', created_at, 'unixepoch')
                    FROM idempotency_keys;
                    DROP TABLE idempotency_keys;
                    ALTER TABLE idempotency_keys_v2 RENAME TO idempotency_keys;
                    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
                    \(Migration.normaliseAppliedTimes)
                    """),
            stationsAndHeartbeats(integer: "INTEGER", keyOnlyTable: " WITHOUT ROWID"),
            closingBatches("INTEGER"),
            lotsAndCases(integer: "INTEGER"),
            // Rebuilt as a rowid table, in the order the answers were stored: see `answersInStoredOrder`.
            Migration(
                "server-6",
                sql: """
                    CREATE TABLE idempotency_keys_v6 (
                        org TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                        status INTEGER NOT NULL, body BLOB NOT NULL, created_at TEXT NOT NULL, station TEXT);
                    INSERT INTO idempotency_keys_v6 (org, key, request_hash, status, body, created_at, station)
                    SELECT org, key, request_hash, status, body, created_at, station FROM idempotency_keys
                    ORDER BY created_at;
                    DROP TABLE idempotency_keys;
                    ALTER TABLE idempotency_keys_v6 RENAME TO idempotency_keys;
                    CREATE UNIQUE INDEX idempotency_keys_by_key ON idempotency_keys (org, key);
                    """),
            leadsScreen,
            namesTotesAndShorts(integer: "INTEGER", keyOnlyTable: " WITHOUT ROWID"),
        ]
    static let postgres =
        migrations(
            Spelling(
                integer: "BIGINT", bytes: "BYTEA", sequence: "seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
                keyOnlyTable: ""))
        + [
            Migration(
                "server-2",
                sql: """
                    ALTER TABLE idempotency_keys ALTER COLUMN created_at TYPE TEXT
                        USING to_char(to_timestamp(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
                    \(Migration.normaliseAppliedTimes)
                    """),
            stationsAndHeartbeats(integer: "BIGINT", keyOnlyTable: ""),
            closingBatches("BIGINT"),
            lotsAndCases(integer: "BIGINT"),
            Migration("server-6", sql: "COMMENT ON TABLE idempotency_keys IS '\(answersInStoredOrder)';"),
            leadsScreen,
            namesTotesAndShorts(integer: "BIGINT", keyOnlyTable: ""),
        ]

    /// What `server-6` changed, and why. SQLite kept each answer (about 600 bytes) in a table keyed by
    /// organisation and key: every store landed on a random leaf, split one about every fourth time,
    /// and wrote an index of ages as well (often six or seven pages to commit instead of four). Now
    /// answers are appended in the order they are stored, their keys are a unique index of small
    /// entries, and the expired ones are the table's first rows (``SQLDialect/pruneIdempotencyKeys``).
    /// PostgreSQL's tables keep rows in arrival order already; there the migration only records this.
    static let answersInStoredOrder =
        "Stored answers in the order they are stored, found by (org, key), pruned from the oldest."

    /// `server-3`: which station sent each picking event and idempotency key (its
    /// `X-ScanPick-Station`, null for a request without one), and each organisation's stations'
    /// last heartbeats (one row per station, replaced by the next; `received_at` on the server's
    /// clock, `clock_offset_ms` the station's clock minus the server's, `report` the heartbeat as
    /// checked JSON).
    static func stationsAndHeartbeats(integer: String, keyOnlyTable: String) -> Migration {
        Migration(
            "server-3",
            sql: """
                ALTER TABLE events ADD COLUMN station TEXT;
                ALTER TABLE idempotency_keys ADD COLUMN station TEXT;
                CREATE TABLE station_heartbeats (
                    org TEXT NOT NULL, station TEXT NOT NULL, received_at TEXT NOT NULL,
                    heartbeat_seconds \(integer) NOT NULL, clock_offset_ms \(integer), report TEXT NOT NULL,
                    PRIMARY KEY (org, station))\(keyOnlyTable);
                CREATE INDEX station_heartbeats_by_age ON station_heartbeats (received_at);
                """)
    }

    /// `server-7`: the shift lead's screen. `help_cleared_since` is the `since` of the call for help
    /// a lead cleared on the fleet page (its station keeps sending that call until its heartbeat's
    /// answer tells it; a newer call has another `since`). `fleet_sessions` are the fleet page's
    /// sign-ins: the SHA-256 of each session's cookie (never the cookie itself), its organisation,
    /// the SHA-256 of the token it was made with (a token taken out of the config ends its
    /// sessions), and when it was made and ends. Found by the cookie's hash, so keyed by it.
    static let leadsScreen = Migration(
        "server-7",
        sql: """
            ALTER TABLE station_heartbeats ADD COLUMN help_cleared_since TEXT;
            CREATE TABLE fleet_sessions (
                id_sha256 TEXT NOT NULL PRIMARY KEY, org TEXT NOT NULL, token_sha256 TEXT NOT NULL,
                created_at TEXT NOT NULL, expires_at TEXT NOT NULL);
            CREATE INDEX fleet_sessions_by_org ON fleet_sessions (org, created_at);
            CREATE INDEX fleet_sessions_by_end ON fleet_sessions (expires_at);
            """)

    /// `server-4`: batches end. A batch is closed when every task is complete or a supervisor closes
    /// it (`closed_at`); an order line whose units a closed batch left unpicked can go into a new
    /// batch, whose task then requires only what is left (`qty_before`: the units of the line picked
    /// by closed batches when the task was made).
    static func closingBatches(_ integer: String) -> Migration {
        Migration(
            "server-4",
            sql: """
                ALTER TABLE batches ADD COLUMN closed_at TEXT;
                ALTER TABLE pick_tasks ADD COLUMN qty_before \(integer) NOT NULL DEFAULT 0;
                CREATE INDEX batches_by_status ON batches (org, status, created_at);
                """)
    }

    /// `server-5`: an order line's optional lot, earliest accepted expiry (`YYYY-MM-DD`), case GTIN-14
    /// and units per case (GS1 data on scans is checked against them). NULL where a line has none,
    /// which is every line written before.
    static func lotsAndCases(integer: String) -> Migration {
        Migration(
            "server-5",
            sql: """
                ALTER TABLE order_lines ADD COLUMN lot TEXT;
                ALTER TABLE order_lines ADD COLUMN best_before TEXT;
                ALTER TABLE order_lines ADD COLUMN case_gtin TEXT;
                ALTER TABLE order_lines ADD COLUMN case_qty \(integer) CHECK (case_qty > 0);
                """)
    }

    /// `server-8`: what a pick is. An order line's optional product `name`; each task's `tote` (its
    /// order's number in the batch, 1, 2, … in the order the batch first lists them, filled in for
    /// the batches already there); units reported short (`pick_tasks.qty_short`, and by reason in
    /// `shortages`; `events.reason` records each report); and a batch's last counted change
    /// (`batches.changed_at`), from which a `complete` batch (a new status beside `open` and
    /// `closed`: every task picked or short) closes by itself after `batches.autoCloseMinutes`.
    static func namesTotesAndShorts(integer: String, keyOnlyTable: String) -> Migration {
        Migration(
            "server-8",
            sql: """
                ALTER TABLE order_lines ADD COLUMN name TEXT;
                ALTER TABLE pick_tasks ADD COLUMN tote \(integer) NOT NULL DEFAULT 0;
                ALTER TABLE pick_tasks ADD COLUMN qty_short \(integer) NOT NULL DEFAULT 0 CHECK (qty_short >= 0);
                ALTER TABLE batches ADD COLUMN changed_at TEXT;
                ALTER TABLE events ADD COLUMN reason TEXT;
                CREATE TABLE shortages (
                    org TEXT NOT NULL, pick_task_id TEXT NOT NULL, reason TEXT NOT NULL,
                    qty \(integer) NOT NULL CHECK (qty > 0), recorded_at TEXT NOT NULL,
                    PRIMARY KEY (org, pick_task_id, reason))\(keyOnlyTable);
                UPDATE pick_tasks SET tote = r.tote FROM (
                    SELECT org, batch_id, order_id, ROW_NUMBER() OVER (
                        PARTITION BY org, batch_id ORDER BY MIN(position), order_id) AS tote
                    FROM pick_tasks GROUP BY org, batch_id, order_id) AS r
                WHERE pick_tasks.org = r.org AND pick_tasks.batch_id = r.batch_id AND pick_tasks.order_id = r.order_id;
                UPDATE batches SET changed_at = COALESCE(closed_at, created_at);
                CREATE INDEX batches_by_change ON batches (status, changed_at);
                """)
    }

    /// How an engine spells a 64-bit integer, a byte string, an auto-numbered key column, and the
    /// clause for a table stored as its primary key.
    struct Spelling {
        var integer: String
        var bytes: String
        var sequence: String
        var keyOnlyTable: String
    }

    static func migrations(_ type: Spelling) -> [Migration] {
        [
            Migration(
                "server-1",
                sql: """
                    CREATE TABLE orders (
                        org TEXT NOT NULL, id TEXT NOT NULL, carrier TEXT NOT NULL, zone TEXT NOT NULL,
                        ship_by TEXT NOT NULL, updated_at TEXT NOT NULL,
                        PRIMARY KEY (org, id));
                    CREATE TABLE order_lines (
                        org TEXT NOT NULL, order_id TEXT NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL,
                        location TEXT NOT NULL, barcode TEXT NOT NULL, qty \(type.integer) NOT NULL CHECK (qty >= 0),
                        PRIMARY KEY (org, order_id, id),
                        FOREIGN KEY (org, order_id) REFERENCES orders (org, id));
                    CREATE TABLE batches (
                        org TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open',
                        created_at TEXT NOT NULL,
                        PRIMARY KEY (org, id));
                    CREATE TABLE pick_tasks (
                        org TEXT NOT NULL, id TEXT NOT NULL, batch_id TEXT NOT NULL, order_id TEXT NOT NULL,
                        line_id TEXT NOT NULL, position \(type.integer) NOT NULL,
                        qty_picked \(type.integer) NOT NULL DEFAULT 0 CHECK (qty_picked >= 0),
                        PRIMARY KEY (org, id),
                        FOREIGN KEY (org, batch_id) REFERENCES batches (org, id),
                        FOREIGN KEY (org, order_id, line_id) REFERENCES order_lines (org, order_id, id));
                    CREATE INDEX pick_tasks_by_batch ON pick_tasks (org, batch_id, position);
                    CREATE INDEX pick_tasks_by_line ON pick_tasks (org, order_id, line_id);
                    CREATE TABLE shipments (
                        org TEXT NOT NULL, id TEXT NOT NULL, order_id TEXT NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('active', 'voided')),
                        created_at TEXT NOT NULL, voided_at TEXT,
                        PRIMARY KEY (org, id));
                    CREATE TABLE shipment_units (
                        org TEXT NOT NULL, shipment_id TEXT NOT NULL, pick_task_id TEXT NOT NULL,
                        qty \(type.integer) NOT NULL CHECK (qty > 0),
                        PRIMARY KEY (org, shipment_id, pick_task_id),
                        FOREIGN KEY (org, shipment_id) REFERENCES shipments (org, id));
                    CREATE INDEX shipment_units_by_task ON shipment_units (org, pick_task_id);
                    CREATE TABLE events (
                        \(type.sequence), org TEXT NOT NULL, kind TEXT NOT NULL, pick_task_id TEXT,
                        delta \(type.integer) NOT NULL, qty_after \(type.integer) NOT NULL, worker_id TEXT, at TEXT,
                        idempotency_key TEXT, recorded_at TEXT NOT NULL);
                    CREATE TABLE idempotency_keys (
                        org TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                        status \(type.integer) NOT NULL, body \(type.bytes) NOT NULL, created_at \(type.integer) NOT NULL,
                        PRIMARY KEY (org, key))\(type.keyOnlyTable);
                    CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
                    """)
        ]
    }
}
