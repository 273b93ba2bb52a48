#if !PostgreSQL
import Testing

/// Tells a plain `swift test` run (without the PostgreSQL trait) why the PostgreSQL store's
/// tests are missing.
@Suite struct PostgreSQLTraitTests {
    @Test(.disabled("built without the PostgreSQL trait: run `swift test --traits PostgreSQL` against a server (.ci/steps/50-postgres.sh)"))
    func postgresStoreTestsNeedThePostgreSQLTrait() {}
}
#endif
