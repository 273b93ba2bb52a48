import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

@Suite("PersistenceError.Kind", .isolatedApplication)
struct PersistenceErrorKindTests {
    static let kinds: [PersistenceError.Kind] = [
        .permissionDenied, .readOnlyFileSystem, .diskFull, .corruptData,
        .typeMismatch, .encodingFailed, .invalidFilename, .ioFailure,
    ]

    @Test("kinds are equal exactly when they are the same member; hashing agrees")
    func equalityOnTheCode() {
        for (index, kind) in Self.kinds.enumerated() {
            for (otherIndex, other) in Self.kinds.enumerated() {
                #expect((kind == other) == (index == otherIndex), "\(kind) vs \(other)")
            }
        }
        #expect(Set(Self.kinds).count == Self.kinds.count)
        #expect(Set(Self.kinds + Self.kinds) == Set(Self.kinds))
    }

    @Test("each kind describes itself in a few words")
    func descriptions() {
        #expect(Self.kinds.map(\.description) == [
            "permission denied", "read-only file system", "disk full", "corrupt data",
            "type mismatch", "cannot encode value", "invalid file name", "I/O error",
        ])
        #expect("\(PersistenceError.Kind.diskFull)" == "disk full")
    }

    @Test("the errno of an I/O failure is the error's, not the kind's: kinds stay equal, errors differ")
    func errnoBelongsToTheError() {
        let eio = PersistenceError(.ioFailure, errno: EIO, subject: "/a", detail: "read failed (EIO)")
        let loop = PersistenceError(.ioFailure, errno: ELOOP, subject: "/a", detail: "read failed (EIO)")
        #expect(eio.kind == loop.kind)
        #expect(eio.errno == EIO)
        #expect(eio != loop)
        #expect(eio.description == "I/O error EIO for /a: read failed (EIO)")
        #expect(PersistenceError(.ioFailure, subject: "/a", detail: "gone").description == "I/O error for /a: gone")
    }

    @Test("system errors map to kinds; only an I/O failure keeps its errno (messages unchanged)")
    func systemMapping() {
        let cases: [(Int32, PersistenceError.Kind, Int32?, String)] = [
            (EACCES, .permissionDenied, nil, "permission denied for /p: stat failed (EACCES)"),
            (EPERM, .permissionDenied, nil, "permission denied for /p: stat failed (EPERM)"),
            (EROFS, .readOnlyFileSystem, nil, "read-only file system for /p: stat failed (EROFS)"),
            (ENOSPC, .diskFull, nil, "disk full for /p: stat failed (ENOSPC)"),
            (EDQUOT, .diskFull, nil, "disk full for /p: stat failed (EDQUOT)"),
            (ENAMETOOLONG, .invalidFilename, nil, "invalid file name for /p: stat failed (ENAMETOOLONG)"),
            (EIO, .ioFailure, EIO, "I/O error EIO for /p: stat failed (EIO)"),
            (ELOOP, .ioFailure, ELOOP, "I/O error ELOOP for /p: stat failed (ELOOP)"),
        ]
        for (code, kind, errno, message) in cases {
            let error = PersistenceError.system(code, subject: "/p", operation: "stat")
            #expect(error.kind == kind)
            #expect(error.errno == errno)
            #expect(error.description == message)
        }
    }

    @Test("a switch matches kinds by member, with a default for kinds added later")
    func switching() {
        func name(_ kind: PersistenceError.Kind) -> String {
            switch kind {
            case .corruptData: "corrupt"
            case .ioFailure: "io"
            default: "other"
            }
        }
        #expect(Self.kinds.map(name) == ["other", "other", "other", "corrupt", "other", "other", "other", "io"])
    }
}
