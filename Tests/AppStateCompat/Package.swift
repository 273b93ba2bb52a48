// swift-tools-version:6.0
// AppState 3.0 code, written the way apps write it, built against this checkout with warnings as
// errors by .ci/steps/17-appstate-compat.sh. The script lays this package out next to a
// directory named `AppStateKit` that is the checkout (what a clone is called), so the path below
// resolves; run the script rather than building this directory in place.
import PackageDescription

let package = Package(
    name: "TaskBoard",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../AppStateKit")],
    targets: [
        .target(
            name: "TaskBoard",
            dependencies: [.product(name: "AppStateKit", package: "AppStateKit")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "TaskBoardTests",
            dependencies: ["TaskBoard", .product(name: "AppStateKit", package: "AppStateKit")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
