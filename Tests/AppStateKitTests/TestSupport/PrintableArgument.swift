import Testing

/// A string test argument that the test runner prints escaped (`"nul\0.json"`): a control
/// character in a raw argument cuts the runner's output line where it stands.
struct PrintableArgument: Sendable, ExpressibleByStringLiteral, CustomTestStringConvertible {
    let value: String

    init(stringLiteral value: String) { self.value = value }

    var testDescription: String { value.debugDescription }
}
