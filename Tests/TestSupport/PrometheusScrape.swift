import Foundation

/// A `/metrics` answer as Prometheus's own parser reads it: Debian's `python3-prometheus-client`
/// (`prometheus_client.parser`, installed by scripts/install-deps), run on the text. A text that
/// parser refuses throws, with its reason, so a test never checks numbers its own code parsed; so
/// does a family without a `# TYPE` line of a known type, which that parser lets through.
///
///     let scrape = try await PrometheusScrape.parse(text)
///     #expect(scrape.value("scanpick_station_queue_actions", ["state": "pending"]) == 2)
public struct PrometheusScrape: Sendable {
    /// One sample: its full name (`…_bucket`, `…_total`), labels and value.
    public struct Sample: Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    /// Each family's type by its name as the parser gives it (a counter's without `_total`).
    public var types: [String: String]
    public var samples: [Sample]

    /// The program that parses standard input and prints the families as JSON.
    private static let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        text = sys.stdin.read()
        out = {"types": {}, "samples": []}
        for family in text_string_to_metric_families(text):
            if family.type not in ("counter", "gauge", "histogram", "summary"):
                sys.exit("%s has no TYPE line of a known type (the parser says %s)" % (family.name, family.type))
            out["types"][family.name] = family.type
            for s in family.samples:
                out["samples"].append({"name": s.name, "labels": s.labels, "value": s.value})
        print(json.dumps(out))
        """

    /// Parses `text` with the Prometheus client's parser; throws when it refuses it.
    public static func parse(_ text: String) async throws -> PrometheusScrape {
        let result = try await ProcessRunner.run(
            "/usr/bin/python3", ["-c", script], in: NSTemporaryDirectory(), input: Array(text.utf8))
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        else {
            throw ServerProcessError(message: "Prometheus's parser refused the metrics: \(result.standardError)")
        }
        let types = object["types"] as? [String: String] ?? [:]
        let samples = (object["samples"] as? [[String: Any]] ?? []).map {
            Sample(
                name: $0["name"] as? String ?? "", labels: $0["labels"] as? [String: String] ?? [:],
                value: ($0["value"] as? NSNumber)?.doubleValue ?? .nan)
        }
        return PrometheusScrape(types: types, samples: samples)
    }

    /// The value of the sample `name` whose labels include `labels`, or nil when there is none
    /// (several: the first).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?
            .value
    }

    /// Every sample of `name`.
    public func all(_ name: String) -> [Sample] { samples.filter { $0.name == name } }

    /// The names of every sample.
    public var names: Set<String> { Set(samples.map(\.name)) }
}
