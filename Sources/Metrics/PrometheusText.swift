/// Prometheus's text exposition format (version 0.0.4), written family by family: a `# HELP` and
/// `# TYPE` line, then its samples. Label values are escaped; names are the caller's constants
/// (`scanpick_` prefix, `_total` for counters, base units such as `_seconds`).
///
///     var text = PrometheusText()
///     text.family("scanpick_station_sent_total", .counter, "Actions the server confirmed.")
///     text.sample("scanpick_station_sent_total", value: 12)
///     return HTTPResponse(status: 200, headers: [("Content-Type", PrometheusText.contentType)], body: text.bytes)
public struct PrometheusText: Sendable {
    /// The `Content-Type` of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The kind of a metric family.
    public enum Kind: String, Sendable {
        case counter
        case gauge
        case histogram
    }

    private var text = ""

    public init() {}

    /// The text so far.
    public var string: String { text }
    public var bytes: [UInt8] { Array(text.utf8) }

    /// Starts a family: its help (one line) and type.
    public mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        var escaped = ""
        for character in help {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        text += "# HELP \(name) \(escaped)\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// One sample of a counter or gauge.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], value: Double) {
        text += name
        append(labels)
        text += " " + Self.format(value) + "\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], value: UInt64) {
        text += name
        append(labels)
        text += " \(value)\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], value: Int) {
        text += name
        append(labels)
        text += " \(value)\n"
    }

    /// A histogram's samples (the family is `name`): `name_bucket{…,le="…"}` for each bound and
    /// `+Inf`, cumulative, then `name_sum` and `name_count`.
    public mutating func histogram(_ name: String, _ labels: [(String, String)] = [], _ counts: HistogramCounts) {
        let cumulative = counts.cumulative
        for (index, bound) in counts.bounds.enumerated() {
            sample(name + "_bucket", labels + [("le", Self.format(bound))], value: cumulative[index])
        }
        sample(name + "_bucket", labels + [("le", "+Inf")], value: cumulative.last ?? 0)
        sample(name + "_sum", labels, value: counts.sum)
        sample(name + "_count", labels, value: counts.count)
    }

    private mutating func append(_ labels: [(String, String)]) {
        guard !labels.isEmpty else { return }
        text += "{"
        for (index, (name, value)) in labels.enumerated() {
            if index > 0 { text += "," }
            text += name + "=\""
            for character in value {
                switch character {
                case "\\": text += "\\\\"
                case "\"": text += "\\\""
                case "\n": text += "\\n"
                default: text.append(character)
                }
            }
            text += "\""
        }
        text += "}"
    }

    /// A sample value or bound as the format spells it (`+Inf`, `-Inf`, `NaN`, or the number).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
