public import AppStateKit

/// Runs an XCTest (or any) test body against a fresh, private application, with optional
/// dependency overrides.
///
/// ```swift
/// final class CounterTests: XCTestCase {
///     func testIncrements() throws {
///         try withIsolatedApplication {
///             Application.update(\.counter) { $0 += 1 }
///             XCTAssertEqual(Application.state(\.counter).value, 1)
///         }
///     }
/// }
/// ```
public func withIsolatedApplication<R>(
    overriding configure: (inout Application.Overrides) -> Void = { _ in },
    _ body: () throws -> R
) rethrows -> R {
    try Application.withIsolatedApplication {
        try Application.withOverrides(configure, operation: body)
    }
}

/// The `async` form of ``withIsolatedApplication(overriding:_:)-(_,()->R)``.
public func withIsolatedApplication<R>(
    overriding configure: (inout Application.Overrides) -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> R
) async rethrows -> R {
    try await Application.withIsolatedApplication {
        try await Application.withOverrides(configure) {
            try await body()
        }
    }
}
