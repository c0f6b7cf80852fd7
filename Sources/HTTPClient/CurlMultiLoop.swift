import CCurl
import Foundation
import Logging
import PipelineCore

/// The thread that owns a libcurl multi handle and drives every transfer of one lane of a client.
///
/// libcurl handles are not thread-safe, so exactly one thread touches them. Other threads
/// talk to it only through ``submit(_:)``, ``cancel(_:)`` and ``stop()``, which put work in a
/// locked mailbox and wake the thread with `curl_multi_wakeup` (the one libcurl call that is
/// safe from any thread). The thread drains the whole mailbox at once, so under load a
/// wakeup is paid per batch rather than per request.
///
/// `@unchecked Sendable`: `mailbox` is guarded by `lock`; the rest is loop-thread only.
final class CurlMultiLoop: @unchecked Sendable {
    private enum RunState {
        case running
        /// Asked to stop; the thread has not yet failed the remaining transfers.
        case stopping
        /// The thread has ended and the multi handle is gone.
        case stopped
    }

    private struct Mailbox {
        var state = RunState.running
        var submissions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
        /// A wakeup has been sent and the thread has not drained the mailbox since.
        var wakeupPending = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let lock = NSLock()
    private var mailbox = Mailbox()

    // MARK: Loop thread only (and `init`, before the thread starts)

    /// The `CURLM *`.
    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlHTTPClient.Configuration
    private let logger: Logger
    /// Transfers in the multi handle; they keep the transfers alive while libcurl holds
    /// unretained pointers to them.
    private var active: [CurlTransfer] = []
    /// Easy handles ready for reuse.
    private var idleHandles: [CurlEasyHandle] = []
    private let maxIdleHandles: Int

    /// Creates the multi handle; call ``start()`` to run the thread.
    init(configuration: CurlHTTPClient.Configuration, logger: Logger) throws(HTTPClientError) {
        guard CurlGlobal.initResult == CURLE_OK else {
            throw HTTPClientError(curl: CurlGlobal.initResult, detail: "curl_global_init failed")
        }
        guard let multi = curl_multi_init() else {
            throw HTTPClientError(.invalidConfiguration, message: "curl_multi_init failed")
        }
        let options: [(CURLMoption, Int)] = [
            (CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections),
            (CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost),
            // The keep-alive cache: idle connections kept for the next request to the same host.
            (CURLMOPT_MAXCONNECTS, configuration.maxConnections),
            // HTTP/2 streams share a connection (libcurl's default since 7.62, stated here
            // since the validator's thousands of verifications in flight depend on it).
            (CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)),
        ]
        for (option, value) in options where iap_curl_multi_setopt_long(multi, option, value) != CURLM_OK {
            curl_multi_cleanup(multi)
            throw HTTPClientError(
                .invalidConfiguration,
                message: "curl_multi_setopt(\(option.rawValue)) refused \(value)"
            )
        }
        self.multi = multi
        self.configuration = configuration
        self.logger = logger
        self.maxIdleHandles = configuration.maxConnections
    }

    /// Starts the loop thread. The thread keeps `self` alive until it ends.
    func start() {
        Thread(named: "iap-curl-multi") { [self] in self.run() }.start()
    }

    // MARK: Mailbox (any thread)

    /// Hands a transfer to the loop.
    /// - Returns: `false` if the loop is stopping or stopped; the caller then still owns the
    ///   transfer's completion and must call it.
    func submit(_ transfer: CurlTransfer) -> Bool {
        self.lock.lock()
        defer { self.lock.unlock() }
        guard case .running = self.mailbox.state else { return false }
        self.mailbox.submissions.append(transfer)
        self.wakeLocked()
        return true
    }

    /// Asks the loop to abandon a transfer and complete it with ``HTTPClientError/Code/cancelled``.
    /// Does nothing if the transfer has finished (or finishes first).
    func cancel(_ transfer: CurlTransfer) {
        self.lock.lock()
        defer { self.lock.unlock() }
        guard case .running = self.mailbox.state else { return }
        self.mailbox.cancellations.append(transfer)
        self.wakeLocked()
    }

    /// Asks the thread to stop without waiting for it, as `deinit` must.
    func requestStop() {
        self.lock.lock()
        defer { self.lock.unlock() }
        if case .running = self.mailbox.state {
            self.mailbox.state = .stopping
            self.wakeLocked()
        }
    }

    /// Stops the thread and returns once it has failed every transfer with
    /// ``HTTPClientError/Code/shutdown`` and freed the multi handle.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            self.lock.lock()
            if case .stopped = self.mailbox.state {
                self.lock.unlock()
                continuation.resume()
                return
            }
            self.mailbox.stopWaiters.append(continuation)
            if case .running = self.mailbox.state {
                self.mailbox.state = .stopping
                self.wakeLocked()
            }
            self.lock.unlock()
        }
    }

    /// Wakes the thread unless a wakeup is already on its way. Must hold `lock`, which also
    /// guarantees the multi handle still exists (it is freed only after `.stopped` is set).
    private func wakeLocked() {
        guard !self.mailbox.wakeupPending else { return }
        self.mailbox.wakeupPending = true
        curl_multi_wakeup(self.multi)
    }

    // MARK: The loop

    private func run() {
        self.logger.debug("curl multi loop started")
        var submissions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
        var failure: HTTPClientError?

        while true {
            self.lock.lock()
            swap(&submissions, &self.mailbox.submissions)
            swap(&cancellations, &self.mailbox.cancellations)
            self.mailbox.wakeupPending = false
            let stopping = self.mailbox.state != .running
            self.lock.unlock()
            if stopping { break }

            // Cancellations first, so a transfer cancelled before it arrived is never started.
            for transfer in cancellations {
                self.abandon(transfer)
            }
            cancellations.removeAll(keepingCapacity: true)
            for transfer in submissions {
                self.begin(transfer)
            }
            submissions.removeAll(keepingCapacity: true)

            var running: Int32 = 0
            let performed = curl_multi_perform(self.multi, &running)
            if performed != CURLM_OK {
                self.logger.error("curl_multi_perform failed", metadata: ["error": "\(Self.describe(performed))"])
            }
            self.collectFinished()

            // Waits for socket activity, libcurl's next timer, or a wakeup; libcurl shortens
            // the 1 s to its own next deadline.
            let polled = curl_multi_poll(self.multi, nil, 0, 1000, nil)
            if polled != CURLM_OK {
                self.logger.error("curl_multi_poll failed", metadata: ["error": "\(Self.describe(polled))"])
                failure = HTTPClientError(.transport, message: "curl_multi_poll failed: \(Self.describe(polled))")
                break
            }
        }
        self.finishAll(leftover: submissions, failure: failure)
    }

    /// Adds a transfer to the multi handle, or finishes it at once if that cannot be done.
    private func begin(_ transfer: CurlTransfer) {
        if transfer.cancelRequested {
            transfer.finish(.failure(HTTPClientError(.cancelled, message: "the task was cancelled")))
            return
        }
        guard let easy = self.idleHandles.popLast() ?? CurlEasyHandle() else {
            transfer.finish(.failure(HTTPClientError(.transport, message: "curl_easy_init failed")))
            return
        }
        if let error = easy.prepare(transfer, configuration: self.configuration) {
            self.recycle(easy)
            transfer.finish(.failure(error))
            return
        }
        let added = curl_multi_add_handle(self.multi, easy.raw)
        guard added == CURLM_OK else {
            self.recycle(easy)
            transfer.finish(
                .failure(HTTPClientError(.transport, message: "curl_multi_add_handle: \(Self.describe(added))"))
            )
            return
        }
        transfer.state = .active
        transfer.easy = easy
        transfer.activeIndex = self.active.count
        self.active.append(transfer)
    }

    /// Handles a cancellation from the mailbox.
    private func abandon(_ transfer: CurlTransfer) {
        switch transfer.state {
        case .new:
            transfer.cancelRequested = true
        case .active:
            self.detach(transfer)
            transfer.finish(.failure(HTTPClientError(.cancelled, message: "the task was cancelled")))
        case .finished:
            break
        }
    }

    /// Finishes every transfer libcurl reports done.
    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(self.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easyHandle = message.pointee.easy_handle else { continue }
            let result = message.pointee.data.result
            var context: UnsafeMutableRawPointer?
            _ = iap_curl_easy_getinfo_ptr(easyHandle, CURLINFO_PRIVATE, &context)
            guard let context else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            guard let easy = transfer.easy else { continue }

            let outcome: CurlTransfer.Outcome
            if result == CURLE_OK {
                outcome = .success(
                    HTTPResponse(
                        status: easy.responseCode,
                        headers: transfer.responseHeaders,
                        body: transfer.responseBody,
                        version: easy.responseVersion
                    )
                )
            } else if transfer.responseTooLarge {
                outcome = .failure(
                    HTTPClientError(
                        .responseTooLarge,
                        message: "response body exceeds \(self.configuration.maxResponseBodySize) bytes"
                    )
                )
            } else {
                outcome = .failure(HTTPClientError(curl: result, detail: easy.errorMessage))
            }
            // Drop the transfer's references so the response owns its arrays uniquely.
            transfer.responseHeaders = []
            transfer.responseBody = []
            self.detach(transfer)
            transfer.finish(outcome)
        }
    }

    /// Takes an active transfer out of the multi handle and returns its easy handle to the pool.
    private func detach(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy else { return }
        curl_multi_remove_handle(self.multi, easy.raw)
        transfer.easy = nil
        let index = transfer.activeIndex
        let last = self.active.removeLast()
        if index < self.active.count {
            self.active[index] = last
            last.activeIndex = index
        }
        transfer.activeIndex = -1
        self.recycle(easy)
    }

    private func recycle(_ easy: CurlEasyHandle) {
        guard self.idleHandles.count < self.maxIdleHandles else { return }
        easy.reset()
        self.idleHandles.append(easy)
    }

    /// Ends the thread: fails everything still waiting, frees libcurl state, releases waiters.
    private func finishAll(leftover: [CurlTransfer], failure: HTTPClientError?) {
        self.lock.lock()
        self.mailbox.state = .stopped
        let queued = leftover + self.mailbox.submissions
        self.mailbox.submissions = []
        self.mailbox.cancellations = []
        let waiters = self.mailbox.stopWaiters
        self.mailbox.stopWaiters = []
        self.lock.unlock()

        let error = failure ?? HTTPClientError(.shutdown, message: "the HTTP client was shut down")
        for transfer in queued {
            transfer.finish(.failure(error))
        }
        while let transfer = self.active.last {
            self.detach(transfer)
            transfer.finish(.failure(error))
        }
        self.idleHandles.removeAll()
        curl_multi_cleanup(self.multi)
        self.logger.debug("curl multi loop stopped")
        for waiter in waiters {
            waiter.resume()
        }
    }

    private static func describe(_ code: CURLMcode) -> String {
        String(cString: curl_multi_strerror(code))
    }
}
