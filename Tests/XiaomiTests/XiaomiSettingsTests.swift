import PipelineCore
import Testing
import Xiaomi

/// Xiaomi's settings as the environment gives them: off without an app id, and a bad value
/// named by its variable at start, the secret never quoted.
@Suite struct XiaomiSettingsTests {
    func settings(_ variables: [String: String]) throws(SettingError) -> XiaomiSettings? {
        try XiaomiSettings(environment: EnvironmentReader(variables))
    }

    func refusal(_ variables: [String: String]) -> SettingError? {
        do {
            _ = try settings(variables)
            return nil
        } catch {
            return error
        }
    }

    @Test func withoutAnAppIdXiaomiIsOff() throws {
        #expect(try settings([:]) == nil)
        #expect(try settings(["IAP_XIAOMI_APP_SECRET": "a-secret-of-some-length"]) == nil)
    }

    @Test func theStoresDefaultsAndTheOperatorsValuesAreRead() throws {
        let plain = try #require(
            try settings([
                "IAP_XIAOMI_APP_ID": "2882303761517239138", "IAP_XIAOMI_APP_SECRET": "dHmP6N7Sf+1ixRoMbJgS4w==",
            ]))
        #expect(plain.queryURL == XiaomiSettings.defaultQueryURL && plain.callsPerSecond == 20)
        let chosen = try #require(
            try settings([
                "IAP_XIAOMI_APP_ID": "2882303761517239138", "IAP_XIAOMI_APP_SECRET": "dHmP6N7Sf+1ixRoMbJgS4w==",
                "IAP_XIAOMI_QUERY_URL": "http://127.0.0.1:8090/xiaomi/api/biz/service/queryOrder.do",
                "IAP_XIAOMI_CALLS_PER_SECOND": "5",
            ]))
        #expect(chosen.queryURL.hasPrefix("http://127.0.0.1:8090/") && chosen.callsPerSecond == 5)
    }

    @Test func aBadValueIsRefusedNamingItsVariableNeverTheSecret() {
        let secret = "dHmP6N7Sf+1ixRoMbJgS4w=="
        let id = "2882303761517239138"
        #expect(
            refusal(["IAP_XIAOMI_APP_ID": "com.example.game", "IAP_XIAOMI_APP_SECRET": secret])?.variable
                == "IAP_XIAOMI_APP_ID")
        #expect(refusal(["IAP_XIAOMI_APP_ID": id])?.variable == "IAP_XIAOMI_APP_SECRET")
        let short = refusal(["IAP_XIAOMI_APP_ID": id, "IAP_XIAOMI_APP_SECRET": "s3cret"])
        #expect(short?.variable == "IAP_XIAOMI_APP_SECRET" && short?.description.contains("s3cret") == false)
        #expect(
            refusal(["IAP_XIAOMI_APP_ID": id, "IAP_XIAOMI_APP_SECRET": secret, "IAP_XIAOMI_QUERY_URL": "ftp://x"])?
                .variable == "IAP_XIAOMI_QUERY_URL")
        #expect(
            refusal(["IAP_XIAOMI_APP_ID": id, "IAP_XIAOMI_APP_SECRET": secret, "IAP_XIAOMI_CALLS_PER_SECOND": "0"])?
                .variable == XiaomiSettings.callsVariable)
    }
}
