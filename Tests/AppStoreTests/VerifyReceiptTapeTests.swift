import Foundation
import PipelineCore
import PipelineTesting
import Testing

@testable import AppStore

/// `VerifyReceiptResponse.decode` reads answers from a `JSONTape` and leaves to `JSONDecoder`
/// what the tape will not judge: on every input it must give what `JSONDecoder` gives.
@Suite struct VerifyReceiptTapeTests {
    @Test func recordedAnswers_areReadByTheTape_asJSONDecoderReadsThem() throws {
        for answer in [
            RecordedAnswers.consumables, RecordedAnswers.subscription, RecordedAnswers.retryableInternalError,
        ] {
            let bytes = Array(answer.utf8)
            let tape = try #require(JSONTape(bytes))
            let fromTape = try VerifyReceiptResponse(tape.root)
            #expect(fromTape == (try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(bytes))))
            #expect(VerifyReceiptResponse.decode(bytes, orWith: JSONDecoder()) == fromTape)
        }
    }

    @Test func randomAnswers_decodeAsJSONDecoderDecodesThem() {
        var random = FuzzRandom(seed: 0x1A9E_2026)
        var answeredByTape = 0
        let count = 4_000
        for round in 0..<count {
            let text = RandomAnswer.make(&random)
            let bytes = Array(text.utf8)
            let expected = try? JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(bytes))
            #expect(VerifyReceiptResponse.decode(bytes, orWith: JSONDecoder()) == expected, "round \(round): \(text)")
            if let tape = JSONTape(bytes), (try? VerifyReceiptResponse(tape.root)) != nil { answeredByTape += 1 }
        }
        // Most answers must take the tape's path, or this compares JSONDecoder with itself.
        #expect(answeredByTape > count / 2, "the tape answered \(answeredByTape) of \(count)")
    }

    private static let jsonBytes = Array(#"{}[]",:\ 0e.-"#.utf8)

    @Test func damagedAnswers_areRefusedOrReadAsJSONDecoderReadsThem() {
        var random = FuzzRandom(seed: 0xDA4A_6ED)
        let recorded = Array(RecordedAnswers.subscription.utf8)
        for round in 0..<3_000 {
            var bytes = recorded
            switch random.below(3) {
            case 0: bytes = Array(bytes.prefix(random.below(bytes.count)))
            case 1: bytes[random.below(bytes.count)] = UInt8.random(in: .min ... .max, using: &random)
            default: bytes.insert(Self.jsonBytes[random.below(Self.jsonBytes.count)], at: random.below(bytes.count))
            }
            let expected = try? JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(bytes))
            #expect(VerifyReceiptResponse.decode(bytes, orWith: JSONDecoder()) == expected, "round \(round)")
        }
    }
}

/// Answers shaped as Apple's, every field drawn from the forms Apple has written and some it
/// has not: strings, numbers as strings with spaces, numbers with fractions and exponents,
/// booleans, nulls, objects where strings belong, escapes, keys given twice, unknown keys.
private enum RandomAnswer {
    static let stringKeys = [
        "transaction_id", "original_transaction_id", "product_id", "cancellation_reason",
        "web_order_line_item_id", "app_account_token", "is_trial_period", "quantity", "purchase_date_ms",
        "original_purchase_date_ms", "expires_date_ms", "cancellation_date_ms",
    ]

    static func make(_ random: inout FuzzRandom) -> String {
        var members: [String] = []
        let status = ["0", "21007", "\"21199\"", "21100"][random.below(4)]
        if !random.oneIn(20) {
            members.append(#""status":"# + (random.oneIn(8) ? scalar(&random, numeric: true) : status))
        }
        for key in ["environment", "is-retryable", "latest_receipt"] where random.oneIn(2) {
            members.append("\"\(key)\":" + scalar(&random, numeric: key == "is-retryable"))
        }
        if !random.oneIn(4) { members.append(#""receipt":"# + receipt(&random)) }
        if random.oneIn(2) { members.append(#""latest_receipt_info":"# + array(&random, of: transaction)) }
        if random.oneIn(3) { members.append(#""pending_renewal_info":"# + array(&random, of: renewal)) }
        return object(members, &random)
    }

    static func receipt(_ random: inout FuzzRandom) -> String {
        if random.oneIn(15) { return scalar(&random, numeric: false) }
        var members = ["bundle_id", "application_version", "receipt_type"].filter { _ in !random.oneIn(3) }
            .map { "\"\($0)\":" + scalar(&random, numeric: false) }
        if !random.oneIn(5) { members.append(#""in_app":"# + array(&random, of: transaction)) }
        return object(members, &random)
    }

    static func transaction(_ random: inout FuzzRandom) -> String {
        if random.oneIn(30) { return scalar(&random, numeric: false) }
        let members = stringKeys.filter { _ in !random.oneIn(3) }.map {
            "\"\($0)\":" + scalar(&random, numeric: $0 == "quantity" || $0.hasSuffix("_ms"))
        }
        return object(members, &random)
    }

    static func renewal(_ random: inout FuzzRandom) -> String {
        let keys = ["original_transaction_id", "product_id", "auto_renew_product_id", "auto_renew_status"]
        return object(
            keys.filter { _ in random.oneIn(2) }.map { "\"\($0)\":" + scalar(&random, numeric: false) }, &random)
    }

    static func array(_ random: inout FuzzRandom, of element: (inout FuzzRandom) -> String) -> String {
        if random.oneIn(20) { return scalar(&random, numeric: false) }
        return "[" + (0..<random.below(4)).map { _ in element(&random) }.joined(separator: ",") + "]"
    }

    /// The members, shuffled, now and then with an unknown one, a key given twice, spaces.
    static func object(_ members: [String], _ random: inout FuzzRandom) -> String {
        var members = members.shuffled(using: &random)
        if random.oneIn(4) { members.append(#""unknown_\#(random.below(3))":"# + scalar(&random, numeric: false)) }
        if random.oneIn(40), let some = members.randomElement(using: &random) { members.append(some) }
        if random.oneIn(60), let some = members.first {
            members[0] = some.replacingOccurrences(of: "_", with: "\\u005f")
        }
        let space = random.oneIn(4) ? " \n" : ""
        return "{" + space + members.joined(separator: "," + space) + space + "}"
    }

    static func scalar(_ random: inout FuzzRandom, numeric: Bool) -> String {
        let number = String(Int64.random(in: -2...1_800_000_000_000, using: &random))
        let forms =
            numeric
            ? [number, "\"\(number)\"", "\" \(number) \"", "\"\(number)x\""]
            : ["\"com.example.item\(random.below(9))\"", "\"Production\"", #""tab\tand \u00e9 \/ \"q\"""#]
        let odd = [
            "null", "true", "false", "\"true\"", "\"FALSE\"", "\"1\"", "0", "1", "1.0", "2e3", "-0",
            "99999999999999999999", "{}", "[1]", #""\ud83d\ude00""#, "\"\u{e9}t\u{e9}\"",
        ]
        return random.oneIn(15) ? odd[random.below(odd.count)] : forms[random.below(forms.count)]
    }
}
