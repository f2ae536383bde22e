import Dispatch
import Foundation
import Synchronization

/// Something a person must see and act on: the server refused the station itself, a sync pass
/// failed, the camera is gone, the config does not load. Shown in `scanpick status`, its `--json`
/// (`"attention": [{"code", "message"}]`) and the page's pill, in words that say what to fix.
public struct Attention: Sendable, Equatable, Codable {
    /// A stable code for scripts: `unauthorized`, `forbidden`, `no_such_route`, `tls`, `no_token`,
    /// `sync_failed`, `database_damaged`, `camera_not_found`, `config_invalid`, ….
    public var code: String
    /// A sentence for a person: what happened and what to do.
    public var message: String

    /// The codes of a refusal of one organisation's setup (its token), which pause only that
    /// organisation's actions; every other pause holds the whole queue.
    public static let organisationCodes: Set<String> = ["unauthorized", "forbidden", "no_token"]

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// What the station shows when the server answers that it cannot store anything (503
    /// `storage_full` or `storage_failed`), from that answer's text (`"storage_full: …"`); nil for
    /// any other answer.
    public static func serverStorage(_ answer: String) -> Attention? {
        let waits = "the queue waits, nothing is lost, and it is sent once the server can store again"
        if answer.hasPrefix("storage_full:") {
            return Attention(
                code: "server_storage_full",
                message:
                    "the server cannot store actions (disk full): its database's disk has no room; \(waits) (the server's operator must free space)"
            )
        }
        if answer.hasPrefix("storage_failed:") {
            return Attention(
                code: "server_storage_failed",
                message:
                    "the server cannot store actions (its storage failed: \(answer.dropFirst("storage_failed:".count).trimmingCharacters(in: .whitespaces).prefix(200))); \(waits)"
            )
        }
        return nil
    }
}

/// The attention items of a running station, each owned by the part that noticed it (keyed by
/// that part's name: "sync", "camera", "config"), set when a problem starts and cleared when it ends.
///
///     board.set("camera", Attention(code: "camera_not_found", message: "…"))
///     board.set("camera", nil)  // it is back
public final class AttentionBoard: Sendable {
    private let items = Mutex<[String: Attention]>([:])
    private let onChange: (@Sendable ([Attention]) -> Void)?
    private let notifications = DispatchQueue(label: "scanpick.attention")

    /// `onChange` hears every new list, in order, on a queue of its own (e.g. to keep a copy where
    /// other processes can read it).
    public init(onChange: (@Sendable ([Attention]) -> Void)? = nil) {
        self.onChange = onChange
    }

    /// Sets (or, with nil, clears) what `source` reports.
    public func set(_ source: String, _ attention: Attention?) {
        items.withLock { items in
            guard items[source] != attention else { return }
            items[source] = attention
            guard let onChange else { return }
            let current = Self.list(items)
            notifications.async { onChange(current) }  // queued under the lock: heard in order
        }
    }

    private static func list(_ items: [String: Attention]) -> [Attention] {
        items.keys.sorted().compactMap { items[$0] }
    }

    /// Every current item, in a stable order.
    public var current: [Attention] {
        items.withLock { Self.list($0) }
    }
}
