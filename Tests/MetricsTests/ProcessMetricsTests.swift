import Foundation
import Testing

@testable import Metrics

@Suite struct ProcessMetricsTests {
    /// A command name may hold spaces and parentheses: fields are counted from its last `)`.
    @Test func statFieldsAreCountedFromTheCommandsClosingParenthesis() throws {
        // pid (comm) state ppid … utime(14)=250 stime(15)=50 … starttime(22)=1000 vsize(23) rss(24)
        let fields = (3...24).map { number -> String in
            switch number {
            case 3: "S"
            case 14: "250"
            case 15: "50"
            case 22: "1000"
            case 23: "104857600"
            case 24: "2560"
            default: "0"
            }
        }
        let line = "4242 (scan pick) (x)) " + fields.joined(separator: " ") + " 0 0\n"
        let sample = try #require(
            ProcessMetrics.parse(
                stat: line, ticksPerSecond: 100, pageSize: 4096, now: 1_000_000, secondsSinceBoot: 500))
        #expect(sample.cpuSeconds == 3)
        #expect(sample.residentBytes == 2560 * 4096)
        #expect(sample.virtualBytes == 104_857_600)
        #expect(sample.startTime == 1_000_000 - (500 - 10))  // started 10 s after boot, 490 s ago
        #expect(
            ProcessMetrics.parse(stat: "4242 (x) S 1", ticksPerSecond: 100, pageSize: 4096, now: 0, secondsSinceBoot: 0)
                == nil)
    }

    /// This process, read from /proc: a start in the past that is not long ago, memory in use, and
    /// a descriptor opened here counted.
    @Test func thisProcessIsReadFromProc() throws {
        let sample = try #require(ProcessMetrics.sample())
        let now = Date().timeIntervalSince1970
        #expect(sample.startTime <= now + 1 && sample.startTime > now - 86_400)
        #expect(sample.residentBytes > 1 << 20)
        #expect(sample.virtualBytes >= sample.residentBytes)
        #expect(sample.cpuSeconds > 0)
        let before = try #require(ProcessMetrics.openDescriptors())
        let descriptors = (0..<256).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for descriptor in descriptors where descriptor >= 0 { close(descriptor) } }
        let after = try #require(ProcessMetrics.openDescriptors())
        // Other tests open and close descriptors side by side: most of these 256 show.
        #expect(!descriptors.contains(-1))
        #expect(after >= before + 128)
    }

    @Test func familiesCarryTheBuildsVersion() {
        var text = PrometheusText()
        ProcessMetrics.write(to: &text, version: "0.1.0+20261205.36fdbf4")
        let lines = text.string.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"scanpick_build_info{version="0.1.0+20261205.36fdbf4"} 1"#))
        for family in [
            "process_cpu_seconds_total counter", "process_resident_memory_bytes gauge",
            "process_virtual_memory_bytes gauge", "process_start_time_seconds gauge", "process_open_fds gauge",
            "process_max_fds gauge",
        ] {
            #expect(lines.contains("# TYPE \(family)"))
        }
    }
}
