// swift-tools-version:6.1
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which depends on where the repository
// was cloned; derive it instead of hard-coding it.
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// Benchmarks live in their own package so the library stays dependency-free.
let package = Package(
    name: "AppStateKitBenchmarks",
    platforms: [.macOS(.v15)],
    // PostgreSQL: builds appstatekit-postgres-benchmarks against AppStateKitPostgres; off by
    // default, so the default benchmark run resolves no PostgreSQL packages and needs no server.
    traits: [.trait(name: "PostgreSQL", description: "Builds the PostgresSyncStore benchmarks.")],
    dependencies: [
        .package(path: "..", traits: [.trait(name: "PostgreSQL", condition: .when(traits: ["PostgreSQL"]))]),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    ],
    targets: [
        // The example server's per-request work, shared by the two executables below.
        .target(
            name: "ServerRequestWork",
            dependencies: [.product(name: "AppStateKit", package: rootPackage)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "appstatekit-benchmarks",
            dependencies: [
                "ServerRequestWork",
                .product(name: "AppStateKit", package: rootPackage),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Dependencies", package: "swift-dependencies"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // One operation in a loop, for instruction counts (Scripts/instructions.sh).
        .executableTarget(
            name: "appstatekit-profile",
            dependencies: ["ServerRequestWork", .product(name: "AppStateKit", package: rootPackage)],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // PostgresSyncStore latency, propagation and fleet update throughput (needs a server).
        .executableTarget(
            name: "appstatekit-postgres-benchmarks",
            dependencies: [
                .product(name: "AppStateKit", package: rootPackage),
                .product(name: "AppStateKitPostgres", package: rootPackage, condition: .when(traits: ["PostgreSQL"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
