/// One thing `appstatekit doctor` found, with what to do about it.
///
/// Local checks (DoctorCommand) and the PostgreSQL checks (DoctorPostgres.swift) both produce these;
/// the command prints them and exits by the worst severity.
struct DoctorFinding: Sendable, Equatable, Codable {
    /// How bad a finding is. Ordered: `ok < warning < problem`.
    enum Severity: String, Sendable, Codable, Comparable, CaseIterable {
        /// Checked and fine.
        case ok
        /// Works, but worth a look (exit status stays 0).
        case warning
        /// Wrong or unsafe: `doctor` exits with 2.
        case problem

        private var rank: Int {
            switch self {
            case .ok: 0
            case .warning: 1
            case .problem: 2
            }
        }

        static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// How bad it is.
    var severity: Severity
    /// A short line naming what was checked, e.g. "Secret store /var/lib/app/secrets.json".
    var title: String
    /// What was found: the owner, the mode, the missing privilege. Never a secret's value.
    var detail: String
    /// What to do about it (a command to run, a setting to change); empty when nothing needs doing.
    var remedy: String

    init(severity: Severity, title: String, detail: String, remedy: String = "") {
        self.severity = severity
        self.title = title
        self.detail = detail
        self.remedy = remedy
    }
}
