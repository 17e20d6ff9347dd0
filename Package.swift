// swift-tools-version:6.0
import PackageDescription

// Module split follows the architecture: a pure core with no I/O, then storage, the scheduler
// engine, the HTTP API, and the `herald` executable (CLI) on top.
let package = Package(
    name: "Herald",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .executable(name: "herald", targets: ["herald"]),
        .library(name: "HeraldClient", targets: ["HeraldClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Pure domain: model, recurrence, limit policy. Foundation only, no I/O.
        .target(name: "HeraldCore"),
        // System libraries: OpenSSL for TLS and crypto, libnghttp2 for HTTP/2.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CEpoll"),
        // ES256 provider tokens and HMAC signatures over the system OpenSSL.
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL"]),
        // HTTP/2 client and server sessions over TLS: libnghttp2 + OpenSSL, one owner per C object.
        .target(name: "HeraldHTTP2", dependencies: ["CNGHTTP2", "COpenSSL", "CEpoll"]),
        // Durable state behind a narrow protocol; SQLite (GRDB) is the embedded default.
        .target(name: "HeraldStorage", dependencies: [
            "HeraldCore",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The several-node backend: the same storage roles on PostgreSQL (docs/several-nodes.md).
        .target(name: "HeraldPostgres", dependencies: [
            "HeraldCore", "HeraldStorage",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The push gateway: APNs provider API over HeraldHTTP2, with token and certificate auth.
        // Knows nothing of storage or scheduling: a client protocol and its transport.
        .target(name: "HeraldPush", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldHTTP2",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // Fired occurrence → outcome: device routing (stream, push, inbox), the dispatcher, the
        // push delivery channel, the stored token ledger, live streams, the feedback dispatcher.
        .target(name: "HeraldDelivery", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldStorage", "HeraldPush",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The coalescer: device lifecycle, system events coalesced while asleep, wakes, wake
        // pushes, acknowledgements and the live event streams.
        // Who can be reached: apps, devices, channels' audiences and Live Activity tokens.
        .target(name: "HeraldDirectory", dependencies: ["HeraldCore", "HeraldStorage", "HeraldScheduler", "HeraldDelivery"]),
        // Signed inbound webhooks: their definitions, the intake of a verified request, and the
        // idempotency keys that make resends safe.
        .target(name: "HeraldHooks", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldDelivery", "HeraldDirectory", "HeraldPush",
        ]),
        .target(name: "HeraldCoalescer", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldDelivery", "HeraldPush",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The timer: claims due occurrences into the fire log and hands them to delivery.
        .target(name: "HeraldScheduler", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldDelivery",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // `herald sandbox`: an APNs-compatible HTTP/2 server with inboxes and fault injection.
        .target(name: "HeraldSandbox", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldHTTP2",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // HTTP API (Hummingbird 2): routes, their middleware, and the resources they answer with.
        .target(name: "HeraldAPI", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldHTTP2", "HeraldStorage", "HeraldScheduler", "HeraldPush",
            "HeraldDelivery", "HeraldCoalescer", "HeraldDirectory", "HeraldHooks",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Yams", package: "Yams"),
        ], resources: [
            // The OpenAPI document, compiled into the binary: `/openapi.yaml` and the tests read it.
            .embedInCode("openapi.yaml"),
        ]),
        // The composition root: the configuration, and `herald serve` wired from it (the store it
        // runs on, every engine, the API) in one service group.
        .target(name: "HeraldComposition", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldPostgres", "HeraldScheduler", "HeraldPush", "HeraldDelivery", "HeraldCoalescer",
            "HeraldAPI",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Yams", package: "Yams"),
        ]),
        // The typed Swift client of the HTTP API, for apps and services: Foundation only, so it
        // builds for Apple platforms and Linux alike.
        .target(name: "HeraldClient"),
        // The one executable: `herald serve` and the client subcommands.
        .executableTarget(name: "herald", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldAPI", "HeraldComposition", "HeraldPush", "HeraldSandbox", "HeraldScheduler", "HeraldClient",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // `make bench`: scheduler and storage benchmarks, run in release mode.
        .executableTarget(name: "herald-bench", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldScheduler", "HeraldAPI", "HeraldComposition", "HeraldPush", "HeraldSandbox",
            "HeraldCrypto", "HeraldHTTP2", "HeraldDelivery", "HeraldCoalescer", "HeraldPostgres",
            // A real PostgreSQL for the cluster benchmark, started as the tests start theirs.
            "HeraldTestSupport",
            // The schedule floor: the same route on the same stack, with none of Herald.
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Benchmarks/HeraldBenchmarks"),
        // Helpers shared by the test suites (they run in one process): certificate lookup, polling,
        // free ports, child processes, an SSE client, device tokens, a real PostgreSQL server, and
        // the fixtures of the push and delivery suites (the sandbox, a push gateway, a store).
        .target(name: "HeraldTestSupport", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldScheduler", "HeraldDelivery", "HeraldCoalescer", "HeraldPush", "HeraldSandbox",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/HeraldTestSupport"),
        .testTarget(name: "HeraldCoreTests", dependencies: ["HeraldCore", "HeraldTestSupport"]),
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto"]),
        .testTarget(name: "HeraldHTTP2Tests", dependencies: ["HeraldHTTP2", "HeraldTestSupport"]),
        .testTarget(name: "HeraldSandboxTests", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldHTTP2", "HeraldSandbox", "HeraldTestSupport",
        ]),
        .testTarget(name: "HeraldPushTests", dependencies: [
            "HeraldCore", "HeraldCrypto", "HeraldHTTP2", "HeraldStorage", "HeraldScheduler", "HeraldPush", "HeraldSandbox",
            "HeraldDelivery", "HeraldTestSupport",
        ]),
        .testTarget(name: "HeraldStorageTests", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldPostgres", "HeraldCoalescer", "HeraldTestSupport",
            .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "HeraldPostgresTests", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldPostgres", "HeraldScheduler", "HeraldCoalescer", "HeraldTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "HeraldDeliveryTests", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldScheduler", "HeraldDelivery", "HeraldCoalescer", "HeraldPush",
            "HeraldSandbox", "HeraldTestSupport",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "HeraldSchedulerTests", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldScheduler", "HeraldDelivery", "HeraldPush", "HeraldTestSupport",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .testTarget(name: "HeraldAPITests", dependencies: [
            "HeraldCore", "HeraldStorage", "HeraldScheduler", "HeraldAPI", "HeraldComposition", "HeraldPush", "HeraldSandbox",
            "HeraldDelivery", "HeraldCoalescer", "HeraldTestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
        .testTarget(name: "HeraldEndToEndTests", dependencies: ["HeraldTestSupport", "herald", "HeraldClient"]),
    ]
)
