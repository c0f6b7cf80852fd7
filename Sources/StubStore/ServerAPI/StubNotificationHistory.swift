import AppStore
import Foundation
import Synchronization

/// Every App Store Server Notification the stub sent, or tried to, with how each attempt
/// went: what Get Notification History lists. A notification the receiver never answered
/// 200 is a failure, as Apple counts it.
public final class StubNotificationHistory: Sendable {
    public struct Entry: Hashable, Sendable {
        public var signedPayload: String
        public var environment: StubReceipt.Environment
        public var attempts: [SendAttemptItem]
        /// Delivered: an attempt was answered 200.
        public var succeeded: Bool { attempts.contains { $0.sendAttemptResult == "SUCCESS" } }
        /// When it was first sent: the date the history's window filters on.
        public var firstAttempt: Int64 { attempts.first?.attemptDate ?? 0 }
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    /// Notes an attempt to deliver `signedPayload`: `status` is the receiver's answer, or
    /// nil when none came.
    public func record(
        _ signedPayload: String, environment: StubReceipt.Environment, status: Int?, at date: Date = Date()
    ) {
        let result =
            switch status {
            case 200: "SUCCESS"
            case .some: "UNSUCCESSFUL_HTTP_RESPONSE_CODE"
            case nil: "NO_RESPONSE"
            }
        let attempt = SendAttemptItem(
            attemptDate: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)), sendAttemptResult: result)
        entries.withLock { entries in
            if let index = entries.firstIndex(where: { $0.signedPayload == signedPayload }) {
                entries[index].attempts.append(attempt)
            } else {
                entries.append(Entry(signedPayload: signedPayload, environment: environment, attempts: [attempt]))
            }
        }
    }

    /// The notifications first sent in `request`'s window, oldest first.
    func list(_ request: NotificationHistoryRequest, at environment: StubReceipt.Environment) -> [Entry] {
        entries.withLock { entries in
            entries.filter { entry in
                entry.environment == environment && (request.startDate..<request.endDate).contains(entry.firstAttempt)
                    && (request.onlyFailures != true || !entry.succeeded)
            }
        }
    }
}
