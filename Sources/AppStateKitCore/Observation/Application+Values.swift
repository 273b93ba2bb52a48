extension Application {
    /// The values of a state, stored state or file state over time: the current value first,
    /// then the newest value after each change.
    ///
    /// ```swift
    /// for await config in Application.values(of: \.serverConfig) {
    ///     reload(config)
    /// }
    /// ```
    ///
    /// Each `for await` loop is its own subscription. An element is the value read when the loop
    /// asks for it, once the entry changed since the previous read: values are never queued, so a
    /// slow loop skips intermediate values and ends on the final one, and consecutive elements can
    /// be equal. A change is a write through AppStateKit in this process or
    /// ``notifyChange()-swift.type.method``; for a stored or file state a waiting loop also checks
    /// every `pollInterval` whether another process changed it. The sequence finishes when the
    /// consuming task is cancelled. Writers never wait for loops. Observation.md gives the full
    /// delivery rules.
    ///
    /// - Parameters:
    ///   - keyPath: The state to watch.
    ///   - pollInterval: How often a loop watching a stored or file state checks for changes made
    ///     by other processes; `nil` turns checking off. Ignored for in-memory states.
    public static func values<S: MutableApplicationState & Sendable>(
        of keyPath: KeyPath<Application, S>,
        pollInterval: Duration? = .seconds(1)
    ) -> Values<S.Value> where S.Value: Sendable {
        let handle = current[keyPath: keyPath]
        return Values(entry: (handle as? any EntryBacked)?.registryEntry, pollInterval: pollInterval) {
            handle.value
        }
    }

    /// An asynchronous sequence of an entry's values, made by
    /// ``Application/values(of:pollInterval:)``; see there for the delivery rules. It holds no
    /// subscription itself, so many tasks may iterate one sequence, each loop subscribing.
    public struct Values<Element: Sendable>: AsyncSequence, Sendable {
        /// The entry to watch; `nil` for a custom handle, whose value is delivered once.
        let entry: (any RegistryEntry)?
        let pollInterval: Duration?
        let read: @Sendable () -> Element

        /// Starts a subscription to the entry.
        public func makeAsyncIterator() -> Iterator {
            Iterator(entry: entry, pollInterval: pollInterval, read: read)
        }

        /// One subscription: yields the current value, then the newest value after each change,
        /// until the consuming task is cancelled.
        ///
        /// Use an iterator from one task at a time (as `for await` does).
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            private enum Mode: Sendable {
                /// No entry to watch: deliver the value once.
                case once
                case subscribed(ChangeSubscription)
                case finished
            }

            private var mode: Mode
            private let read: @Sendable () -> Element
            /// For a stored or file state when polling is on (`clock`: ``WaitClock/current`` at the start).
            private let poll: (interval: Duration, entry: any ExternallyChangeable, clock: WaitClock)?
            /// The external version taken just before the last read.
            private var lastVersion: ExternalVersion?

            init(entry: (any RegistryEntry)?, pollInterval: Duration?, read: @escaping @Sendable () -> Element) {
                self.read = read
                self.mode = entry.map { .subscribed(ChangeSubscription(entry: $0)) } ?? .once
                if let pollInterval, let external = entry as? any ExternallyChangeable {
                    poll = (pollInterval, external, WaitClock.current)
                } else {
                    poll = nil
                }
            }

            /// The current value on the first call; afterwards waits for a change and returns
            /// the newest value. Returns `nil` once the calling task is cancelled.
            public mutating func next() async -> Element? {
                switch mode {
                case .finished:
                    return nil
                case .once:
                    mode = .finished
                    return read()
                case let .subscribed(subscription):
                    guard !Task.isCancelled, await waitForChange(subscription.mailbox) else {
                        subscription.end()
                        mode = .finished
                        return nil
                    }
                    // The version first: a change landing between the two reads is seen again
                    // at the next poll rather than missed.
                    lastVersion = poll?.entry.externalVersion()
                    return read()
                }
            }

            /// Waits until the entry changed, here or (when polling) in another process.
            /// Returns `false` when the calling task was cancelled.
            private func waitForChange(_ mailbox: ChangeMailbox) async -> Bool {
                while true {
                    switch await wake(mailbox) {
                    case .changed:
                        return true
                    case .cancelled:
                        return false
                    case .pollDue:
                        if let poll, poll.entry.externalVersion() != lastVersion { return true }
                    }
                }
            }

            /// The mailbox's next flag; when polling, a timer on the poll clock raises
            /// ``ChangeMailbox/Wake/pollDue`` after the interval if nothing else came first.
            private func wake(_ mailbox: ChangeMailbox) async -> ChangeMailbox.Wake {
                guard let poll else { return await mailbox.wait() }
                if let wake = mailbox.takeWithoutWaiting() { return wake }
                let activity = BackgroundActivities.begin("Application.values poll", owner: poll.entry)
                defer { activity.end() }
                let wake = await withTaskGroup(of: Void.self, returning: ChangeMailbox.Wake.self) { group in
                    group.addTask {
                        // A sleep cancelled because the wait ended first throws: no poll then.
                        guard (try? await poll.clock.sleep(for: poll.interval)) != nil else { return }
                        mailbox.signalPollDue()
                    }
                    let wake = await mailbox.wait()
                    group.cancelAll()
                    return wake
                }
                // The timer may have fired just as the wait ended for another reason.
                mailbox.clearPollDue()
                return wake
            }
        }
    }
}
