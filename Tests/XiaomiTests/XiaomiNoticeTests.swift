import Foundation
import StorePlugins
import StubStore
import Testing
import Xiaomi

/// Xiaomi's payment notices as the plug-in reads them: the signature first, in constant time,
/// then each parameter; and the answers in Xiaomi's words.
@Suite struct XiaomiNoticeTests {
    let stub = StubXiaomi()
    var xiaomi: XiaomiStore {
        XiaomiStore(settings: XiaomiSettings(appID: StubXiaomi.appID, appSecret: StubXiaomi.appSecret))
    }

    func read(_ query: String) async throws(StoreInputError) -> InboundNotification {
        try await xiaomi.notification(InboundRequest(headers: [:], body: [], query: query))
    }

    func refusal(_ query: String) async -> StoreInputError? {
        do {
            _ = try await read(query)
            return nil
        } catch {
            return error
        }
    }

    @Test func aSignedNoticeIsStoredOncePerXiaomisOrderID() async throws {
        let order = stub.pay(
            cpOrderID: "ord-1", uid: "100010", productCode: "coins_100", payFee: 600, cpUserInfo: "player-1")
        let notice = try await read(try #require(stub.notice(cpOrderID: "ord-1")))
        #expect(notice.messageID == order.orderID)
        #expect(notice.keyedBy == .messageID && notice.proof == .credential)
        #expect(notice.evidence.store == "xiaomi" && notice.evidence.kind == "notification")
        #expect(XiaomiOrderInfo(payload: notice.evidence.payload) == order)
        #expect(XiaomiStore.identity(namedBy: notice.evidence) == StubXiaomi.appID)
    }

    @Test func aForgedOrAlteredNoticeIsA401() async throws {
        stub.pay(cpOrderID: "ord-2", uid: "100010", productCode: "coins_100", payFee: 600)
        let forged = try #require(stub.notice(cpOrderID: "ord-2", forged: true))
        #expect(await refusal(forged)?.status == 401)
        let genuine = try #require(stub.notice(cpOrderID: "ord-2"))
        let dearer = genuine.replacingOccurrences(of: "payFee=600", with: "payFee=60000")
        #expect(dearer != genuine)
        #expect(await refusal(dearer)?.code == "unauthorized")
        #expect(await refusal(genuine + "&extra=1")?.status == 401, "a parameter added is not what Xiaomi signed")
        let unsigned = genuine.split(separator: "&").filter { !$0.hasPrefix("signature=") }.joined(separator: "&")
        #expect(await refusal(unsigned)?.status == 401)
    }

    @Test func anotherAppsNoticeIsA401NamingItsApp() async throws {
        stub.pay(cpOrderID: "ord-3", uid: "100010", productCode: "coins_100", payFee: 600)
        let notice = try #require(stub.notice(cpOrderID: "ord-3"))
        let other = XiaomiStore(settings: XiaomiSettings(appID: "2882303761517000000", appSecret: "other-secret"))
        do {
            _ = try await other.notification(InboundRequest(headers: [:], body: [], query: notice))
            Issue.record("another app's notice was taken")
        } catch {
            #expect(error.status == 401 && error.code == "unknown_app")
        }
    }

    @Test func aSignedNoticeWithAParameterAtFaultIsA400NamingIt() async throws {
        var parameters = [
            "appId": StubXiaomi.appID, "cpOrderId": "ord-4", "uid": "100010", "orderId": "2100001",
            "orderStatus": "TRADE_SUCCESS", "payFee": "six", "productCode": "coins_100", "productCount": "1",
            "payTime": "2024-11-07 13:56:00",
        ]
        func query(_ p: [String: String]) -> String { StubXiaomi.notice(p) }
        #expect(await refusal(query(parameters))?.member == "xiaomi_notice.payFee")
        parameters["payFee"] = "600"
        parameters["payTime"] = "2024-13-07 13:56:00"
        #expect(await refusal(query(parameters))?.member == "xiaomi_notice.payTime")
        parameters["payTime"] = "2024-11-07 13:56:00"
        parameters["cpOrderId"] = nil
        let missing = await refusal(query(parameters))
        #expect(missing?.status == 400 && missing?.member == "xiaomi_notice.cpOrderId")
        parameters["cpOrderId"] = "ord-4"
        #expect(await refusal(query(parameters)) == nil)
        #expect(await refusal(query(parameters) + "&uid=100011")?.code == "invalid_query", "a name given twice")
        #expect(await refusal("")?.code == "missing_field")
        #expect(await refusal("appId=%zz")?.code == "invalid_query")
    }

    @Test func xiaomiIsAnsweredInItsOwnWords() {
        let store = xiaomi
        #expect(store.notificationRoute.method == .get)
        #expect(store.reply(to: .stored(id: "n-1")) == NotificationReply(status: 200, body: #"{"errcode":200}"#))
        #expect(store.reply(to: .dropped)?.body == #"{"errcode":200}"#)
        let forged = store.reply(to: .refused(status: 401, code: "unauthorized", message: "no"))
        #expect(forged == NotificationReply(status: 401, body: #"{"errcode":1525,"errMsg":"unauthorized"}"#))
        #expect(
            store.reply(to: .refused(status: 401, code: "unknown_app", message: "no"))?.body.contains("1515") == true)
        let noOrder = store.reply(
            to: .refused(status: 400, code: "missing_field", message: "", field: "xiaomi_notice.cpOrderId"))
        #expect(noOrder?.body.contains("1506") == true)
        #expect(
            store.reply(to: .refused(status: 400, code: "invalid_field", message: ""))?.body.contains("3515") == true)
        let down = store.reply(to: .refused(status: 503, code: "unavailable", message: ""))
        #expect(down?.status == 503 && down?.body.contains("200") == false)
    }
}
