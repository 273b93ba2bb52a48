// swift-tools-version:6.1
import PackageDescription

// Target names are global in a package graph, so every target here starts with `AppStateKit`
// (the package's own prefix) or, for its tests' helpers, `_AppStateKit`: the libraries
// (AppStateKitPostgres behind the PostgreSQL trait, AppStateKitConfiguration behind the
// Configuration trait), and the engine modules AppStateKit re-exports (`AppStateKitCore`,
// `AppStateKitPersistence`, `AppStateKitSync`, `AppStateKitSecrets`). Those four are targets,
// not products, so no user depends on their names (Documentation/ModuleSplit.md). The examples
// are packages of their own under Examples/.
let package = Package(
    name: "AppStateKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "AppStateKit", targets: ["AppStateKit"]),
        .library(name: "AppStateKitTesting", targets: ["AppStateKitTesting"]),
        // PostgreSQL sync store; its dependencies resolve only for clients enabling the trait.
        .library(name: "AppStateKitPostgres", targets: ["AppStateKitPostgres"]),
        // swift-configuration providers over sync and key-value stores; its dependency resolves
        // only for clients enabling the Configuration trait.
        .library(name: "AppStateKitConfiguration", targets: ["AppStateKitConfiguration"]),
    ],
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "Builds AppStateKitPostgres (PostgresSyncStore) with postgres-nio and swift-service-lifecycle."
        ),
        .trait(
            name: "Configuration",
            description: "Builds AppStateKitConfiguration (swift-configuration providers over SyncStore and key-value stores)."
        ),
    ],
    dependencies: [
        // Used only by targets below whose dependency is guarded by the PostgreSQL trait, so a
        // client that leaves the trait off resolves none of them (.ci/steps/15-trait-resolution.sh).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Guarded by the Configuration trait. None of swift-configuration's own traits (JSON, its
        // default; YAML, Logging, Reloading, …) is needed, so all are off.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // The engine, in layers the compiler enforces (Documentation/ModuleSplit.md). They are
        // targets, not products: AppStateKit re-exports them and holds the one piece that needs
        // all four (isolated applications).
        .target(
            name: "AppStateKitCore",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitPersistence",
            dependencies: ["AppStateKitCore"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitSync",
            dependencies: ["AppStateKitCore", "AppStateKitPersistence"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitSecrets",
            dependencies: ["AppStateKitCore", "AppStateKitPersistence"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKit",
            dependencies: ["AppStateKitCore", "AppStateKitPersistence", "AppStateKitSync", "AppStateKitSecrets"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitTesting",
            dependencies: ["AppStateKit"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "_AppStateKitTestChild",
            dependencies: ["AppStateKit"],
            path: "Tests/PersistenceChild",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitPostgres",
            dependencies: [
                // The modules a sync store needs, not the re-exporting AppStateKit.
                "AppStateKitCore", "AppStateKitPersistence", "AppStateKitSync",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["PostgreSQL"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Child process for AppStateKitPostgresTests' multi-process tests; not a product.
        .executableTarget(
            name: "_AppStateKitPostgresChild",
            dependencies: [
                "AppStateKit",
                "AppStateKitPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Tests/PostgresChild",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppStateKitPostgresTests",
            dependencies: [
                "AppStateKit",
                "AppStateKitTesting",
                "AppStateKitPostgres",
                "_AppStateKitPostgresChild",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["PostgreSQL"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitConfiguration",
            dependencies: [
                // The modules it needs, not the re-exporting AppStateKit: sync and key-value
                // stores, and the SecureState declarations that mark a value secret.
                "AppStateKitCore", "AppStateKitPersistence", "AppStateKitSync", "AppStateKitSecrets",
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppStateKitConfigurationTests",
            dependencies: [
                "AppStateKit",
                "AppStateKitTesting",
                "AppStateKitConfiguration",
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
                .product(name: "ConfigurationTesting", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
                // With both traits, ProviderCompatTest also runs over PostgresSyncStore.
                "AppStateKitPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppStateKitTests",
            dependencies: [
                "AppStateKit", "AppStateKitCore", "AppStateKitPersistence", "AppStateKitSync", "AppStateKitSecrets",
                "AppStateKitTesting", "_AppStateKitTestChild",
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
