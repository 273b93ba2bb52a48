// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AppStateKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "AppStateKit", targets: ["AppStateKit"]),
        .library(name: "AppStateKitTesting", targets: ["AppStateKitTesting"]),
        .executable(name: "todo", targets: ["todo"]),
    ],
    targets: [
        .target(
            name: "AppStateKit",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "AppStateKitTesting",
            dependencies: ["AppStateKit"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "TodoCore",
            dependencies: ["AppStateKit"],
            path: "Examples/Todo/Core",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "todo",
            dependencies: ["TodoCore"],
            path: "Examples/Todo/CLI",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "AppStateKitPersistenceChild",
            dependencies: ["AppStateKit"],
            path: "Tests/PersistenceChild",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppStateKitTests",
            dependencies: ["AppStateKit", "AppStateKitTesting", "AppStateKitPersistenceChild"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "TodoTests",
            dependencies: ["TodoCore", "todo", "AppStateKit", "AppStateKitTesting"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
