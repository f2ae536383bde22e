import ArgumentParsing
import Capture
import Foundation
import Lifecycle
import Logging
import Station

/// `scanpick station`: scanning, validation, the queue's drainer and the network monitor together.
enum StationCommand: Command {
    struct Arguments: CommandArguments {
        var station = StationFile()
        var frames = Option<String?>(
            "frames", valueName: "PATH",
            help:
                "Replay the images in this folder as camera frames, in sorted order; without --loop the station exits 0 after the last one, leaving unsent actions in the queue."
        )
        var fps = Option<Int>(
            "fps", valueName: "N", help: "Frame rate the recorded frames are stamped at.",
            default: RecordedFrames.defaultFramesPerSecond, in: 1...1000)
        var loop = Flag("loop", help: "Repeat the recorded frames until stopped, at --fps in real time.")
        var wedge = Flag(
            "wedge",
            help:
                "Read codes from a keyboard-wedge scanner on standard input, one per line; when the input ends the station keeps running (taps, page, drainer) and shows it."
        )
        var device = Option<String?>(
            "device", valueName: "DEV",
            help:
                "The V4L2 camera (default: camera.device in the config); the decoder always takes the newest frame. A camera missing at start, or lost, is looked for again with backoff while the station keeps running (\"camera: not found\" on the page)."
        )
        var org = Option<String?>(
            "org", valueName: "ORG", help: "The organisation scanned for (default: the open batch's).")

        static let rules: [ArgumentRule<Self>] = [
            .exclusive(\.frames, \.wedge, \.device, because: "the station reads one frame source"),
            .requires(\.fps, \.frames), .requires(\.loop, \.frames),
        ]
    }

    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: "station",
            abstract: "Run the station: frames or a hardware scanner → validate → queue → drain, until SIGINT.",
            discussion: """
                Prints the active task, then runs the scan loop on one frame source and keeps the queue
                draining (network monitor, timer, each new scan) until SIGINT or SIGTERM; then it finishes the
                current frame, stops the drainer and closes the database. SIGHUP, or any change to the config
                file or a token file, re-reads the config: the server, tokens, worker and scanning settings
                apply at once (scanning switched on opens the camera and scanners, switched off closes
                them), a queue paused by a refusal of the station (a wrong token) looks again, and keys
                that need a restart are named in the log and on the page.

                Frames come from the camera unless --frames or --wedge names another source.

                Scanning is off unless organisations.ORG.scanning.enabled is true for --org's organisation
                (without --org: for any of the config's); when off, no camera or scanner is opened. A scan is
                only ever queued for an organisation whose scanning is on: while the open batch belongs to
                one with scanning off, every scan is refused, whatever --org says. A station with several
                organisations starts without --org: its page asks which batch to open.
                """)
    }

    static func run(_ arguments: ParsedArguments<Arguments>) async throws -> Int32 {
        // First: a stop asked for while the station starts (a service manager's, right after its
        // start) is kept for the orderly shutdown, not the default's sudden end.
        let signals = UnixSignals.takeOver()
        let source: StationRuntime.Source
        if let folder = arguments[\.frames] {
            source = .frames(folder: folder, fps: Double(arguments[\.fps]), loop: arguments[\.loop])
        } else if arguments[\.wedge] {
            source = .wedge
        } else {
            source = .camera(device: arguments[\.device])
        }
        // A reader of its output that went away (a closed pipe) costs lines, not the station (as
        // for `serve`; systemd ignores SIGPIPE for its services, a shell does not).
        signal(SIGPIPE, SIG_IGN)
        // One JSON line per event, with its journal priority under systemd (a fatal one at err).
        let logger = Logger(sink: .standardError)
        defer { logger.flush() }  // before the error's own line, and before the exit
        let station: PickStation
        do {
            station = try StationFile.open(arguments[\.station.config])
        } catch let error as UsageError {
            throw error
        } catch {
            logger.error("start_failed", ["message": .error(error)])
            throw error
        }
        let runtime = StationRuntime(
            configPath: arguments[\.station.config], station: station,
            output: { line in
                StandardStream.output.write(line + "\n")
                StandardStream.output.flush()  // a long-running command: every line is seen when it happens
            },
            logger: logger)
        let summary = try await runtime.run(source: source, org: arguments[\.org], signals: signals)
        let pending = try station.queue.counts().pending
        StandardStream.output.write(
            "stopped: \(summary.accepted) scans accepted, \(summary.rejected) rejected"
                + (summary.frames > 0 ? " in \(summary.frames) frames" : "")
                + (summary.dropped > 0 ? " (\(summary.dropped) dropped while decoding)" : "")
                + "; \(pending) actions pending in the queue\n")
        guard summary.failed == 0 else {
            throw StationCommandError("\(summary.failed) scans could not be recorded (see the log above)")
        }
        return 0
    }
}
