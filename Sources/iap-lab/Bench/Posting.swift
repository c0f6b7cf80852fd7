import ArgumentParser
import Foundation
import HTTPClient
import PipelineCore
import Synchronization

/// One run of ``ReceiptLoad``'s posts: each body sent once, the answers taken on the HTTP
/// client's thread, the run over at the last answer or at the first that is not 202.
///
/// A closed loop sends the next body from the answer of the one before. An open loop's
/// schedule is kept by a thread of its own that sleeps until each request is due, with at most
/// `inFlight` unanswered; a request waiting for room still counts its latency from when it was
/// due, so a stall is not hidden.
final class Posting: Sendable {
    typealias Sample = ReceiptLoad.Sample

    private struct State {
        var samples: [Sample] = []
        var failure: (any Error)?
        var waiter: CheckedContinuation<[Sample], any Error>?
    }

    private let count: Int
    private let client: CurlHTTPClient
    private let request: @Sendable (Int) -> HTTPRequest
    private let state = Mutex(State())
    /// The next body a closed loop sends.
    private let next = Atomic<Int>(0)

    /// - Parameter request: the request carrying body `i`.
    init(count: Int, client: CurlHTTPClient, request: @escaping @Sendable (Int) -> HTTPRequest) {
        self.count = count
        self.client = client
        self.request = request
        state.withLock { $0.samples.reserveCapacity(count) }
    }

    /// Sends every body at `pace`; returns each request's sample once all were answered 202.
    /// - Throws: the first failure, a ``PostFailure`` (an answer other than 202, or a post that
    ///   could not be made), or `CancellationError`.
    func run(_ pace: ReceiptLoad.Pace) async throws -> [Sample] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiter in
                let failed = state.withLock { state -> (any Error)? in
                    if state.failure == nil { state.waiter = waiter }
                    return state.failure
                }
                if let failed { return waiter.resume(throwing: failed) }
                guard count > 0 else { return finishIfDone() }
                switch pace {
                case .closed(let clients):
                    for _ in 0..<min(max(clients, 1), count) { sendNext() }
                case .open(let rate, let inFlight):
                    Thread(named: "bench-pacer") { self.keepSchedule(rate: rate, inFlight: max(inFlight, 1)) }.start()
                }
            }
        } onCancel: {
            fail(CancellationError())
        }
    }

    /// Once a post has failed or the run was cancelled, nothing more is sent.
    private var stopped: Bool { state.withLock { $0.failure != nil } }

    /// Closed loop: the next body, if any is left.
    private func sendNext() {
        guard !stopped else { return }
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < count else { return }
        send(index, start: .now) { self.sendNext() }
    }

    /// Open loop: body `i` at `origin + i / rate`, on this thread.
    private func keepSchedule(rate: Double, inFlight: Int) {
        let room = DispatchSemaphore(value: inFlight)
        let origin = ContinuousClock.now
        for index in 0..<count {
            let due = origin + .seconds(Double(index) / rate)
            let wait = due - .now
            if wait > .zero { Thread.sleep(forTimeInterval: wait.seconds) }
            room.wait()
            // The room taken is given back: a semaphore freed below its starting count ends
            // the process (libdispatch), where a failed post must end the run with its error.
            guard !stopped else {
                room.signal()
                return
            }
            send(index, start: due) { room.signal() }
        }
    }

    private func send(_ index: Int, start: ContinuousClock.Instant, then: @escaping @Sendable () -> Void) {
        let post = request(index)
        client.send(post) { outcome in
            switch outcome {
            case .success(let response) where response.status == 202:
                let sample = Sample(
                    receiptID: ReceiptLoad.receiptID(in: response.body) ?? "", start: start, latency: .now - start)
                self.state.withLock { $0.samples.append(sample) }
                self.finishIfDone()
            case .success(let response):
                self.fail(
                    PostFailure("the intake answered \(response.status) to \(post.url): \(response.bodyString)"))
            case .failure(let error):
                self.fail(PostFailure("cannot post to \(post.url) (is the intake running?): \(error)"))
            }
            then()
        }
    }

    private func finishIfDone() {
        let done = state.withLock { state -> (CheckedContinuation<[Sample], any Error>, [Sample])? in
            guard state.samples.count == count, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, state.samples)
        }
        if let (waiter, samples) = done { waiter.resume(returning: samples) }
    }

    private func fail(_ error: any Error) {
        let waiter = state.withLock { state -> CheckedContinuation<[Sample], any Error>? in
            guard state.failure == nil else { return nil }
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }
}

/// A post the load generator could not make, or the intake refused: the run ends with it.
struct PostFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
