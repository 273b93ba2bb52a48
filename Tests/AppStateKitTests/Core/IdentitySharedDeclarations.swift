import AppStateKit

extension Application {
    /// The same entry as `identitySharedA` in IdentityTests.swift: same feature and id.
    var identitySharedB: State<Int> { state(initial: 0, feature: "Identity", id: "shared") }
}
