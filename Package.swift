// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "iap-pipeline",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "iap", targets: ["iap"])
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
        .target(
            name: "PipelineCore",
            dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "Broker",
            dependencies: [
                "CRabbitMQ", "PipelineCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "HTTPClient", dependencies: ["CCurl", "PipelineCore", .product(name: "Logging", package: "swift-log")]),
        // The money rules, pure: events in, effects out (no database, no broker, no I/O).
        .target(name: "Settlement", dependencies: ["PipelineCore"]),
        // The stores, the settlement writer and the schema, over one seam (SQLDatabase):
        // no driver. The backends are the only modules that import one.
        .target(name: "Store", dependencies: ["PipelineCore", "Settlement"]),
        .target(
            name: "StoreSQLite",
            dependencies: [
                "Store", "PipelineCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "StorePostgres",
            dependencies: [
                "Store", "PipelineCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
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
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: Apple's protocols and the stub that speaks them
        .target(
            name: "AppStore",
            dependencies: [
                "PipelineCore", "HTTPClient", "Store", "StorePlugins",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "GooglePlay",
            dependencies: [
                "PipelineCore", "HTTPClient", "StorePlugins", "Store", "Settlement",
                .product(name: "Logging", package: "swift-log"),
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
                "PipelineCore", "HTTPClient", "Store",
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "StubStore",
            dependencies: [
                "PipelineCore", "AppStore", "GooglePlay", "HTTPClient", "Huawei",
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
                "PipelineCore", "Apps", "Broker", "Store", "Observability", "StorePlugins",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // MARK: Dead-letter review: the archive's operations, and the web console
        .target(
            name: "DeadLetters",
            dependencies: [
                "PipelineCore", "Broker", "Store",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Console",
            dependencies: [
                "PipelineCore", "Broker", "Store", "DeadLetters",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Validator",
            dependencies: [
                "PipelineCore", "Broker", "Observability", "StorePlugins",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "Fulfiller",
            dependencies: [
                "PipelineCore", "Broker", "Store", "DeadLetters", "Observability", "GooglePlay", "StorePlugins", "Settlement",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "Scheduler",
            dependencies: [
                "PipelineCore", "Broker", "Store",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "Notifier",
            dependencies: [
                "PipelineCore", "Apps", "Store", "HTTPClient", "Observability",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // MARK: Every stage in one process (`iap up`, end-to-end tests)
        .target(
            name: "Pipeline",
            dependencies: [
                "PipelineCore", "Broker", "Store", "HTTPClient", "AppStore", "GooglePlay", "Intake", "Validator",
                "Fulfiller", "StorePlugins", "Stripe", "Huawei", "Reconciliation",
                "Notifier", "Scheduler", "Console", "DeadLetters", "Observability",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),

        .target(
            name: "Reconciliation",
            dependencies: [
                "PipelineCore", "AppStore", "Store", "Settlement", "Observability",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // MARK: The command line
        .executableTarget(
            name: "iap",
            dependencies: [
                "PipelineCore", "Broker", "HTTPClient", "Store", "StoreSQLite", "StorePostgres", "AppStore",
                "GooglePlay", "StubStore",
                "Intake", "Validator", "Fulfiller", "Notifier", "Scheduler", "Pipeline", "DeadLetters", "Console", "StorePlugins",
                "Observability", "Drills", "Reconciliation", "TraceExport", "Apps",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),

        // Fault drills (`iap chaos`): child processes, the broker's control, and the judge
        // of a run's promises. Operators run them, so they ship in `iap`; the tests share them.
        .target(name: "Drills"),

        // MARK: Tests
        .target(
            name: "PipelineTesting",
            dependencies: [
                "PipelineCore", "Broker", "Store", "StoreSQLite", "StorePostgres", "Settlement", "Drills",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "ReconciliationTests", dependencies: ["Reconciliation", "AppStore", "StubStore"]),
        .testTarget(
            name: "SettlementTests",
            dependencies: [
                "Settlement", "PipelineTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "PipelineCoreTests", dependencies: ["PipelineCore", "PipelineTesting"]),
        .testTarget(name: "BrokerTests", dependencies: ["Broker", "PipelineTesting"]),
        .testTarget(
            name: "HTTPClientTests",
            dependencies: [
                "HTTPClient", "PipelineTesting", "Drills",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "StoreTests",
            dependencies: ["Store", "StoreSQLite", "StorePostgres", "PipelineTesting"],
            // What earlier releases wrote, read by path from the tests (not bundled as resources).
            exclude: ["SchemaFixtures"]
        ),
        .testTarget(
            name: "AppStoreTests",
            dependencies: [
                "AppStore", "StubStore", "PipelineTesting", "HTTPClient",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            // Apple's test vectors, read by path from the tests (not bundled as resources).
            exclude: ["SignedData/Vectors", "ServerAPI/Vectors", "AppReceipt/Vectors"]
        ),
        // Fuzz targets for every parser of outside input (docs/fuzzing.md).
        .testTarget(
            name: "FuzzTests",
            dependencies: ["AppStore", "StubStore", "GooglePlay", "PipelineCore", "PipelineTesting", "HTTPClient"]
        ),
        .testTarget(
            name: "GooglePlayTests",
            dependencies: [
                "GooglePlay", "StorePlugins", "StubStore", "PipelineTesting", "HTTPClient",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "StripeTests",
            dependencies: ["Stripe", "StorePlugins", "StubStore", "PipelineTesting", "HTTPClient"]
        ),
        .testTarget(
            name: "HuaweiTests",
            dependencies: ["Huawei", "StorePlugins", "StubStore", "PipelineTesting", "HTTPClient", "Store"]
        ),
        .testTarget(
            name: "StubStoreTests",
            dependencies: [
                "StubStore", "PipelineTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "IntakeTests",
            dependencies: [
                "StoreSQLite", "Intake", "PipelineTesting", "Observability", "AppStore", "StubStore", "GooglePlay",
                "Huawei", "Stripe", "StorePlugins",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A request context with a chosen client address (the loopback has one IPv6 address).
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(name: "DeadLettersTests", dependencies: ["DeadLetters", "Broker", "Store", "PipelineTesting"]),
        .testTarget(name: "ValidatorTests", dependencies: ["Validator", "PipelineTesting"]),
        .testTarget(name: "FulfillerTests", dependencies: ["StoreSQLite", "Fulfiller", "PipelineTesting"]),
        .testTarget(
            name: "NotifierTests",
            dependencies: ["StoreSQLite", "StorePostgres", "Notifier", "PipelineTesting", "HTTPClient"]
        ),
        .testTarget(
            name: "ObservabilityTests",
            dependencies: ["StoreSQLite", 
                "Observability", "PipelineTesting", "Broker", "Store",
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The spec as a backend's generator takes it (docs/api.md, "Generating a client").
        .testTarget(name: "GeneratedClientTests", dependencies: [
            "Pipeline", "PipelineCore", "PipelineTesting", "StoreSQLite", "StubStore", "AppStore", "Intake", "Notifier",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        .testTarget(
            name: "iapTests",
            dependencies: ["StoreSQLite", "StorePostgres", 
                "PipelineTesting", "Broker", "Store", "HTTPClient", "StubStore", "GooglePlay", "Intake", "Validator", "Fulfiller",
                "Notifier", "AppStore", "Pipeline", "Scheduler", "DeadLetters", "Console", "Observability",
                "Reconciliation", "Settlement", "StorePlugins", "Huawei", "Stripe", "TraceExport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
    ]
)

// Every Swift module of ours builds with the same settings (the C wrappers have none).
for target in package.targets where !["CRabbitMQ", "CCurl"].contains(target.name) {
    target.swiftSettings = swiftSettings
}
