#if PostgreSQL
import PostgresNIO
import ServiceLifecycle
import AppStateKit

public final class PostgresSyncStore: Sendable {}
#endif
