import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var limitedNote: FileState<String> {
        fileState(initial: "", path: "/limits", filename: "note.json", isBase64Encoded: false)
    }
}

extension ProcessGlobalTests {
    @Suite("FileState size limit")
    struct MaximumFileStateSize {
        @Test("FileManager.maximumFileStateSize bounds FileState writes and reads, naming the file and the limit")
        func limitIsConfigurable() throws {
            #expect(FileManager.maximumFileStateSize == 64 * 1024 * 1024)
            defer { FileManager.maximumFileStateSize = 64 * 1024 * 1024 }
            try Application.withIsolatedApplication {
                let note = Application.fileState(\.limitedNote)
                // The limits stay far above any other test's FileState: suites run in parallel
                // with this one, and the setting is process-wide.
                try note.write(String(repeating: "a", count: 600_000))   // 600,002 bytes of JSON

                FileManager.maximumFileStateSize = 512 * 1024
                let refused = #expect(throws: PersistenceError.self) { try note.write(String(repeating: "b", count: 600_000)) }
                #expect(refused?.description.contains("note.json") == true)
                #expect(refused?.description.contains("more than the limit of 524288") == true)

                // The file written under the larger limit is now too large to read (read afresh:
                // the handle's kept value is still current).
                let files = Application.dependency(\.fileManager)
                let tooLarge = #expect(throws: PersistenceError.self) {
                    let _: String = try files.in(path: "/limits", filename: "note.json")
                }
                #expect(tooLarge?.errno == EFBIG)
                #expect(tooLarge?.description.contains("note.json") == true)

                FileManager.maximumFileStateSize = 1024 * 1024
                let text: String = try files.in(path: "/limits", filename: "note.json")
                #expect(text == String(repeating: "a", count: 600_000))
            }
        }
    }
}
