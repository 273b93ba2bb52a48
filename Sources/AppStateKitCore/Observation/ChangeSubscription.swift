/// One iterator's registration with `ChangeSubscriptions`, removed when the iterator ends
/// (cancellation) or is dropped (a loop left with `break` or `return`), whichever comes first.
final class ChangeSubscription: Sendable {
    let entry: any RegistryEntry
    let mailbox: ChangeMailbox
    private let token: UInt64

    init(entry: any RegistryEntry) {
        let mailbox = ChangeMailbox()
        self.entry = entry
        self.mailbox = mailbox
        self.token = ChangeSubscriptions.subscribe(entry, mailbox)
    }

    /// Idempotent.
    func end() {
        ChangeSubscriptions.unsubscribe(entry, token: token)
    }

    deinit {
        end()
    }
}
