import ArgumentParsing
import Wire

/// The `scanpick` command line: every command, declared once (each in `Commands/`), from which
/// parsing, help and usage errors at every level are generated.
enum ScanPick {
    static var tool: CommandLineTool {
        CommandLineTool(
            name: "scanpick",
            abstract: "ScanPick Station: barcode scanning and a durable pick queue for warehouse pick stations.",
            version: ScanPickVersion.description,
            commands: [
                DecodeCommand.self, ScoreCommand.self, ServeCommand.self, MigrateCommand.self, TokenCommand.self,
                TapCommand.self, QueueCommand.self, DrainCommand.self, StatusCommand.self, BatchCommand.self,
                SelectCommand.self, PickListCommand.self, StationCommand.self, DevicesCommand.self, ConfigCommand.self,
                FleetCommand.self, SetupCommand.self, BackupCommand.self, RestoreCommand.self,
            ])
    }
}
