import Testing

@testable import Broker

@Suite struct AMQPConfigurationTests {
    @Test func parsesEveryPartOfTheURL() throws {
        let config = try AMQPConfiguration(url: "amqp://app:s%40cret@broker.internal:5673/prod%2Fiap?heartbeat=30")
        #expect(config.nodes == [AMQPNode(host: "broker.internal", port: 5673)])
        #expect(config.user == "app")
        #expect(config.password == "s@cret")
        #expect(config.vhost == "prod/iap")
        #expect(config.heartbeat == 30)
    }

    @Test func emptyPathIsTheDefaultVhost() throws {
        #expect(try AMQPConfiguration(url: "amqp://guest:guest@127.0.0.1:5672/").vhost == "/")
        #expect(try AMQPConfiguration(url: "amqp://127.0.0.1").nodes[0].port == 5672)
    }

    @Test(arguments: [
        "not a url", "http://127.0.0.1:5672/", "amqp://", "amqp://host:99999/", "amqp://host/a/b",
        "amqp://host/?heartbeat=abc", "amqp://host/?frobnicate=1", "amqps://host/",
    ])
    func rejectsMalformedURLs(url: String) {
        #expect(throws: AMQPURLError.self) { try AMQPConfiguration(url: url) }
    }

    @Test func errorsNeverEchoThePassword() {
        do {
            _ = try AMQPConfiguration(url: "amqp://user:hunter2@host:99999/")
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
        let config = try? AMQPConfiguration(url: "amqp://user:hunter2@host/")
        #expect(config?.redactedURL.contains("hunter2") == false)
    }
}
