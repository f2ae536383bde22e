import Foundation
import Metrics
import Testing

@Suite struct PrometheusTextTests {
    @Test func histogramBucketsAreCumulativeWithSumAndCount() {
        var counts = HistogramCounts(bounds: [0.01, 0.1, 1])
        for value in [0.005, 0.01, 0.05, 0.5, 7, .nan] { counts.observe(value) }
        #expect(counts.count == 5)  // NaN is not counted
        #expect(counts.cumulative == [2, 3, 4, 5])
        var text = PrometheusText()
        text.family("scanpick_test_seconds", .histogram, "A test.")
        text.histogram("scanpick_test_seconds", [("route", "pick")], counts)
        let lines = text.string.split(separator: "\n").map(String.init)
        #expect(lines[0] == "# HELP scanpick_test_seconds A test.")
        #expect(lines[1] == "# TYPE scanpick_test_seconds histogram")
        #expect(lines.contains(#"scanpick_test_seconds_bucket{route="pick",le="0.01"} 2"#))
        #expect(lines.contains(#"scanpick_test_seconds_bucket{route="pick",le="1"} 4"#))
        #expect(lines.contains(#"scanpick_test_seconds_bucket{route="pick",le="+Inf"} 5"#))
        #expect(lines.contains(#"scanpick_test_seconds_count{route="pick"} 5"#))
        #expect(lines.contains { $0.hasPrefix(#"scanpick_test_seconds_sum{route="pick"} 7.56"#) })
    }

    @Test func labelValuesAndHelpAreEscaped() {
        var text = PrometheusText()
        text.family("scanpick_x", .gauge, "back\\slash and\nnewline")
        text.sample("scanpick_x", [("org", "a\"b\\c\nd")], value: 1)
        #expect(text.string.contains(#"# HELP scanpick_x back\\slash and\nnewline"#))
        #expect(text.string.contains(#"scanpick_x{org="a\"b\\c\nd"} 1"#))
    }

    @Test func countersCountFromManyThreadsWithoutLoss() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<10_000 { counter.add() } } }
        }
        #expect(counter.value == 80_000)
    }
}
