// swift-tools-version:6.1
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which depends on where the repository
// was cloned; derive it instead of hard-coding it.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "HummingbirdServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The PostgreSQL trait brings AppStateKitPostgres: instances share flags through PostgreSQL.
        // The Configuration trait brings AppStateKitConfiguration: live settings (LiveSettings.swift).
        .package(path: "../..", traits: ["PostgreSQL", "Configuration"]),
        // ConfigReader and EnvironmentVariablesProvider; none of its own traits is needed.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        .target(
            name: "FlagService",
            dependencies: [
                .product(name: "AppStateKit", package: rootPackage),
                .product(name: "AppStateKitConfiguration", package: rootPackage),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "FlagServer",
            dependencies: [
                "FlagService",
                .product(name: "AppStateKitPostgres", package: rootPackage),
                .product(name: "AppStateKitConfiguration", package: rootPackage),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "FlagServiceTests",
            dependencies: [
                "FlagService",
                .product(name: "AppStateKitTesting", package: rootPackage),
                .product(name: "AppStateKitConfiguration", package: rootPackage),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
