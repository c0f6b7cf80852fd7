// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

/// Products named by several targets.
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let hummingbirdTesting = Target.Dependency.product(name: "HummingbirdTesting", package: "hummingbird")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let cryptoExtras = Target.Dependency.product(name: "CryptoExtras", package: "swift-crypto")

let package = Package(
    name: "iap-pipeline",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "iap", targets: ["iap"]),
        .executable(name: "iap-lab", targets: ["iap-lab"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Traces: the API every stage uses, and the OTLP/HTTP exporter (gRPC left out: not used, slow to build).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // The apps file (`IAP_APPS`), and docs/openapi.yaml for the route contract test.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // A client generated from docs/openapi.yaml (GeneratedClientTests; swift-otel builds AsyncHTTPClient).
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: C libraries, wrapped thinly and once
        .target(name: "CRabbitMQ", linkerSettings: [.linkedLibrary("rabbitmq")]),
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),

        // MARK: Foundation of every stage
        .target(name: "PipelineCore", dependencies: [logging, crypto]),
        .target(
            name: "Broker",
            dependencies: [
                "CRabbitMQ", "PipelineCore",
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "HTTPClient", dependencies: ["CCurl", "PipelineCore", logging]),
        // The money rules, pure: events in, effects out (no database, no broker, no I/O).
        .target(name: "Settlement", dependencies: ["PipelineCore"]),
        // The schema's one history, SQLite's and PostgreSQL's statements under each version.
        .target(name: "DatabaseSchema"),
        // The one interface to both databases (SQLDatabase, SQLSession), which the backends
        // implement and everything above reads and writes through.
        .target(name: "Database", dependencies: ["PipelineCore", "Settlement"]),
        // What applies the settlement engine's effects: verdicts, operators' adjustments, dead
        // letters archived, a store's take-backs, each in one transaction.
        .target(name: "SettlementWriter", dependencies: ["PipelineCore", "Settlement", "Database"]),
        // The repositories each stage reads and writes, over the one interface: no driver. The
        // backends (DatabaseSQLite, DatabasePostgres) are the only modules that import one.
        .target(name: "Repositories", dependencies: ["PipelineCore", "Settlement", "Database", "SettlementWriter"]),
        .target(
            name: "DatabaseSQLite",
            dependencies: [
                "Database", "DatabaseSchema", "PipelineCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"), logging,
            ]
        ),
        .target(
            name: "DatabasePostgres",
            dependencies: [
                "Database", "DatabaseSchema", "PipelineCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),

        // MARK: Metrics, health and readiness for every process
        .target(
            name: "Observability",
            dependencies: [
                "PipelineCore", "Broker",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The OTLP exporter, bootstrapped once for every `iap` command (apart, so stages build without it).
        .target(
            name: "TraceExport",
            dependencies: [
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Apple's protocols and the stub that speaks them
        .target(
            name: "AppStore",
            dependencies: [
                "PipelineCore", "HTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                logging,
            ]
        ),
        .target(
            name: "GooglePlay",
            dependencies: [
                "PipelineCore", "HTTPClient", "StorePlugins", "Database", "Repositories", "SettlementWriter", "Settlement",
                logging,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The seam every store plugs into (Huawei AppGallery, Stripe): evidence, verifier,
        // notifications, confirmations, settings; routed by a registry keyed by store.
        .target(
            name: "StorePlugins",
            dependencies: [
                "PipelineCore", "HTTPClient", "Repositories",
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Stripe's web payments as a plug-in store: signed webhook events, each payment read
        // back from Stripe's API before it is credited.
        .target(
            name: "Stripe",
            dependencies: [
                "PipelineCore", "HTTPClient", "StorePlugins",
                .product(name: "Crypto", package: "swift-crypto"),
                logging,
            ]
        ),
        // Huawei AppGallery's IAP server APIs, as a plug-in store.
        .target(
            name: "Huawei",
            dependencies: [
                "PipelineCore", "HTTPClient", "StorePlugins",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                logging,
            ]
        ),
        // Xiaomi's game payments (小米游戏 SDK) and the Amazon Appstore, as plug-in stores.
        .target(name: "Xiaomi", dependencies: ["PipelineCore", "HTTPClient", "StorePlugins", crypto]),
        .target(name: "Amazon", dependencies: [
            "PipelineCore", "HTTPClient", "StorePlugins", crypto, cryptoExtras, logging,
            product("X509", "swift-certificates"),
        ]),
        .target(
            name: "StubStore",
            dependencies: [
                "PipelineCore", "AppStore", "GooglePlay", "HTTPClient", "Huawei", "Xiaomi", "Amazon",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),

        // The apps one pipeline serves (`IAP_APPS`): read here for every stage that serves apps.
        .target(
            name: "Apps",
            dependencies: ["PipelineCore", .product(name: "Yams", package: "Yams")]
        ),

        // MARK: The stages
        .target(
            name: "Intake",
            dependencies: [
                "PipelineCore", "Apps", "Broker", "Repositories", "Observability", "StorePlugins",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // MARK: Dead-letter review: the archive's operations, and the web console
        .target(name: "DeadLetters", dependencies: ["PipelineCore", "Broker", "Repositories", crypto]),
        .target(
            name: "Console",
            dependencies: [
                "PipelineCore", "Broker", "Repositories", "DeadLetters",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                logging,
            ]
        ),
        .target(
            name: "Validator",
            dependencies: [
                "PipelineCore", "Broker", "Observability",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "Fulfiller",
            dependencies: [
                "PipelineCore", "Broker", "Repositories", "DeadLetters", "Observability", "StorePlugins",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "Scheduler",
            dependencies: [
                "PipelineCore", "Broker", "Repositories",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Notifier",
            dependencies: [
                "PipelineCore", "Apps", "Repositories", "HTTPClient", "Observability",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // MARK: Every stage in one process (`iap up`, end-to-end tests)
        .target(
            name: "Pipeline",
            dependencies: [
                "PipelineCore", "Broker", "Repositories", "HTTPClient", "AppStore", "GooglePlay", "Intake", "Validator",
                "Fulfiller", "StorePlugins", "Stripe", "Huawei", "Xiaomi", "Amazon", "AppleStore",
                "Notifier", "Scheduler", "Console", "DeadLetters", "Observability",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        // Apple in the pipeline: its plug-in and jobs, over Apple's APIs (AppStore).
        .target(
            name: "AppleStore",
            dependencies: [
                "PipelineCore", "AppStore", "StorePlugins", "Database", "Repositories", "SettlementWriter", "Settlement",
                "Observability", "HTTPClient", logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: The command line
        // The product's commands: every stage and the operators' commands, and the settings
        // they read; `iap` is their executable.
        .target(
            name: "IAPCommands",
            dependencies: [
                "DatabaseSchema",
                "PipelineCore", "Broker", "HTTPClient", "Repositories", "DatabaseSQLite", "DatabasePostgres", "AppStore",
                "GooglePlay", "Intake", "Validator", "Notifier", "Pipeline", "DeadLetters", "Console", "StorePlugins",
                "Observability", "AppleStore", "TraceExport", "Apps",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "iap", dependencies: ["IAPCommands"]),
        // The lab, beside the product: the stub stores, the benchmarks and the fault drills
        // that tests, CI and the demo run; it starts `iap` for the stages.
        .executableTarget(
            name: "iap-lab",
            dependencies: [
                "IAPCommands", "PipelineCore", "Broker", "HTTPClient", "Repositories", "DatabaseSQLite", "DatabasePostgres",
                "AppStore", "StubStore", "Intake", "Notifier", "Pipeline", "Drills", "Amazon", "PipelineTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Fault drills (`iap-lab chaos`): child processes, the broker's control, and the judge
        // of a run's promises; the tests share them.
        .target(name: "Drills"),

        // MARK: Tests
        .target(
            name: "PipelineTesting",
            dependencies: [
                "DatabaseSchema",
                "PipelineCore", "Broker", "Repositories", "DatabaseSQLite", "DatabasePostgres", "Settlement", "Drills",
                .product(name: "Hummingbird", package: "hummingbird"),
                logging,
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // One test target per module, `Tests/<Module>Tests` (`tests(_:_:)` below), and the end-to-end suites.
        tests("AppleStoreTests", ["AppleStore", "AppStore", "StubStore"]),
        tests("SettlementTests", ["Settlement", "PipelineTesting", product("PropertyBased", "swift-property-based")]),
        tests("PipelineCoreTests", ["PipelineCore", "PipelineTesting"]),
        tests("BrokerTests", ["Broker", "PipelineTesting", "Drills"]),
        tests("HTTPClientTests", ["HTTPClient", "PipelineTesting", "Drills", product("Hummingbird", "hummingbird")]),
        // What the database's tests share (Fixture, a temporary SQLite file), and their targets.
        .target(name: "DatabaseTesting", dependencies: [
            "DatabaseSchema", "Repositories", "SettlementWriter", "GooglePlay", "DatabaseSQLite", "DatabasePostgres",
            "PipelineTesting",
        ], path: "Tests/DatabaseTesting"),
        // SchemaFixtures: what earlier releases wrote, read by path from the tests (not bundled as resources).
        tests("DatabaseTests", ["Database", "DatabaseTesting"], exclude: ["SchemaFixtures"]),
        tests("DatabaseSchemaTests", ["DatabaseSchema", "DatabaseTesting"]),
        tests("DatabaseSQLiteTests", ["DatabaseSQLite", "DatabaseTesting"]),
        tests("DatabasePostgresTests", ["DatabasePostgres", "DatabaseTesting", "Drills"]),
        tests("RepositoriesTests", ["Repositories", "DatabaseTesting"]),
        tests("SettlementWriterTests", ["SettlementWriter", "DatabaseTesting"]),
        // Apple's test vectors, read by path from the tests (not bundled as resources).
        tests("AppStoreTests", [
            "AppStore", "StubStore", "PipelineTesting", "HTTPClient", product("PropertyBased", "swift-property-based"),
            product("X509", "swift-certificates"),
        ], exclude: ["SignedData/Vectors", "ServerAPI/Vectors", "AppReceipt/Vectors"]),
        // Fuzz targets for every parser of outside input (docs/fuzzing.md).
        tests("FuzzTests", ["AppStore", "StubStore", "GooglePlay", "PipelineTesting", "HTTPClient"]),
        tests("GooglePlayTests", ["GooglePlay", "StubStore", "PipelineTesting", "HTTPClient", logging]),
        tests("StripeTests", ["Stripe", "StorePlugins", "StubStore", "PipelineTesting", "HTTPClient"]),
        tests("HuaweiTests", ["Huawei", "StubStore", "PipelineTesting", "HTTPClient", "Repositories"]),
        tests("XiaomiTests", ["Xiaomi", "StubStore", "PipelineTesting", "HTTPClient", "StorePlugins"]),
        tests("AmazonTests", ["Amazon", "StubStore", "PipelineTesting", "HTTPClient", "StorePlugins", cryptoExtras]),
        tests("StubStoreTests", ["StubStore", "PipelineTesting", hummingbirdTesting]),
        tests("IntakeTests", [
            "DatabaseSQLite", "Intake", "PipelineTesting", "Observability", "AppStore", "AppleStore", "StubStore",
            "GooglePlay", "Huawei", "Stripe", "Xiaomi", "Amazon", "StorePlugins", product("HTTPTypes", "swift-http-types"),
            hummingbirdTesting,
            // A request context with a chosen client address (the loopback has one IPv6 address).
            product("NIOEmbedded", "swift-nio"), product("Yams", "Yams"),
        ]),
        tests("DeadLettersTests", ["DeadLetters", "Broker", "Repositories", "PipelineTesting"]),
        tests("ValidatorTests", ["Validator", "PipelineTesting"]),
        tests("FulfillerTests", ["DatabaseSQLite", "Fulfiller", "PipelineTesting"]),
        tests("NotifierTests", ["DatabaseSQLite", "DatabasePostgres", "Notifier", "PipelineTesting"]),
        tests("ConsoleTests", ["Console", "EndToEndSupport"]), tests("DrillsTests", ["Drills", "PipelineTesting", "DatabaseSQLite", "Repositories", "Broker", logging]),
        tests("SchedulerTests", ["Scheduler", "Pipeline", "StubStore", "PipelineTesting"]),
        tests("ObservabilityTests", [
            "DatabaseSQLite", "Observability", "PipelineTesting", "Repositories",
            product("Prometheus", "swift-prometheus"),
        ]),
        // The spec as a backend's generator takes it (docs/api.md, "Generating a client").
        .testTarget(name: "GeneratedClientTests", dependencies: [
            "Pipeline", "PipelineCore", "PipelineTesting", "DatabaseSQLite", "StubStore", "AppStore", "Intake",
            "Notifier", product("OpenAPIRuntime", "swift-openapi-runtime"), product("HTTPTypes", "swift-http-types"),
            logging, product("OpenAPIAsyncHTTPClient", "swift-openapi-async-http-client"),
            product("ServiceLifecycle", "swift-service-lifecycle"),
        ], plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        // The end-to-end suites, by subject, and what they share: the whole pipeline in one process
        // (PipelineHarness) or as `iap` processes (ProcessPipeline, IAPProcess), a live console, an OTLP receiver.
        .target(name: "EndToEndSupport", dependencies: [
            "DatabaseSchema", "DatabaseSQLite", "DatabasePostgres", "PipelineTesting", "Broker", "Repositories",
            "HTTPClient", "StubStore", "GooglePlay", "Intake", "Validator", "Fulfiller", "Notifier", "AppStore",
            "Pipeline", "Scheduler", "DeadLetters", "Console", "Observability", "AppleStore", "Settlement",
            "StorePlugins", "Huawei", "Stripe", "Xiaomi", "Amazon", "TraceExport", hummingbirdTesting,
            product("Tracing", "swift-distributed-tracing"),
        ], path: "Tests/EndToEndSupport"),
    ] + ["Apps", "IAPCommands", "Pipeline", "StorePlugins", "TraceExport"].map {
        // Modules tested as an operator runs them (`iap` processes) or in a whole pipeline.
        tests("\($0)Tests", [.target(name: $0), "EndToEndSupport"])
    } + ["Apple", "Google", "PluginStores", "Tenancy", "Console", "Processes", "Alone"].map {
        tests("\($0)EndToEndTests", ["EndToEndSupport"])
    }
)

// Every Swift module of ours builds with the same settings (the C wrappers have none).
for target in package.targets where !["CRabbitMQ", "CCurl"].contains(target.name) {
    target.swiftSettings = swiftSettings
}

/// A test target of `Tests/<name>`; `exclude` names what the tests read by path.
func tests(_ name: String, _ dependencies: [Target.Dependency], exclude: [String] = []) -> Target {
    .testTarget(name: name, dependencies: dependencies, exclude: exclude)
}

/// A product of one of the packages above.
func product(_ name: String, _ package: String) -> Target.Dependency { .product(name: name, package: package) }
