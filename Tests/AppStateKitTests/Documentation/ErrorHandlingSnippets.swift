// The snippet of Documentation/ErrorHandling.md, verbatim, compiled and run, and the policy it
// describes. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// The guide's `print` calls stay verbatim; in this file they print only as test diagnostics
/// (APPSTATEKIT_TEST_DIAGNOSTICS, see TestDiagnostics.swift), so a green run stays quiet.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    diagnostic(items.map { "\($0)" }.joined(separator: separator))
}

extension Application {
    var guideBadFile: FileState<Int> { fileState(initial: 0, filename: "../escape") }
}

func advice(for error: PersistenceError) -> String {
    switch error.kind {
    case .diskFull, .readOnlyFileSystem: "make room or remount, then retry"
    case .ioFailure where error.errno == EIO: "check the disk: \(error)"
    default: "\(error)"
    }
}

@Suite("Error handling guide snippets", .isolatedApplication, .reportsAsDiagnostics)
struct ErrorHandlingSnippets {
    @Test func catchingOneKind() throws {
        let tasks = [TodoItem(title: "Ship")]
        do {
            try Application.fileState(\.tasks).write(tasks)
        } catch let error as PersistenceError where error.kind == .diskFull {
            print("Free some space: \(error)")
        }
        #expect(try Application.fileState(\.tasks).read() == tasks)
    }

    @Test func dataErrorsAreThrownToCallersWhoAsk() {
        var bad = Application.fileState(\.guideBadFile)
        bad.value = 2   // reported, nothing written
        #expect(bad.value == 0)
        #expect(throws: PersistenceError.self) { try bad.write(1) }
        do {
            try bad.write(1)
        } catch let error as PersistenceError {
            #expect(error.kind == .invalidFilename)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func switchingOverKinds() {
        let full = PersistenceError(.diskFull, subject: "/srv/a.json", detail: "write failed (ENOSPC)")
        #expect(advice(for: full) == "make room or remount, then retry")
        let eio = PersistenceError(.ioFailure, errno: EIO, subject: "/srv/a.json", detail: "read failed (EIO)")
        #expect(advice(for: eio) == "check the disk: I/O error EIO for /srv/a.json: read failed (EIO)")
        let loop = PersistenceError(.ioFailure, errno: ELOOP, subject: "/srv/a.json", detail: "stat failed (ELOOP)")
        #expect(advice(for: loop) == "I/O error ELOOP for /srv/a.json: stat failed (ELOOP)")
    }
}
