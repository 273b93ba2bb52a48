import ArgumentParser

// Stub: part B (the sync group's owner) replaces this file's body with the PostgreSQL checks
// (the role's privileges, PgBouncer in transaction mode, TLS).

/// The options `doctor` takes for its PostgreSQL checks (none yet). DoctorCommand already takes
/// `--store`, `--storage-name`, `--secrets-store`, `--sync-file`, `--file-state-directory` and
/// `--json`: these options must not repeat those names.
struct DoctorPostgresOptions: ParsableArguments {}

/// The PostgreSQL findings for `appstatekit doctor`; none until the checks are written.
func postgresFindings(_ options: DoctorPostgresOptions) async -> [DoctorFinding] {
    []
}
