import AppStateKitCore
import AppStateKitPersistence
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one thread per ``LocalSyncStore`` that notices other processes' writes while the store
/// has change feeds.
///
/// With inotify (Linux, ``LocalSyncStore/ChangeDetection/automatic``) it watches the file's
/// *directory* — an atomic write renames a new file over the old one, so a watch on the file's
/// inode would go quiet after the first replacement — and calls `onChange` after each batch of
/// events, plus once every ``LocalSyncStore/ChangeDetection/safetyInterval`` in case an event
/// was missed (queue overflow, a network file system). Without inotify, or with
/// ``LocalSyncStore/ChangeDetection/polling(every:)``, it calls `onChange` on every tick.
/// `onChange` compares the file's stamp (one `stat`) and reloads only when it changed.
///
/// ``stop()`` wakes the thread through a pipe and the thread ends; the last reference (the
/// thread's or the store's) closes the descriptors.
final class LocalSyncWatcher: Sendable {
    let directory: String
    private let pollInterval: Duration
    private let useNotifications: Bool
    private let onChange: @Sendable () -> Void
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopRequested = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Creates a watcher for the files in `directory`; ``start()`` runs it.
    ///
    /// - Throws: ``PersistenceError`` when the wake-up pipe can't be created.
    init(directory: String, changeDetection: LocalSyncStore.ChangeDetection, onChange: @escaping @Sendable () -> Void) throws {
        self.directory = directory.isEmpty ? "." : directory
        self.onChange = onChange
        switch changeDetection.mode {
        case .notifications:
            pollInterval = LocalSyncStore.ChangeDetection.fallbackInterval
            useNotifications = true
        case let .polling(interval):
            pollInterval = interval
            useNotifications = false
        }
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw PersistenceError.system(errno, subject: directory, operation: "create the change watcher's pipe")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = descriptors[0]
        wakeWrite = descriptors[1]
    }

    /// Starts the watching thread, registered as an activity of `owner` (the store) while it runs.
    func start(owner: some AnyObject & Sendable) {
        let activity = BackgroundActivities.begin("LocalSyncStore watcher thread", owner: owner)
        let thread = Thread { [self] in
            run()
            activity.end()
            finished.signal()
        }
        thread.name = "AppStateKit LocalSyncStore watcher"
        thread.start()
    }

    /// Asks the thread to end; returns at once. Calling it again does nothing.
    func stop() {
        guard stopRequested.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        var byte: UInt8 = 1
        // The read end stays open until deinit, so this can't raise SIGPIPE; a full pipe
        // (EAGAIN) can't happen with one byte written once.
        _ = write(wakeWrite, &byte, 1)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// Waits until the thread has ended, at most `timeout`; returns whether it did. (For tests.)
    func waitUntilFinished(timeout: Duration) -> Bool {
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return finished.wait(timeout: .now() + .milliseconds(milliseconds)) == .success
    }

    private func run() {
        #if os(Linux)
        let notifications = useNotifications ? inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) : -1
        defer { if notifications >= 0 { close(notifications) } }
        var watch: Int32 = -1
        #else
        let notifications: Int32 = -1
        #endif
        while !stopRequested.load(ordering: .acquiring) {
            var timeout = pollInterval
            #if os(Linux)
            if notifications >= 0 {
                if watch < 0 {
                    // Also retried on every tick until the directory exists.
                    watch = inotify_add_watch(notifications, directory, UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE))
                    // Catch what changed before the watch was in place.
                    if watch >= 0 { onChange() }
                }
                if watch >= 0 { timeout = LocalSyncStore.ChangeDetection.safetyInterval }
            }
            #endif
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if notifications >= 0 {
                descriptors.append(pollfd(fd: notifications, events: Int16(POLLIN), revents: 0))
            }
            let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&descriptors, nfds_t(descriptors.count), max(milliseconds, 1))
            if ready < 0, errno != EINTR {
                // Should not happen (poll fails only on bad arguments or no memory): keep
                // checking at the polling pace rather than stopping silently.
                usleep(UInt32(max(milliseconds, 1)) * 1000)
            }
            if descriptors[0].revents != 0 { return }
            #if os(Linux)
            if notifications >= 0, descriptors[1].revents != 0, drain(notifications) {
                watch = -1  // the directory went away: watch again once it is back
            }
            #endif
            onChange()
        }
    }

    #if os(Linux)
    /// Reads every pending event; returns whether the watch was removed (`IN_IGNORED`).
    private func drain(_ notifications: Int32) -> Bool {
        var removed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(notifications, $0.baseAddress!, $0.count) }
            guard count > 0 else { return removed }  // EAGAIN: drained
            var offset = 0
            buffer.withUnsafeBytes { bytes in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    if event.mask & UInt32(IN_IGNORED) != 0 { removed = true }
                    offset += MemoryLayout<inotify_event>.size + Int(event.len)
                }
            }
        }
    }
    #endif
}
