import Testing

@testable import Broker

/// `IAP_AMQP_URL` naming the nodes of a cluster, comma-separated: entry 1 a full URL, later
/// entries as much of one as they like, agreeing with entry 1 in what they say and taking the
/// rest from it; a bad entry named, its password never.
@Suite struct AMQPURLListTests {
    @Test func aListNamesEveryNodeInOrderWithWhatTheyShare() throws {
        // Given three nodes of one cluster, spaces around the commas
        let config = try AMQPConfiguration(
            url:
                "amqp://app:s%2Ccret@10.0.0.11:5672/prod?heartbeat=2 , amqp://app:s%2Ccret@10.0.0.12:5673/prod?heartbeat=2,"
                + "amqp://app:s%2Ccret@rabbit-3.internal/prod?heartbeat=2")

        // Then each is a node, in the order given, and the rest is the list's
        #expect(
            config.nodes == [
                AMQPNode(host: "10.0.0.11", port: 5672), AMQPNode(host: "10.0.0.12", port: 5673),
                AMQPNode(host: "rabbit-3.internal", port: 5672),
            ])
        #expect(config.user == "app" && config.password == "s,cret" && config.vhost == "prod")
        #expect(config.heartbeat == 2)
        #expect(
            config.redactedURL
                == "amqp://app:***@10.0.0.11:5672/prod,amqp://app:***@10.0.0.12:5673/prod,"
                + "amqp://app:***@rabbit-3.internal:5672/prod")
    }

    @Test func laterEntriesMayNameOnlyTheirNodeAndTakeTheRestFromTheFirst() throws {
        // Given a first entry that says everything and later ones that say less
        let config = try AMQPConfiguration(
            url: "amqp://app:secret@10.0.0.11:5672/prod?heartbeat=2&connection_timeout=800,amqp://10.0.0.12,"
                + "amqp://app@10.0.0.13:5673/prod?heartbeat=2")

        // Then every node shares what the first said
        #expect(
            config.nodes == [
                AMQPNode(host: "10.0.0.11"), AMQPNode(host: "10.0.0.12"), AMQPNode(host: "10.0.0.13", port: 5673),
            ])
        #expect(config.user == "app" && config.password == "secret" && config.vhost == "prod")
        #expect(config.heartbeat == 2 && config.connectTimeout == .milliseconds(800))
    }

    @Test func aFirstEntryWithoutCredentialsMeansGuestForEveryNode() throws {
        let config = try AMQPConfiguration(url: "amqp://10.0.0.11,amqp://guest:guest@10.0.0.12/")
        #expect(config.user == "guest" && config.password == "guest" && config.vhost == "/")
        #expect(throws: AMQPURLError.self) { try AMQPConfiguration(url: "amqp://10.0.0.11,amqp://app:x@10.0.0.12/") }
    }

    @Test func oneURLIsAListOfOneNode() throws {
        let config = try AMQPConfiguration(url: AMQPConfiguration.defaultURL)
        #expect(config.nodes == [AMQPNode(host: "127.0.0.1", port: 5672)])
        #expect(config.redactedURL == "amqp://guest:***@127.0.0.1:5672/")
    }

    /// An entry the list cannot use, and what the error must say about it.
    struct Bad: CustomTestStringConvertible, Sendable {
        let list: String
        let position: Int
        let shown: String
        let problem: String
        var testDescription: String { "entry \(position): \(problem)" }
    }

    static let good = "amqp://app:hunter2@10.0.0.11:5672/"
    static let bad: [Bad] = [
        Bad(
            list: "\(good),amqp://app:hunter2@10.0.0.12:99999/", position: 2,
            shown: "amqp://app:***@10.0.0.12:99999/", problem: "port 99999 is out of range"),
        Bad(
            list: "\(good),http://app:hunter2@10.0.0.12/", position: 2, shown: "http://app:***@10.0.0.12/",
            problem: "the scheme must be amqp://"),
        Bad(
            list: "\(good),,amqp://app:hunter2@10.0.0.13/", position: 2, shown: "", problem: "empty"),
        Bad(list: "\(good),", position: 2, shown: "", problem: "empty"),
        Bad(
            list: "\(good),amqp://app:other-secret@10.0.0.12/", position: 2, shown: "amqp://app:***@10.0.0.12/",
            problem: "its password differs from entry 1's"),
        Bad(
            list: "\(good),amqp://ops:hunter2@10.0.0.12/", position: 2, shown: "amqp://ops:***@10.0.0.12/",
            problem: "its user differs"),
        Bad(
            list: "\(good),amqp://app:hunter2@10.0.0.12/other", position: 2,
            shown: "amqp://app:***@10.0.0.12/other", problem: "its vhost differs"),
        Bad(
            list: "\(good),amqp://app:hunter2@10.0.0.12/?heartbeat=3", position: 2,
            shown: "amqp://app:***@10.0.0.12/?heartbeat=3", problem: "its heartbeat differs"),
        Bad(
            list: "\(good),amqp://app:hunter2@10.0.0.11:5672", position: 2, shown: "amqp://app:***@10.0.0.11:5672",
            problem: "it names 10.0.0.11:5672 again, as entry 1 does"),
        // A password with characters a URL must escape, written raw: masked to the last @.
        Bad(
            list: "\(good),amqp://app:hun/ter@2@10.0.0.12/,amqp://app:hunter2@10.0.0.13/", position: 2,
            shown: "amqp://app:***@10.0.0.12/", problem: ""),
        // The @host forgotten: what follows the user's colon is not a port, so it is masked.
        Bad(list: "amqp://app:hunter2", position: 1, shown: "amqp://app:***", problem: ""),
        // A raw comma in a password splits it: the tail is masked to its @.
        Bad(list: "amqp://app:12,hunter2@10.0.0.12/", position: 2, shown: "***@10.0.0.12/", problem: "no scheme"),
        Bad(list: "\(good),amqp://app:hunter2/", position: 2, shown: "amqp://app:***/", problem: ""),
    ]

    @Test(arguments: bad)
    func aMalformedEntryIsNamedByPlaceWithItsPasswordMasked(_ bad: Bad) {
        do {
            let config = try AMQPConfiguration(url: bad.list)
            Issue.record("accepted \(config.redactedURL)")
        } catch {
            #expect(error.position == bad.position)
            #expect(error.entry == bad.shown)
            #expect(bad.problem.isEmpty || error.problem.contains(bad.problem), "\(error.problem)")
            #expect(!error.description.contains("hunter2") && !error.description.contains("other-secret"))
            #expect(!error.description.contains("hun/ter"))
            let count = bad.list.split(separator: ",", omittingEmptySubsequences: false).count
            #expect(error.description.hasPrefix(count > 1 ? "entry \(bad.position) of \(count), '" : "'"))
        }
    }

    @Test(arguments: [
        ("amqp://u:p@h/", "amqp://u:***@h/"), ("u:p@h", "***@h"), ("amqp://u@h/", "amqp://u@h/"),
        ("amqp://h:5672/x", "amqp://h:5672/x"), ("amqp://u:p%40@h:1/v?heartbeat=2", "amqp://u:***@h:1/v?heartbeat=2"),
        ("amqp://u:p@h/v@x", "amqp://u:***@x"), ("no url at all", "no url at all"),
    ])
    func redactionMasksEverythingThatMayBeAPassword(text: String, shown: String) {
        #expect(AMQPURL.redact(text) == shown)
    }
}
