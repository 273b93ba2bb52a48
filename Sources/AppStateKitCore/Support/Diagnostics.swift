#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The reporting seam for code below the logging layer (the registry, files, stores): the layer
/// that owns `\.logger` installs where reports go, the first time anything touches
/// `\.logger` or `Application.logging(isEnabled:)`. Before that, the default logger
/// is in place, whose errors go to standard error as ``report(error:)`` writes them here, and
/// whose debug messages are off.
package enum Diagnostics {
    /// Where reports go once installed.
    struct Sink: Sendable {
        let debug: @Sendable (String) -> Void
        let error: @Sendable (String) -> Void
    }

    /// Whether debug logging is on (`Application.logging(isEnabled:)`); one relaxed load, so
    /// code can skip building a debug message.
    package static let isDebugEnabled = Atomic<Bool>(false)

    /// Where reports go; set once.
    private static let sink = LockedBox<Sink?>(nil)

    /// Installs `sink` unless one is installed already.
    static func install(_ makeSink: () -> Sink) {
        sink.withLock { sink in
            if sink == nil { sink = makeSink() }
        }
    }

    /// Reports an error: to the installed sink, otherwise to standard error. Out of line: the
    /// cold path of its callers.
    @inline(never)
    package static func report(error message: String) {
        if let sink = sink.withLock({ $0 }) {
            sink.error(message)
            return
        }
        writeToStandardError(message)
    }

    /// Writes `message` to standard error as one line (a newline added unless it ends with one):
    /// what an error report does without a sink, and the default logger's sinks.
    static func writeToStandardError(_ message: String) {
        var bytes = Array((message.hasSuffix("\n") ? message : message + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Reports a debug message to the installed sink; without one, debug logging is off.
    @inline(never)
    package static func report(debug message: String) {
        sink.withLock { $0 }?.debug(message)
    }
}
