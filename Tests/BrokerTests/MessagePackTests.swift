import Broker
import Foundation
import Testing

/// How receipts' messages are packed and read back, without a broker.
@Suite struct MessagePackTests {
    func message(_ id: String, body: String? = nil, headers: [String: AMQPValue] = [:]) -> OutgoingMessage {
        OutgoingMessage(
            exchange: "work", routingKey: "validate", body: Array((body ?? #"{"receipt_id":"\#(id)"}"#).utf8),
            properties: MessageProperties(messageID: id, type: "submission", headers: headers))
    }

    func same(_ a: OutgoingMessage?, _ b: OutgoingMessage) -> Bool {
        guard let a else { return false }
        return a.body == b.body && a.properties == b.properties && a.exchange == b.exchange
            && a.routingKey == b.routingKey
    }

    @Test func aSingleMessageTravelsAsItWas() {
        let alone = message("r-0", headers: ["traceparent": "00-a-b-01"])
        let packed = MessagePack.pack([alone])
        #expect(packed.count == 1 && packed[0].ids == ["r-0"])
        #expect(same(packed[0].message, alone))
        let parts = MessagePack.unpack(body: alone.body, properties: alone.properties)
        #expect(parts?.count == 1 && parts?[0].body == alone.body && parts?[0].properties == alone.properties)
        #expect(MessagePack.count(alone.properties) == 1)
    }

    @Test func manyAreSplitIntoPacksOfAtMostTheLimit_andALastOneGoesUnpacked() {
        let messages = (0..<70).map { message("r-\($0)") }
        #expect(MessagePack.pack(messages).map(\.ids.count) == [32, 32, 6])
        #expect(MessagePack.pack(Array(messages.prefix(33))).map(\.ids.count) == [32, 1])
        #expect(same(MessagePack.pack(Array(messages.prefix(33))).last?.message, messages[32]))
        #expect(MessagePack.pack([]).isEmpty)
    }

    @Test func largePartsGoFewerToAPack_andOneLargerThanTheLimitGoesUnpacked() {
        let body = #"{"receipt_data":""# + String(repeating: "A", count: 300_000) + #""}"#
        let large = (0..<7).map { message("r-\($0)", body: body) }
        // About 1 MiB a pack: three of 300 KB, not four
        #expect(MessagePack.pack(large).map(\.ids.count) == [3, 3, 1])
        let huge = message("r-huge", body: #"{"receipt_data":""# + String(repeating: "A", count: 1_100_000) + #""}"#)
        let mixed = MessagePack.pack([message("r-a"), huge, message("r-b"), message("r-c")])
        #expect(mixed.map(\.ids) == [["r-a"], ["r-huge"], ["r-b", "r-c"]])
        #expect(mixed[1].message.properties.messageID == "r-huge")
    }

    @Test func eachPartReadsBackAsTheMessageItWas() throws {
        let messages = [
            message("r-0", headers: ["x-iap-submitted-at": .int(7)]),
            message(
                "r-1", body: #" { "a" : "], [{\"quoted\"}", "b": [1, {"c": null}] } "#, headers: ["traceparent": "t1"]),
            message("r-2", body: #""just \\ a string""#),
        ]
        let packed = try #require(MessagePack.pack(messages).first)
        #expect(packed.ids == ["r-0", "r-1", "r-2"])
        #expect(packed.message.properties.messageID == nil)
        #expect(MessagePack.count(packed.message.properties) == 3)
        // The broker's headers on the pack (a death, say) reach every part; a part's own win.
        var properties = packed.message.properties
        properties.headers["x-death"] = .array([.table(["queue": "validate", "reason": "rejected"])])
        properties.headers["traceparent"] = "pack's own"
        let parts = try #require(MessagePack.unpack(body: packed.message.body, properties: properties))
        #expect(parts.count == 3)
        for (part, original) in zip(parts, messages) {
            let written = String(decoding: original.body, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            #expect(String(decoding: part.body, as: UTF8.self) == written)
            #expect(part.properties.messageID == original.properties.messageID)
            #expect(part.properties.type == "submission")
            #expect(part.properties.deaths.first?.reason == "rejected")
            #expect(part.properties.headers[MessagePack.partIDsHeader] == nil)
            #expect(part.properties.headers[MessagePack.partHeadersHeader] == nil)
        }
        #expect(parts[0].properties.headers["x-iap-submitted-at"] == .int(7))
        #expect(parts[1].properties.headers["traceparent"] == "t1")
        #expect(parts[2].properties.headers["traceparent"] == "pack's own")
    }

    @Test func aPackWhoseBodyAndHeadersDisagreeCannotBeRead() throws {
        let packed = try #require(MessagePack.pack([message("r-0"), message("r-1")]).first?.message)
        let bodies = ["[]", "[{},]", "[{}", "{}", "[{}] trailing", "[{}]]", "[{\"a\": \"]\"}", "garbage", "", "[,{}]"]
        for body in bodies {
            #expect(MessagePack.unpack(body: Array(body.utf8), properties: packed.properties) == nil, "\(body)")
        }
        #expect(MessagePack.unpack(body: Array("[{}, {}, {}]".utf8), properties: packed.properties) == nil)
        #expect(MessagePack.unpack(body: Array("\n[ {} ,\t{} ]\n".utf8), properties: packed.properties)?.count == 2)
        var missing = packed.properties
        missing.headers[MessagePack.partHeadersHeader] = nil
        #expect(MessagePack.unpack(body: packed.body, properties: missing) == nil)
    }
}
