import PipelineCore

// The intake's 202 and 200 answers as `JSONText` writes them: the same bytes as the
// `Encodable` conformance through `WireCoding.encoder()` (keys sorted). `JSONEncoder` was
// 2.6 % of the intake's CPU under `iap-lab bench` for these two members.
// `ReceiptSummaryJSONTests` holds the two to each other.

extension ReceiptSummary: JSONTextValue {
    public func write(into json: inout JSONText) {
        json.object { json in
            json.member("receipt_id", id)
            json.member("status", status.rawValue)
        }
    }
}
