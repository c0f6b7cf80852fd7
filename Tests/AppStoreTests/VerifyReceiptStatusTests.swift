import AppStore
import Testing

/// Every status Apple documents, classified as the pipeline must act on it.
@Suite struct VerifyReceiptStatusTests {
    typealias Action = VerifyReceiptStatus.Action

    static let cases: [(status: Int, isRetryable: Bool?, action: Action)] = [
        (0, nil, .valid),
        (21007, nil, .trySandbox),
        (21008, nil, .tryProduction),
        // Permanent: the receipt will never verify
        (21003, nil, .rejected(reason: "apple_status_21003")),
        (21004, nil, .rejected(reason: "apple_status_21004")),
        (21010, nil, .rejected(reason: "apple_status_21010")),
        (21006, nil, .rejected(reason: "apple_status_21006")),
        // "Try again"
        (21002, nil, .transient(reason: "apple_status_21002")),
        (21005, nil, .transient(reason: "apple_status_21005")),
        (21009, nil, .transient(reason: "apple_status_21009")),
        // 21100-21199 follow is-retryable
        (21100, true, .transient(reason: "apple_status_21100")),
        (21150, true, .transient(reason: "apple_status_21150")),
        (21199, true, .transient(reason: "apple_status_21199")),
        (21100, false, .rejected(reason: "apple_status_21100")),
        (21199, false, .rejected(reason: "apple_status_21199")),
        (21100, nil, .transient(reason: "apple_status_21100")),
        // is-retryable means nothing outside 21100-21199
        (21003, true, .rejected(reason: "apple_status_21003")),
        (21005, false, .transient(reason: "apple_status_21005")),
        // Unknown or retired codes: transient, with the code in the reason
        (21000, nil, .transient(reason: "apple_status_21000")),
        (21001, nil, .transient(reason: "apple_status_21001")),
        (21200, false, .transient(reason: "apple_status_21200")),
        (-1, nil, .transient(reason: "apple_status_-1")),
    ]

    @Test(arguments: cases)
    func action(status: Int, isRetryable: Bool?, expected: Action) {
        #expect(VerifyReceiptStatus(rawValue: status).action(isRetryable: isRetryable) == expected)
    }
}
