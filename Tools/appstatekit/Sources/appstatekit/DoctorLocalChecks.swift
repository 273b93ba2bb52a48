import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `doctor`'s checks of local paths: owner and mode, judged by what they hold.
enum LocalChecks {
    struct Status {
        var mode: mode_t
        var owner: uid_t
        var isDirectory: Bool
        var isRegular: Bool
    }

    /// The path's status (links followed), `nil` when there is nothing there; a failure other
    /// than "missing" is returned as a finding.
    enum Lookup {
        case missing
        case found(Status)
        /// Can't be examined: why.
        case failed(String)
    }

    static func status(_ path: String) -> Lookup {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            if code == ENOENT { return .missing }
            return .failed("can't be examined: \(String(cString: strerror(code)))")
        }
        let type = info.st_mode & S_IFMT
        return .found(Status(mode: info.st_mode & 0o7777, owner: info.st_uid, isDirectory: type == S_IFDIR, isRegular: type == S_IFREG))
    }

    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode, radix: 8)
    }

    /// A finding when the path is not owned by the user running the tool (the app's user).
    static func ownerFinding(_ title: String, _ status: Status, path: String) -> DoctorFinding? {
        let me = geteuid()
        guard status.owner != me else { return nil }
        return DoctorFinding(
            severity: .warning, title: title,
            detail: "owned by uid \(status.owner), not by uid \(me) running doctor",
            remedy: "run doctor as the app's user; if the app runs as uid \(me): chown \(me) \(path)"
        )
    }

    /// A storage directory (key-value store, FileState, sync file): must not be writable by
    /// others; readable by others is a warning.
    static func directory(_ path: String, role: String) -> [DoctorFinding] {
        let title = "\(role) \(path)"
        let status: Status
        switch self.status(path) {
        case let .failed(detail): return [DoctorFinding(severity: .problem, title: title, detail: detail, remedy: "check the permissions of its parent directories for the app's user")]
        case .missing:
            return [DoctorFinding(severity: .ok, title: title, detail: "does not exist yet; the library creates it (mode 0700) on the first write")]
        case let .found(found): status = found
        }
        guard status.isDirectory else {
            return [DoctorFinding(severity: .problem, title: title, detail: "is not a directory", remedy: "move it away; the library creates the directory on the first write")]
        }
        var findings: [DoctorFinding] = []
        if let owner = ownerFinding(title, status, path: path) { findings.append(owner) }
        let mode = status.mode
        if mode & 0o002 != 0 {
            findings.append(DoctorFinding(
                severity: .problem, title: title, detail: "mode \(octal(mode)): any user can create, replace or remove the app's files in it",
                remedy: "chmod 700 \(path)"
            ))
        } else if mode & 0o020 != 0 {
            findings.append(DoctorFinding(
                severity: .warning, title: title, detail: "mode \(octal(mode)): the group can replace or remove the app's files",
                remedy: "chmod 700 \(path), unless the group is meant to share the store"
            ))
        } else if mode & 0o005 != 0 {
            findings.append(DoctorFinding(
                severity: .warning, title: title, detail: "mode \(octal(mode)): other users can list and read the app's state",
                remedy: "chmod 700 \(path)"
            ))
        }
        if findings.isEmpty { findings.append(DoctorFinding(severity: .ok, title: title, detail: "mode \(octal(mode)), owned by uid \(status.owner)")) }
        return findings
    }

    /// A store file: writable by others is a problem, readable by others a warning.
    static func file(_ path: String, role: String, optional: Bool) -> [DoctorFinding] {
        let title = "\(role) \(path)"
        let status: Status
        switch self.status(path) {
        case let .failed(detail): return [DoctorFinding(severity: .problem, title: title, detail: detail, remedy: "check the permissions of its parent directories for the app's user")]
        case .missing:
            return optional ? [] : [DoctorFinding(severity: .ok, title: title, detail: "does not exist yet; created (mode 0600) on the first write")]
        case let .found(found): status = found
        }
        guard status.isRegular else {
            return [DoctorFinding(severity: .problem, title: title, detail: "is not a regular file", remedy: "move it away; the library writes a file there")]
        }
        var findings: [DoctorFinding] = []
        if let owner = ownerFinding(title, status, path: path) { findings.append(owner) }
        let mode = status.mode
        if mode & 0o022 != 0 {
            findings.append(DoctorFinding(
                severity: .problem, title: title, detail: "mode \(octal(mode)): other users can change the app's state", remedy: "chmod 600 \(path)"
            ))
        } else if mode & 0o044 != 0 {
            findings.append(DoctorFinding(
                severity: .warning, title: title, detail: "mode \(octal(mode)): other users can read the app's state", remedy: "chmod 600 \(path)"
            ))
        }
        if findings.isEmpty { findings.append(DoctorFinding(severity: .ok, title: title, detail: "mode \(octal(mode)), owned by uid \(status.owner)")) }
        return findings
    }

    /// The writable secret store: the directory and every file in it must be private to the
    /// app's user (the library refuses them otherwise, and other users could read the secrets).
    static func secretStore(_ path: String) -> [DoctorFinding] {
        let title = "Secret store \(path)"
        let status: Status
        switch self.status(path) {
        case let .failed(detail): return [DoctorFinding(severity: .problem, title: title, detail: detail, remedy: "check the permissions of its parent directories for the app's user")]
        case .missing:
            return [DoctorFinding(severity: .ok, title: title, detail: "does not exist yet; the library creates it (mode 0700) on the first secret written")]
        case let .found(found): status = found
        }
        guard status.isDirectory else {
            return [DoctorFinding(severity: .problem, title: title, detail: "is not a directory", remedy: "move it away; the library creates the directory on the first secret written")]
        }
        var findings: [DoctorFinding] = []
        if let owner = ownerFinding(title, status, path: path) { findings.append(owner) }
        if status.mode & 0o077 != 0 {
            findings.append(DoctorFinding(
                severity: .problem, title: title,
                detail: "mode \(octal(status.mode)): other users can reach the secrets, and the library refuses to read or write them",
                remedy: "chmod 700 \(path); if someone else could have read a secret, rotate it (appstatekit secrets set KEY)"
            ))
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            findings.append(DoctorFinding(
                severity: .problem, title: title, detail: "can't be listed: \(error.localizedDescription)",
                remedy: "run doctor as the app's user; the app must be able to list and read its secret store"
            ))
            return findings
        }
        var exposed: [String] = []
        for name in names {
            let file = (path as NSString).appendingPathComponent(name)
            if case let .found(found) = self.status(file), found.mode & 0o077 != 0 {
                exposed.append("\(name) (\(octal(found.mode)))")
            }
        }
        if !exposed.isEmpty {
            findings.append(DoctorFinding(
                severity: .problem, title: title,
                detail: "\(exposed.count) secret \(exposed.count == 1 ? "file is" : "files are") readable or writable by others: \(exposed.joined(separator: ", "))",
                remedy: "chmod 600 \(path)/*; if someone else could have read a secret, rotate it (appstatekit secrets set KEY)"
            ))
        }
        if findings.isEmpty {
            findings.append(DoctorFinding(severity: .ok, title: title, detail: "mode \(octal(status.mode)), \(names.count) \(names.count == 1 ? "secret" : "secrets"), each private"))
        }
        return findings
    }
}
