/// What a station tells the server about itself every `heartbeatSeconds` while online
/// (`POST /api/stations/heartbeat`): its queue, its devices, what it works on and what needs a
/// person. Not queued: the newest one matters, and a lost one is replaced by the next. Every field
/// is bounded (``validate()``), so a station — or anyone with the organisation's token — can make
/// the server keep only a small, fixed amount per station.
public struct StationHeartbeat: Codable, Sendable, Equatable, ValidatedRequest {
    public var station: String
    /// How often the station sends one (1–3600): the server calls it stale after three missed.
    public var heartbeatSeconds: Int
    /// The station's `scanpick` version.
    public var version: String
    /// Whether the station reaches the server (always true when the server hears it; kept for the
    /// record the server shows).
    public var online: Bool
    public var pending: Int
    public var inFlight: Int
    public var dead: Int
    /// When the oldest action not yet sent was queued (ISO 8601, the station's clock), or nil.
    public var oldestPendingAt: String?
    /// When an action was last confirmed sent (ISO 8601, the station's clock), or nil.
    public var lastSyncAt: String?
    /// `ok` (capturing), `missing` (configured but not found or lost) or `off` (no camera in use).
    public var camera: String
    /// Handheld scanners ready now.
    public var scanners: Int
    /// The open batch, if any.
    public var batchId: String?
    /// The worker id the station sends with its actions: the worker signed in, else its config's.
    public var workerId: String?
    /// That worker's name, as the station's config or sign-in knows it (1–64 characters), or nil.
    public var workerName: String?
    /// When the station last queued a scan or tap of this organisation (ISO 8601, the station's
    /// clock), or nil: how long the picker has been idle.
    public var lastActionAt: String?
    /// How far the open batch is, in lines, or nil when none is open.
    public var batchProgress: Progress?
    /// The picker's call for the shift lead ("Call lead" on the station's page), or nil. It stays
    /// in every heartbeat until the picker cancels it or the lead clears it on the fleet page (the
    /// heartbeat's answer then says so: ``HeartbeatAnswer/helpCleared``).
    public var help: Help?
    /// What needs a person at the station, as its pill shows it.
    public var attention: [Item]
    /// The action the server has failed for the station's `queue.stuckAfterMinutes` (at least 5
    /// tries) while others wait behind it, or nil: what the fleet view names.
    public var stuck: Stuck?

    /// An action the server keeps failing, holding back those behind it.
    public struct Stuck: Codable, Sendable, Equatable {
        /// Its id in the station's queue (`scanpick queue park ID` moves it behind the rest).
        public var actionId: Int
        /// How the station shows it ("pick A1 · ×1").
        public var label: String
        /// The server's last answer to it, or nil when the last try did not reach the server.
        public var lastStatus: Int?
        /// Since when the server has failed it (ISO 8601, the station's clock).
        public var failingSince: String
        public var tries: Int
        /// Actions not yet sent waiting behind it.
        public var behind: Int

        public init(actionId: Int, label: String, lastStatus: Int?, failingSince: String, tries: Int, behind: Int) {
            self.actionId = actionId
            self.label = label
            self.lastStatus = lastStatus
            self.failingSince = failingSince
            self.tries = tries
            self.behind = behind
        }

        /// Characters of `label`.
        public static let maxLabelLength = 200

        func validate() throws(FieldError) {
            try FieldRules.quantity(actionId, field: "stuck.actionId", in: 1...Int.max)
            try FieldRules.text(label, field: "stuck.label", maxLength: Self.maxLabelLength)
            if let lastStatus { try FieldRules.quantity(lastStatus, field: "stuck.lastStatus", in: 100...599) }
            try FieldRules.text(failingSince, field: "stuck.failingSince")
            try FieldRules.quantity(tries, field: "stuck.tries", in: StationHeartbeat.countRange)
            try FieldRules.quantity(behind, field: "stuck.behind", in: StationHeartbeat.countRange)
        }
    }

    /// A batch's progress: lines done of its lines.
    public struct Progress: Codable, Sendable, Equatable {
        public var done: Int
        public var total: Int

        public init(done: Int, total: Int) {
            self.done = done
            self.total = total
        }
    }

    /// A call for help: since when (ISO 8601, the station's clock; it also names the call, so a
    /// lead clears this call and not a newer one) and who called (the picker's name).
    public struct Help: Codable, Sendable, Equatable {
        public var since: String
        public var by: String

        public init(since: String, by: String) {
            self.since = since
            self.by = by
        }
    }

    /// One thing that needs a person: a stable code and a sentence.
    public struct Item: Codable, Sendable, Equatable {
        public var code: String
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public init(
        station: String, heartbeatSeconds: Int, version: String, online: Bool, pending: Int, inFlight: Int, dead: Int,
        oldestPendingAt: String?, lastSyncAt: String?, camera: String, scanners: Int, batchId: String?,
        workerId: String?, workerName: String? = nil, lastActionAt: String? = nil, batchProgress: Progress? = nil,
        help: Help? = nil, attention: [Item], stuck: Stuck? = nil
    ) {
        self.station = station
        self.heartbeatSeconds = heartbeatSeconds
        self.version = version
        self.online = online
        self.pending = pending
        self.inFlight = inFlight
        self.dead = dead
        self.oldestPendingAt = oldestPendingAt
        self.lastSyncAt = lastSyncAt
        self.camera = camera
        self.scanners = scanners
        self.batchId = batchId
        self.workerId = workerId
        self.workerName = workerName
        self.lastActionAt = lastActionAt
        self.batchProgress = batchProgress
        self.help = help
        self.attention = attention
        self.stuck = stuck
    }

    /// Every key, always: a value the station does not have is `null`, so the heartbeat,
    /// `GET /api/stations` and `scanpick fleet --json` carry the same keys whatever its state.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(station, forKey: .station)
        try container.encode(heartbeatSeconds, forKey: .heartbeatSeconds)
        try container.encode(version, forKey: .version)
        try container.encode(online, forKey: .online)
        try container.encode(pending, forKey: .pending)
        try container.encode(inFlight, forKey: .inFlight)
        try container.encode(dead, forKey: .dead)
        try container.encode(oldestPendingAt, forKey: .oldestPendingAt)
        try container.encode(lastSyncAt, forKey: .lastSyncAt)
        try container.encode(camera, forKey: .camera)
        try container.encode(scanners, forKey: .scanners)
        try container.encode(batchId, forKey: .batchId)
        try container.encode(workerId, forKey: .workerId)
        try container.encode(workerName, forKey: .workerName)
        try container.encode(lastActionAt, forKey: .lastActionAt)
        try container.encode(batchProgress, forKey: .batchProgress)
        try container.encode(help, forKey: .help)
        try container.encode(attention, forKey: .attention)
        try container.encode(stuck, forKey: .stuck)
    }

    /// How often a station may send one, in seconds.
    public static let intervalRange = 1...3600
    /// The camera states a heartbeat may report.
    public static let cameraStates: Set<String> = ["ok", "missing", "off"]
    /// A count of actions (pending, in flight, dead).
    public static let countRange = 0...1_000_000_000
    /// Handheld scanners a station may report (it reads at most 8).
    public static let scannerRange = 0...64
    /// Attention items one heartbeat carries, and the characters of each one's code and message.
    public static let maxAttentionItems = 10
    public static let maxCodeLength = 64
    public static let maxMessageLength = 300
    /// Characters of `version`.
    public static let maxVersionLength = 64
    /// Characters of a worker's name (`workerName`, `help.by`), as the station's sign-in allows.
    public static let maxNameLength = 64
    /// Lines a batch's progress may count.
    public static let progressRange = 0...100_000
    /// The largest heartbeat body the server reads, in bytes (every field at its bound fits).
    public static let maxBodyBytes = 32 * 1024

    public func validate() throws(FieldError) {
        try StationIdentity.check(station, field: "station")
        try FieldRules.quantity(heartbeatSeconds, field: "heartbeatSeconds", in: Self.intervalRange)
        try FieldRules.text(version, field: "version", maxLength: Self.maxVersionLength)
        try FieldRules.quantity(pending, field: "pending", in: Self.countRange)
        try FieldRules.quantity(inFlight, field: "inFlight", in: Self.countRange)
        try FieldRules.quantity(dead, field: "dead", in: Self.countRange)
        if let oldestPendingAt { try FieldRules.time(oldestPendingAt, field: "oldestPendingAt") }
        if let lastSyncAt { try FieldRules.time(lastSyncAt, field: "lastSyncAt") }
        guard Self.cameraStates.contains(camera) else {
            throw FieldError(field: "camera", problem: "must be \"ok\", \"missing\" or \"off\"")
        }
        try FieldRules.quantity(scanners, field: "scanners", in: Self.scannerRange)
        try FieldRules.optionalText(batchId, field: "batchId")
        try FieldRules.optionalText(workerId, field: "workerId")
        try FieldRules.optionalText(workerName, field: "workerName", maxLength: Self.maxNameLength)
        if let lastActionAt { try FieldRules.time(lastActionAt, field: "lastActionAt") }
        if let batchProgress {
            try FieldRules.quantity(batchProgress.total, field: "batchProgress.total", in: Self.progressRange)
            try FieldRules.quantity(batchProgress.done, field: "batchProgress.done", in: 0...batchProgress.total)
        }
        if let help {
            try FieldRules.time(help.since, field: "help.since")
            try FieldRules.text(help.by, field: "help.by", maxLength: Self.maxNameLength)
        }
        try FieldRules.count(attention.count, field: "attention", atMost: Self.maxAttentionItems)
        for (index, item) in attention.enumerated() {
            try FieldRules.text(item.code, field: "attention[\(index)].code", maxLength: Self.maxCodeLength)
            try FieldRules.text(item.message, field: "attention[\(index)].message", maxLength: Self.maxMessageLength)
        }
        try stuck?.validate()
    }

    /// `text` made to pass ``FieldRules/text(_:field:maxLength:)`` at `maxLength`: refused
    /// characters become spaces and it is cut short (with "…") to the length and byte bounds, so a
    /// station's long or odd message never costs it the whole heartbeat. Empty text becomes "-".
    public static func fitted(_ text: String, maxLength: Int) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(FieldRules.isRefused(scalar) ? " " : scalar)
        }
        var fitted = String(scalars)
        if fitted.count > maxLength { fitted = String(fitted.prefix(maxLength - 1)) + "…" }
        while fitted.utf8.count > maxLength * 4 { fitted = String(fitted.dropLast(2)) + "…" }
        return fitted.isEmpty ? "-" : fitted
    }
}

/// One station as `GET /api/stations` lists it: its last heartbeat's fields, when the server last
/// heard it (the server's clock), how far its clock was from the server's, and its derived status.
public struct FleetStation: Codable, Sendable, Equatable {
    /// The last heartbeat, as the station sent it.
    public var heartbeat: StationHeartbeat
    /// When the server last heard from it (ISO 8601, the server's clock).
    public var lastSeenAt: String
    /// The station's clock minus the server's when it sent that heartbeat, in seconds (nil when it
    /// did not say its clock).
    public var clockOffsetSeconds: Double?
    /// The worst of ``problems``, or `ok`.
    public var status: String
    /// Every status that applies, worst first: `help`, `stale`, `dead_letters`, `backlog`, `attention`.
    public var problems: [String]
    /// When this server last refused a request naming this station for its token (ISO 8601, the
    /// server's clock), if that came after the station's last heartbeat and it has missed one
    /// since: its heartbeats are refused too, so this is how the lead learns why it is silent.
    public var tokenRefusedAt: String?

    public init(
        heartbeat: StationHeartbeat, lastSeenAt: String, clockOffsetSeconds: Double?, status: String,
        problems: [String], tokenRefusedAt: String? = nil
    ) {
        self.heartbeat = heartbeat
        self.lastSeenAt = lastSeenAt
        self.clockOffsetSeconds = clockOffsetSeconds
        self.status = status
        self.problems = problems
        self.tokenRefusedAt = tokenRefusedAt
    }

    /// The statuses, worst first (`ok` when none applies).
    public static let statuses = ["help", "stale", "dead_letters", "backlog", "attention", "ok"]

    private enum Keys: String, CodingKey { case lastSeenAt, clockOffsetSeconds, status, problems, tokenRefusedAt }

    public init(from decoder: any Decoder) throws {
        heartbeat = try StationHeartbeat(from: decoder)
        let container = try decoder.container(keyedBy: Keys.self)
        lastSeenAt = try container.decode(String.self, forKey: .lastSeenAt)
        clockOffsetSeconds = try container.decodeIfPresent(Double.self, forKey: .clockOffsetSeconds)
        status = try container.decode(String.self, forKey: .status)
        problems = try container.decode([String].self, forKey: .problems)
        tokenRefusedAt = try container.decodeIfPresent(String.self, forKey: .tokenRefusedAt)
    }

    /// The heartbeat's keys and this view's side by side, in one object.
    public func encode(to encoder: any Encoder) throws {
        try heartbeat.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(lastSeenAt, forKey: .lastSeenAt)
        try container.encode(clockOffsetSeconds, forKey: .clockOffsetSeconds)
        try container.encode(status, forKey: .status)
        try container.encode(problems, forKey: .problems)
        try container.encode(tokenRefusedAt, forKey: .tokenRefusedAt)
    }
}

/// `GET /api/stations`'s answer: the organisation (the token's), the server's time, and its
/// stations by name.
public struct FleetStations: Codable, Sendable, Equatable {
    public var org: String
    public var serverTime: String
    public var stations: [FleetStation]

    public init(org: String, serverTime: String, stations: [FleetStation]) {
        self.org = org
        self.serverTime = serverTime
        self.stations = stations
    }
}

/// `POST /api/stations/heartbeat`'s answer.
public struct HeartbeatAnswer: Codable, Sendable, Equatable {
    /// When the server heard it (its clock).
    public var receivedAt: String
    /// The `since` of the heartbeat's call for help when the shift lead has cleared that call on the
    /// fleet page: the station ends it. Absent otherwise (so an older station reads the answer it
    /// always read).
    public var helpCleared: String?

    public init(receivedAt: String, helpCleared: String? = nil) {
        self.receivedAt = receivedAt
        self.helpCleared = helpCleared
    }
}
