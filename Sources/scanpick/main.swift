import Foundation
import LineLog

let status = await ScanPick.tool.main(
    Array(CommandLine.arguments.dropFirst()),
    // The command's own words on failure: an `err` line when standard error is systemd's journal.
    standardError: { StandardStream.error.write(JournalPriority.taggedAsError($0)) },
    standardOutput: { StandardStream.output.write($0) })
StandardStream.output.flush()
exit(status)
