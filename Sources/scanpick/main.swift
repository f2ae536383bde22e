import ArgumentParsing
import Foundation

/// `scanpick`: the ScanPick Station command line. Each command lives in `Commands/`.
let tool = CommandLineTool(
    name: "scanpick",
    abstract: "ScanPick Station: barcode scanning and a durable pick queue for warehouse pick stations.",
    commands: [
        DecodeCommand.self, ScoreCommand.self, ServeCommand.self, MigrateCommand.self, TokenCommand.self,
        TapCommand.self, QueueCommand.self,
        DrainCommand.self, StatusCommand.self, BatchCommand.self, SelectCommand.self, PickListCommand.self,
        StationCommand.self, DevicesCommand.self,
    ])

let status = await tool.main(
    Array(CommandLine.arguments.dropFirst()),
    standardError: { StandardStream.error.write($0) },
    standardOutput: { StandardStream.output.write($0) })
StandardStream.output.flush()
exit(status)
