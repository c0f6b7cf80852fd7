import Database
import DeadLetters
import Foundation
import PipelineCore
import Repositories
import SettlementWriter

/// Terminal tables and JSON for `iap dlq`.
enum DlqOutput {
    /// A table with a header row, columns as wide as their widest cell (cut at `maxWidth`).
    static func table(_ header: [String], _ rows: [[String]], maxWidth: Int = 60) -> String {
        let cells = ([header] + rows).map { $0.map { cut($0, maxWidth) } }
        var widths = Array(repeating: 0, count: header.count)
        for row in cells { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        return ([line(cells[0]), rule] + cells.dropFirst().map(line)).joined(separator: "\n")
    }

    static func cut(_ text: String, _ width: Int) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count <= width ? flat : String(flat.prefix(width - 1)) + "…"
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// How long ago, roughly: `42s`, `17m`, `5h`, `3d`.
    static func age(_ date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3600: return "\(seconds / 60)m"
        case ..<86_400: return "\(seconds / 3600)h"
        default: return "\(seconds / 86_400)d"
        }
    }

    /// Pretty, sorted JSON of `object` (JSONSerialization types) on stdout.
    static func printJSON(_ object: Any) throws {
        let data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
    }

    /// A Codable value as a JSONSerialization object (for embedding).
    static func jsonObject(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: WireCoding.encoder().encode(value), options: [.fragmentsAllowed])
    }

    /// A letter for `--json`; with `full`, its body (text when UTF-8) and headers too.
    static func letterJSON(_ letter: DeadLetter, full: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "id": letter.id, "receipt_id": orNull(letter.receiptID), "account_id": orNull(letter.accountID),
            "reason": letter.reason, "attempts": letter.attempts, "last_error": orNull(letter.lastError),
            "source_queue": orNull(letter.sourceQueue), "dead_at": time(letter.deadAt),
            "status": letter.status.rawValue,
            "resolved_by": orNull(letter.resolvedBy), "resolved_reason": orNull(letter.resolvedReason),
            "resolved_at": orNull(letter.resolvedAt.map { time($0) }),
        ]
        if full {
            if let text = String(data: letter.body, encoding: .utf8) {
                object["body"] = text
                object["body_encoding"] = "utf8"
            } else {
                object["body"] = letter.body.base64EncodedString()
                object["body_encoding"] = "base64"
            }
            object["headers"] = (try? JSONSerialization.jsonObject(with: Data(letter.headers.utf8))) ?? [:]
        }
        return object
    }

    /// JSON null for nil.
    static func orNull(_ value: Any?) -> Any { value ?? NSNull() }

    static func groupJSON(_ group: DeadLetterGroup) -> [String: Any] {
        [
            "reason": group.reason, "count": group.count, "first_dead_at": time(group.firstDeadAt),
            "last_dead_at": time(group.lastDeadAt),
        ]
    }

    static func summaryJSON(_ summary: BulkSummary, verb: String) -> [String: Any] {
        [
            verb: summary.done, "failed": summary.failed, "skipped": summary.skipped,
            "failures": summary.failures.map { ["id": $0.id, "error": $0.error] },
        ]
    }
}

/// Progress of a bulk replay or discard on stderr: a bar redrawn in place on a terminal,
/// plain lines (about every 5%) when stderr is a file or a pipe.
struct ProgressReporter {
    let verb: String
    let isTerminal = isatty(STDERR_FILENO) == 1

    func report(_ progress: BulkProgress) {
        let summary = progress.summary
        let counts = "\(verb) \(summary.done), failed \(summary.failed), skipped \(summary.skipped)"
        if isTerminal {
            let width = 30
            let filled = progress.total == 0 ? width : width * progress.handled / progress.total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let end = progress.handled == progress.total ? "\n" : ""
            FileHandle.standardError.write(
                Data("\r\(bar) \(progress.handled)/\(progress.total)  \(counts)\u{1B}[K\(end)".utf8))
        } else {
            let step = max(1, progress.total / 20)
            guard progress.handled % step == 0 || progress.handled == progress.total else { return }
            FileHandle.standardError.write(Data("progress: \(progress.handled)/\(progress.total) (\(counts))\n".utf8))
        }
    }
}
