import Foundation

let status = await ScanPick.tool.main(
    Array(CommandLine.arguments.dropFirst()),
    standardError: { StandardStream.error.write($0) },
    standardOutput: { StandardStream.output.write($0) })
StandardStream.output.flush()
exit(status)
