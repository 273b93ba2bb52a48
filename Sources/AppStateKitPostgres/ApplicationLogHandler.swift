#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Logging

/// The handler of ``PostgresSyncStore/defaultLogger``: forwards each message to AppStateKit's
/// `\.logger` of the application current where it is logged — `warning` and above as errors,
/// the rest as debug messages (which that logger shows only while debug logging is on).
struct ApplicationLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let logger = Application.logger
        if event.level >= .warning {
            logger.error("\(event.message)")
        } else {
            logger.debug { "\(event.message)" }
        }
    }
}
#endif
