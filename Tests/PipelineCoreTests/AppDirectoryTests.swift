import PipelineCore
import Testing

/// How the operator's tools name accounts across apps (issue 30).
@Suite struct AppDirectoryTests {
    let apps = AppDirectory(ids: ["puzzle", "racer"])

    @Test func everyAppsAccountIsNamedWithItsAppAndReadBack() {
        #expect(apps.label("player-1") == "puzzle/player-1" && apps.label("racer/player-1") == "racer/player-1")
        #expect(apps.stored("puzzle/player-1") == "player-1" && apps.stored("racer/player-1") == "racer/player-1")
        #expect(apps.appID(of: "player-1") == "puzzle" && apps.appID(of: "racer/p") == "racer")
        #expect(apps.appID(of: "chess/p") == nil)
        #expect(apps.scope("chess") == nil && apps.scope("default") == nil)
        #expect(apps.scope("racer") == AppScope(app: "racer", isDefault: false))
    }

    @Test func oneAppsViewShowsItsBackendsIdsAndLooksForThePlayerEverywhereElse() throws {
        let scope = try #require(apps.scope("racer"))
        let racer = AccountNaming(apps: apps, scope: scope)
        #expect(racer.name("racer/player-1") == "player-1" && racer.stored("player-1") == "racer/player-1")
        #expect(racer.includes("racer/player-1") && !racer.includes("player-1"))
        #expect(racer.candidates("player-1") == ["racer/player-1", "player-1"])
        let every = AccountNaming(apps: apps)
        #expect(every.candidates("player-1") == ["player-1", "racer/player-1"])
        #expect(every.candidates("racer/player-1") == ["racer/player-1"])
    }

    @Test func theSingleAppSettingsNameNothingNew() {
        let single = AppDirectory.single
        #expect(single.label("player-1") == "player-1" && single.stored("a/b") == "a/b")
        #expect(single.scope("default") == .single && single.scope("puzzle") == nil)
        #expect(AccountNaming(apps: single).candidates("player-1") == ["player-1"])
        #expect(single.appID(of: "player-1") == "default")
    }
}
