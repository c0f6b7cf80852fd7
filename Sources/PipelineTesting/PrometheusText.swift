import Foundation

/// A strict reader of the Prometheus text exposition format (version 0.0.4), for tests
/// that check what `/metrics` serves: a line that a Prometheus server would refuse throws.
///
/// ```swift
/// let metrics = try PrometheusText(parsing: body)
/// #expect(metrics.value("iap_receipts_credited_total") == 20)
/// ```
public struct PrometheusText: Sendable {
    public struct Sample: Hashable, Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Family: Sendable {
        public var name: String
        public var type: String
        public var samples: [Sample]
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let problem: String
        public var description: String { "line \(line): \(problem)" }
    }

    /// Families by name, in the order they appeared.
    public private(set) var families: [String: Family] = [:]

    public init(parsing text: String) throws {
        var types: [String: String] = [:]
        var finished: Set<String> = []
        var current: String?
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            func fail(_ problem: String) -> ParseError { ParseError(line: number, problem: problem) }
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: true)
                guard parts.count >= 3, parts[1] == "TYPE" || parts[1] == "HELP" else { continue }  // a comment
                let name = String(parts[2])
                guard Self.isMetricName(name) else { throw fail("bad metric name '\(name)'") }
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3])
                    else {
                        throw fail("bad TYPE line")
                    }
                    guard types[name] == nil, families[name] == nil else { throw fail("second TYPE for \(name)") }
                    types[name] = String(parts[3])
                }
                continue
            }
            let sample = try Self.sample(line, fail: fail)
            let family = Self.family(of: sample.name, types: types)
            if current != family {
                guard !finished.contains(family) else { throw fail("samples of \(family) are not together") }
                if let current { finished.insert(current) }
                current = family
            }
            let type = types[family] ?? "untyped"
            switch type {
            case "counter":
                guard sample.name == family || sample.name == family + "_total" else {
                    throw fail("\(sample.name) in counter \(family)")
                }
                guard sample.value >= 0 else { throw fail("negative counter \(sample.name)") }
            case "histogram":
                let suffix = sample.name.dropFirst(family.count)
                guard ["_bucket", "_sum", "_count"].contains(suffix) else {
                    throw fail("\(sample.name) in histogram \(family)")
                }
                if suffix == "_bucket", sample.labels["le"] == nil { throw fail("bucket without le") }
            default:
                break
            }
            families[family, default: Family(name: family, type: type, samples: [])].samples.append(sample)
        }
        for family in families.values where family.type == "histogram" {
            try Self.checkHistogram(family)
        }
    }

    /// The value of the sample `name` whose labels include `labels`, or nil.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples(name).first { sample in labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    /// Every sample called `name`, whatever its family.
    public func samples(_ name: String) -> [Sample] {
        families.values.flatMap(\.samples).filter { $0.name == name }
    }

    // MARK: - Lines

    private static func sample(_ line: Substring, fail: (String) -> ParseError) throws -> Sample {
        var rest = line[...]
        let name = String(rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") })
        guard isMetricName(name) else { throw fail("bad metric name in '\(line)'") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
                guard let first = label.first, !first.isNumber else { throw fail("bad label name") }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw fail("expected =\" after \(label)") }
                rest = rest.dropFirst(2)
                var value = ""
                while true {
                    guard let character = rest.first else { throw fail("unterminated label value") }
                    rest = rest.dropFirst()
                    if character == "\"" { break }
                    if character == "\\" {
                        guard let escaped = rest.first else { throw fail("dangling escape") }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw fail("bad escape \\\(escaped)")
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard labels.updateValue(value, forKey: label) == nil else { throw fail("label \(label) twice") }
                if rest.first == "," {
                    rest = rest.dropFirst()
                } else if rest.first != "}" {
                    throw fail("expected , or }")
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw fail("expected a space before the value") }
        let fields = rest.split(separator: " ")
        guard (1...2).contains(fields.count), let value = number(fields[0]) else {
            throw fail("bad value in '\(line)'")
        }
        if fields.count == 2, Int64(fields[1]) == nil { throw fail("bad timestamp") }
        return Sample(name: name, labels: labels, value: value)
    }

    private static func number(_ text: Substring) -> Double? {
        switch text {
        case "+Inf", "Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default: return Double(text)
        }
    }

    private static func isMetricName(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" || first == ":" else {
            return false
        }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    /// The family a sample belongs to: a histogram's `_bucket`, `_sum` and `_count` belong
    /// to the declared histogram, a counter's `_total` to the declared counter.
    private static func family(of name: String, types: [String: String]) -> String {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count", "_total"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] != nil { return base }
        }
        return name
    }

    /// Buckets cumulative, an `+Inf` bucket equal to `_count`, per label set.
    private static func checkHistogram(_ family: Family) throws {
        var series: [[String: String]: (buckets: [(Double, Double)], count: Double?)] = [:]
        for sample in family.samples {
            var key = sample.labels
            key["le"] = nil
            if sample.name.hasSuffix("_bucket") {
                guard let le = number(Substring(sample.labels["le"]!)) else {
                    throw ParseError(line: 0, problem: "bad le in \(family.name)")
                }
                series[key, default: ([], nil)].buckets.append((le, sample.value))
            } else if sample.name.hasSuffix("_count") {
                series[key, default: ([], nil)].count = sample.value
            }
        }
        for (labels, entry) in series {
            let buckets = entry.buckets.sorted { $0.0 < $1.0 }
            guard let last = buckets.last, last.0 == .infinity else {
                throw ParseError(line: 0, problem: "\(family.name)\(labels) has no +Inf bucket")
            }
            guard zip(buckets, buckets.dropFirst()).allSatisfy({ $0.1 <= $1.1 }) else {
                throw ParseError(line: 0, problem: "\(family.name)\(labels) buckets are not cumulative")
            }
            guard entry.count == last.1 else {
                throw ParseError(line: 0, problem: "\(family.name)\(labels) +Inf bucket differs from _count")
            }
        }
    }
}
