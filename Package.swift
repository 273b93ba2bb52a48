// swift-tools-version:6.0
import PackageDescription

// Target names are global in a package graph, so this package declares only its two libraries
// and, for its own tests, targets whose names no user picks (`_AppStateKit…`). The examples are
// packages of their own under Examples/.
let package = Package(
    name: "AppStateKit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "AppStateKit", targets: ["AppStateKit"]),
        .library(name: "AppStateKitTesting", targets: ["AppStateKitTesting"]),
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
        .executableTarget(
            name: "_AppStateKitTestChild",
            dependencies: ["AppStateKit"],
            path: "Tests/PersistenceChild",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "AppStateKitTests",
            dependencies: ["AppStateKit", "AppStateKitTesting", "_AppStateKitTestChild"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
