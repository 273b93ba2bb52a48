import Foundation

/// Where `todo` gets the current time; tests replace it with a fixed clock.
public protocol TodoClock: Sendable {
    func now() -> Date
}

/// The system clock.
public struct SystemClock: TodoClock {
    public init() {}
    public func now() -> Date { Date() }
}
