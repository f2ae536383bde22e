import Storage

/// The API server's schema, as versioned migrations, once for SQLite and once for PostgreSQL (same
/// identifiers, same tables and columns; only the types' spelling differs). Every table is keyed by
/// organisation first, so one organisation's rows are invisible to another's queries. The pack–pick
/// interlock has no table: units locked are computed from active shipments on every read.
enum ServerSchema {
    static let sqlite = [
        Migration(
            "server-1",
            sql: """
                CREATE TABLE orders (
                    org TEXT NOT NULL, id TEXT NOT NULL, carrier TEXT NOT NULL, zone TEXT NOT NULL,
                    ship_by TEXT NOT NULL, updated_at TEXT NOT NULL,
                    PRIMARY KEY (org, id));
                CREATE TABLE order_lines (
                    org TEXT NOT NULL, order_id TEXT NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL,
                    location TEXT NOT NULL, barcode TEXT NOT NULL, qty INTEGER NOT NULL CHECK (qty >= 0),
                    PRIMARY KEY (org, order_id, id),
                    FOREIGN KEY (org, order_id) REFERENCES orders (org, id));
                CREATE TABLE batches (
                    org TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open',
                    created_at TEXT NOT NULL,
                    PRIMARY KEY (org, id));
                CREATE TABLE pick_tasks (
                    org TEXT NOT NULL, id TEXT NOT NULL, batch_id TEXT NOT NULL, order_id TEXT NOT NULL,
                    line_id TEXT NOT NULL, position INTEGER NOT NULL,
                    qty_picked INTEGER NOT NULL DEFAULT 0 CHECK (qty_picked >= 0),
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
                    qty INTEGER NOT NULL CHECK (qty > 0),
                    PRIMARY KEY (org, shipment_id, pick_task_id),
                    FOREIGN KEY (org, shipment_id) REFERENCES shipments (org, id));
                CREATE INDEX shipment_units_by_task ON shipment_units (org, pick_task_id);
                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY, org TEXT NOT NULL, kind TEXT NOT NULL, pick_task_id TEXT,
                    delta INTEGER NOT NULL, qty_after INTEGER NOT NULL, worker_id TEXT, at TEXT,
                    idempotency_key TEXT, recorded_at TEXT NOT NULL);
                CREATE TABLE idempotency_keys (
                    org TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                    status INTEGER NOT NULL, body BLOB NOT NULL, created_at INTEGER NOT NULL,
                    PRIMARY KEY (org, key)) WITHOUT ROWID;
                CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
                """)
    ]

    static let postgres = [
        Migration(
            "server-1",
            sql: """
                CREATE TABLE orders (
                    org TEXT NOT NULL, id TEXT NOT NULL, carrier TEXT NOT NULL, zone TEXT NOT NULL,
                    ship_by TEXT NOT NULL, updated_at TEXT NOT NULL,
                    PRIMARY KEY (org, id));
                CREATE TABLE order_lines (
                    org TEXT NOT NULL, order_id TEXT NOT NULL, id TEXT NOT NULL, sku TEXT NOT NULL,
                    location TEXT NOT NULL, barcode TEXT NOT NULL, qty BIGINT NOT NULL CHECK (qty >= 0),
                    PRIMARY KEY (org, order_id, id),
                    FOREIGN KEY (org, order_id) REFERENCES orders (org, id));
                CREATE TABLE batches (
                    org TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open',
                    created_at TEXT NOT NULL,
                    PRIMARY KEY (org, id));
                CREATE TABLE pick_tasks (
                    org TEXT NOT NULL, id TEXT NOT NULL, batch_id TEXT NOT NULL, order_id TEXT NOT NULL,
                    line_id TEXT NOT NULL, position BIGINT NOT NULL,
                    qty_picked BIGINT NOT NULL DEFAULT 0 CHECK (qty_picked >= 0),
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
                    qty BIGINT NOT NULL CHECK (qty > 0),
                    PRIMARY KEY (org, shipment_id, pick_task_id),
                    FOREIGN KEY (org, shipment_id) REFERENCES shipments (org, id));
                CREATE INDEX shipment_units_by_task ON shipment_units (org, pick_task_id);
                CREATE TABLE events (
                    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, org TEXT NOT NULL, kind TEXT NOT NULL,
                    pick_task_id TEXT, delta BIGINT NOT NULL, qty_after BIGINT NOT NULL, worker_id TEXT, at TEXT,
                    idempotency_key TEXT, recorded_at TEXT NOT NULL);
                CREATE TABLE idempotency_keys (
                    org TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
                    status BIGINT NOT NULL, body BYTEA NOT NULL, created_at BIGINT NOT NULL,
                    PRIMARY KEY (org, key));
                CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
                """)
    ]
}
