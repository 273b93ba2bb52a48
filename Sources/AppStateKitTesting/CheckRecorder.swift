/// Collects the failures of one check.
struct CheckRecorder: Sendable {
    private(set) var messages: [String] = []

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { messages.append(message()) }
    }

    mutating func fail(_ message: String) {
        messages.append(message)
    }
}

/// A random prefix for the keys of one conformance run, so runs against a shared store never clash.
func randomKeyPrefix() -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    return "conformance." + String((0..<10).map { _ in letters.randomElement()! }) + "."
}
