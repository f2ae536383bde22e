import ArgumentParsing
import Foundation
import Queue
import Station
import Timestamps
import Wire

/// `scanpick drain [--once]`: send the queue now, in the foreground, saying what happened.
enum DrainCommand: Command {
    struct Arguments: CommandArguments {
        var station = StationFile()
        var once = Flag("once", help: "Run a single pass.")
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "drain",
            abstract: "Send queued actions to the server now, oldest first, printing what happened.",
            discussion: """
                Drains until the queue is empty or the server stops answering (--once: a single pass). Waiting
                backoffs are skipped: a person asked for it now. Dead letters are reported and left for
                support (scanpick queue). Only one drainer runs per station database at a time.

                A refusal of the station itself (a wrong token: 401 or 403; a wrong base URL: 404 for a route
                that does not exist, a redirect, a 405, or an answer that is not the API's, such as a captive
                portal's page; a TLS failure) pauses the queue instead: nothing goes sent or dead for it, and
                the summary says what to fix. An action counts as sent only on a JSON answer that echoes its
                Idempotency-Key.

                Exit codes: 0 nothing left pending; 3 actions are still pending (server unreachable or
                busy, the queue paused, or another process is draining); 1 error.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        let station = try StationFile.open(arguments[\.station.config])
        var totals = (sent: 0, dead: 0)
        var stop = DrainPass.Stop.empty
        repeat {
            let pass = try await station.drainer.drainPass(honouringBackoff: false) { event in
                StandardStream.output.write(describe(event) + "\n")
            }
            totals.sent += pass.sent
            totals.dead += pass.dead
            stop = pass.stop
            if arguments[\.once] || pass.sent + pass.dead == 0 { break }
        } while stop == .empty
        let counts = try station.queue.counts()
        var summary =
            "drained: \(totals.sent) sent, \(totals.dead) dead; queue: \(counts.pending) pending, \(counts.dead) dead"
        switch stop {
        case .transient(let reason, _): summary += " (stopped: \(reason))"
        case .anotherDrainer: summary += " (another process is draining this queue)"
        case .paused(let attention, _): summary += "\npaused, needs attention: \(attention.message)"
        case .empty, .notDue: break
        }
        StandardStream.output.write(summary + "\n")
        return counts.pending + counts.inFlight == 0 ? 0 : 3
    }

    static func describe(_ event: DrainEvent) -> String {
        switch event {
        case .sent(let action, let status): "sent     #\(action.id)  \(action.label)  (\(status))"
        case .dead(let action, let status, let reason):
            "dead     #\(action.id)  \(action.label)  (\(status): \(reason.prefix(200)))"
        case .paused(let action, let attention):
            "paused   #\(action.id)  \(action.label)  (\(attention.code): kept; the station's setup needs attention, not the action)"
        case .retryLater(let action, let status, let reason, let retryAt):
            "waiting  #\(action.id)  \(action.label)  (\(status.map { "\($0): " } ?? "")\(reason.prefix(200)); next try after \(Timestamp.iso8601(retryAt)))"
        }
    }
}
