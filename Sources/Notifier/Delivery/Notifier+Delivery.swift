import Database
import Foundation
import HTTPClient
import Logging
import Observability
import PipelineCore
import Repositories
import SettlementWriter

/// What became of one delivery attempt.
enum DeliveryOutcome: Hashable, Sendable {
    /// The receiver answered 2xx; the notification is done.
    case delivered
    /// It failed and is due again at this time.
    case retrying(at: Date)
    /// It failed and its attempts are used up.
    case failed
    /// Not sent or not answered because this process is stopping, or its outcome could not
    /// be recorded; the lease brings it back.
    case abandoned
}

extension Notifier {
    /// Sends one notification and records the outcome through `recorder` (batched with
    /// others). Never throws: one bad delivery must not stop the others.
    ///
    /// `answered` runs as soon as the receiver has answered (or the request failed), before
    /// the outcome is committed: a slot limits requests to the receiver, and the lease
    /// keeps the row from being claimed again until its outcome is recorded.
    func deliver(
        _ notification: OutboxWebhook, recorder: OutcomeRecorder, answered: () -> Void = {}
    ) async -> DeliveryOutcome {
        let attempt = notification.attempts + 1
        var logger = self.logger
        logger[metadataKey: "event_id"] = "\(notification.id)"
        logger[metadataKey: "receipt_id"] = "\(notification.receiptID ?? "-")"
        logger[metadataKey: "attempt"] = "\(attempt)"
        let app = AppScope.appID(of: notification.accountID)
        guard let target = endpoint(of: app) else {
            // Never to another app's endpoint: it waits, as every webhook waits without a URL.
            logger.debug("no webhook URL for the app; the lease brings it back", metadata: ["app": "\(app ?? "-")"])
            answered()
            return .abandoned
        }

        let body = Array(notification.body.utf8)
        var request = HTTPRequest(
            method: .post, url: target.url,
            headers: target.signer.headers(id: notification.id, timestamp: now(), body: body),
            body: body, timeout: configuration.requestTimeout)
        let traced = DeliverySpan.start(
            notification, url: target.url, attempt: attempt, request: &request, enabled: tracing)

        let answer: Result<HTTPResponse, HTTPClientError>
        do throws(HTTPClientError) {
            answer = .success(try await client.execute(request))
        } catch {
            answer = .failure(error)
        }
        answered()
        traced?.answered(answer)
        let outcome = await record(answer, of: notification, attempt: attempt, recorder: recorder, logger: logger)
        traced?.end(outcome)
        return outcome
    }

    /// Where the webhooks of `app` (nil: the default app) go, and who signs them.
    private func endpoint(of app: String?) -> (url: String, signer: WebhookSigner)? {
        guard let app else { return configuration.webhookURL.map { ($0, signer) } }
        return apps[app]
    }

    /// Records what came of an attempt; see ``deliver(_:recorder:answered:)``.
    private func record(
        _ answer: Result<HTTPResponse, HTTPClientError>, of notification: OutboxWebhook, attempt: Int,
        recorder: OutcomeRecorder, logger: Logger
    ) async -> DeliveryOutcome {
        let problem: String
        do throws(HTTPClientError) {
            let response = try answer.get()
            if response.isSuccess {
                return await record(logger) {
                    _ = try await recorder.record(DeliveryRecord(id: notification.id, outcome: .delivered, at: now()))
                    PipelineMetrics.webhooksDelivered(app: AppScope.appID(of: notification.accountID)).increment()
                    PipelineMetrics.webhookDeliveryLag.record(
                        .milliseconds(max(0, now().timeIntervalSince(notification.createdAt) * 1000)))
                    logger.debug("webhook delivered", metadata: ["status": "\(response.status)"])
                    return .delivered
                }
            }
            problem = "HTTP \(response.status)"
        } catch  where error.code == .cancelled || error.code == .shutdown {
            // Stopping: not the receiver's fault, so no attempt is spent.
            logger.debug("webhook delivery abandoned, the lease brings it back", metadata: ["error": "\(error)"])
            return .abandoned
        } catch {
            problem = error.description
        }

        let app = AppScope.appID(of: notification.accountID)
        return await record(logger) {
            let failedAt = now()
            let next = configuration.schedule.nextAttempt(afterAttempt: attempt, at: failedAt)
            _ = try await recorder.record(
                DeliveryRecord(id: notification.id, outcome: .failed(error: problem, nextAttemptAt: next), at: failedAt)
            )
            if let next {
                PipelineMetrics.webhooksFailed(app: app, final: false).increment()
                logger.info(
                    "webhook delivery failed, will retry",
                    metadata: ["error": "\(problem)", "next_attempt_at": "\(next)"])
                return .retrying(at: next)
            }
            PipelineMetrics.webhooksFailed(app: app, final: true).increment()
            logger.warning("webhook delivery failed for good, attempts used up", metadata: ["error": "\(problem)"])
            return .failed
        }
    }

    /// Runs an outbox write; a failure is logged and the lease brings the notification back.
    private func record(_ logger: Logger, _ write: () async throws -> DeliveryOutcome) async -> DeliveryOutcome {
        do {
            return try await write()
        } catch {
            logger.warning(
                "could not record the webhook outcome; it is sent again when its lease ends",
                metadata: ["error": "\(error)", "transient": "\(SQLError.isTransient(error))"])
            return .abandoned
        }
    }
}
