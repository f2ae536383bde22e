import ArgumentParsing
import Foundation
import Station

/// `scanpick station`: scanning, validation, the queue's drainer and the network monitor together.
enum StationCommand: Command {
    static let spec = CommandSpec(
        name: "station",
        abstract: "Run the station: frames or a hardware scanner → validate → queue → drain, until SIGINT.",
        discussion: """
            Prints the active task, then runs the scan loop on one frame source and keeps the queue
            draining (network monitor, timer, each new scan) until SIGINT or SIGTERM; then it finishes the
            current frame, stops the drainer and closes the database. SIGHUP, or any change to the config
            file or a token file, re-reads the config: the server, tokens, worker and scanning settings
            apply at once, and a queue paused by a refusal of the station (a wrong token) looks again.

            Frame sources:
              --frames PATH [--fps N] [--loop]  recorded images in sorted order, stamped at N frames/s
                                               (default 30); without --loop it exits 0 after the last frame,
                                               leaving unsent actions in the queue
              --wedge                          a hardware scanner in keyboard-wedge mode: one code per line
                                               on standard input; when the input ends the station keeps
                                               running (taps, page, drainer) and shows it
              --device DEV                     a V4L2 camera (default: camera.device in the config); the
                                               decoder always takes the newest frame. A camera missing at
                                               start, or lost, is looked for again with backoff while the
                                               station keeps running ("camera: not found" on the page)

            Scanning is off unless organisations.ORG.scanning.enabled is true for the station's
            organisation (the open batch's, or --org); when off, no frame source is opened. A scan is
            only ever queued for an organisation whose scanning is on: while the open batch belongs to
            one with scanning off, every scan is refused, whatever --org says.
            """,
        options: [
            StationOptions.config,
            .value("frames", valueName: "PATH", help: "Replay the images in this folder as camera frames."),
            .value("fps", valueName: "N", help: "Frame rate the recorded frames are stamped at (default 30)."),
            .flag("loop", help: "Repeat the recorded frames until stopped."),
            .flag("wedge", help: "Read codes from a keyboard-wedge scanner on standard input."),
            .value("device", valueName: "DEV", help: "The V4L2 camera (default: camera.device in the config)."),
            .value("org", valueName: "ORG", help: "The organisation scanned for (default: the open batch's)."),
        ])

    static func run(_ arguments: ParsedArguments) async throws -> Int32 {
        let source: StationService.Source
        if let folder = arguments.value("frames") {
            let fps = Double(try arguments.integer("fps", in: 1...1000) ?? 30)
            source = .frames(folder: folder, fps: fps, loop: arguments.has("loop"))
        } else if arguments.has("wedge") {
            source = .wedge
        } else {
            source = .camera(device: arguments.value("device"))
        }
        let station = try StationOptions.load(arguments)
        let service = StationService(
            configPath: StationOptions.path(arguments), station: station,
            output: { line in
                StandardStream.output.write(line + "\n")
                StandardStream.output.flush()  // a long-running command: every line is seen when it happens
            },
            log: { StandardStream.error.write($0 + "\n") })
        let summary: StationService.Summary
        do {
            summary = try await service.run(source: source, org: arguments.value("org"))
        } catch StationServiceError.whichOrganisation {
            throw UsageError(StationServiceError.whichOrganisation.description)
        }
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
