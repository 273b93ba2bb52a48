// swift-tools-version:6.1
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which depends on where the repository
// was cloned; derive it instead of hard-coding it.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// The operator's tool: its own package so the library keeps resolving zero packages.
// Build: swift build -c release --package-path Tools/appstatekit
let package = Package(
    name: "appstatekit",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "appstatekit", targets: ["appstatekit"]),
    ],
    dependencies: [
        // The PostgreSQL trait brings AppStateKitPostgres: `sync --postgres`. Configuration isn't
        // used; it is on so the library compiles as it does for the server example, and CI
        // builds both in one folder without compiling the library twice (55-operator-tool.sh).
        .package(path: "../..", traits: ["PostgreSQL", "Configuration"]),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "appstatekit",
            dependencies: [
                .product(name: "AppStateKit", package: rootPackage),
                .product(name: "AppStateKitPostgres", package: rootPackage),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppStateKitToolTests",
            dependencies: [
                "appstatekit",
                .product(name: "AppStateKit", package: rootPackage),
                .product(name: "AppStateKitTesting", package: rootPackage),
                // The PostgreSQL end-to-end tests run an app instance on the tool's table.
                .product(name: "AppStateKitPostgres", package: rootPackage),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
