import PipelineCore
import Testing

/// How an app's accounts are written (issue 30): the default app's bare, another app's
/// `<app>/<account>`, and each app sees only its own.
@Suite struct AppScopeTests {
    let puzzle = AppScope(app: "puzzle", isDefault: true)
    let racer = AppScope(app: "racer", isDefault: false)

    @Test func eachAppStoresAndShowsItsOwnAccounts() {
        #expect(puzzle.stored("player-1") == "player-1")
        #expect(racer.stored("player-1") == "racer/player-1")
        #expect(puzzle.shown("player-1") == "player-1" && puzzle.shown("racer/player-1") == nil)
        #expect(racer.shown("racer/player-1") == "player-1" && racer.shown("player-1") == nil)
        // A prefix is a whole app id: racer2's accounts are not racer's.
        #expect(racer.shown("racer2/player-1") == nil && racer.shown("racerplayer-1") == nil)
    }

    @Test func theSingleAppSettingsSeeEveryRowAsBefore() {
        #expect(AppScope.single.stored("player-1") == "player-1")
        #expect(AppScope.single.shown("racer/player-1") == "racer/player-1")
    }

    @Test func aStoredIdNamesItsAppAndItsBareAccount() {
        #expect(AppScope.appID(of: "racer/player-1") == "racer" && AppScope.appID(of: "player-1") == nil)
        #expect(AppScope.bare("racer/player-1") == "player-1" && AppScope.bare("player-1") == "player-1")
    }

    @Test func anAccountIsPricedByItsAppsCatalog() {
        let sample = Catalog(products: [])
        let racing = Catalog(products: [], timeZone: "Europe/Paris")
        let catalogs = AppCatalogs(sample, others: ["racer": racing])
        #expect(catalogs.catalog(forAccount: "player-1") == sample)
        #expect(catalogs.catalog(forAccount: "racer/player-1") == racing)
        // An app without a catalog of its own sells what the default app sells.
        #expect(catalogs.catalog(forAccount: "puzzle2/player-1") == sample)
    }

    @Test func anotherAppsIdentityIsRefusedNamingIt() {
        let others = OtherApps(["com.example.racer": "racer"])
        #expect(others.rejection(for: "com.example.racer") == "app_mismatch: belongs to racer")
        #expect(others.rejection(for: "com.thief.app") == nil && others.rejection(for: nil) == nil)
        #expect(OtherApps.none.rejection(for: "com.example.racer") == nil)
    }
}
