import Synchronization

/// Finds the key of a dependency declaration without running its factory.
///
/// Overrides are keyed by the dependency's identity, which only its declaration knows.
/// `KeyCapture` evaluates the declaring property, outside every override scope, with a capture
/// bound to the calling thread. A dependency lookup of the override's value type is then *taken*: it
/// records the key and returns the override value without asking the registry, so no live
/// client is constructed just to be replaced. Every other lookup the declaration makes (to
/// choose its id) resolves as usual. Scoped and global overrides and promotions all find their
/// key this way (``declaredKey(of:replacement:)``), afresh on every call: a key path doesn't
/// determine its key, so nothing is remembered by key path.
///
/// The declaration's own `dependency(…)` call is the last lookup it makes (its arguments are
/// evaluated first). When a declaration makes several lookups of the override's type, a second
/// evaluation resolves all but the last as usual and takes the last.
final class KeyCapture: Sendable {
    let value: any Sendable
    /// The override's value type: only dependency lookups of this type are taken.
    let valueType: ObjectIdentifier
    /// How many lookups of that type to resolve as usual before taking the rest.
    let lookupsToResolve: Int
    /// The lookups of that type made so far, and the key of the last one taken.
    private struct Progress {
        var lookupsOfValueType = 0
        var key: EntryKey?
    }

    /// A `Mutex`, not a ``LockedBox`` (whose allocations a capture living for one evaluation
    /// would pay on every scoped override); nothing contends for it.
    private let progress = Mutex(Progress())
    var lookupsOfValueType: Int { progress.withLock { $0.lookupsOfValueType } }
    var key: EntryKey? { progress.withLock { $0.key } }

    private init<Value: Sendable>(value: Value, lookupsToResolve: Int) {
        self.value = value
        self.valueType = ObjectIdentifier(Value.self)
        self.lookupsToResolve = lookupsToResolve
    }

    /// Whether the lookup of `key` goes to this capture instead of the registry; counts the
    /// lookups of the override's type.
    func takes(_ key: EntryKey) -> Bool {
        guard key.kind == EntryKind.dependency.identifier, key.valueType == valueType else { return false }
        return progress.withLock {
            $0.lookupsOfValueType += 1
            return $0.lookupsOfValueType > lookupsToResolve
        }
    }

    /// Records `key` as taken and returns the override value, of the type the lookup needs.
    func captured<Value>(_ key: EntryKey, as type: Value.Type) -> Value {
        progress.withLock { $0.key = key }
        guard let value = value as? Value else {
            // `takes(_:)` only accepts lookups of the override's own type.
            preconditionFailure("AppStateKit: internal error: the override of \(key.readable) is not a \(Value.self)")
        }
        return value
    }

    /// The capture running on the calling thread, if any. A thread's, not a task-local: the
    /// declaration is evaluated synchronously, and binding a task-local cost every scoped
    /// override ~500 instructions (a push, a pop and an allocation).
    static var current: KeyCapture? {
        ThreadViews.withCurrent { $0.evaluationContext as? KeyCapture }
    }

    /// Runs `body` with `capture` as the calling thread's capture.
    private static func running<Result>(_ capture: KeyCapture, _ body: () -> Result) -> Result {
        let views = ThreadViews.withCurrent { $0 }
        let outer = views.evaluationContext
        views.evaluationContext = capture
        defer { views.evaluationContext = outer }
        return body()
    }

    /// How many captures run in the process: while none does, a dependency read doesn't look
    /// for one.
    private static let live = Atomic<Int>(0)

    /// Whether a capture runs anywhere in the process.
    @usableFromInline
    static var isAnyLive: Bool { live.load(ordering: .relaxed) != 0 }

    /// The key the declaration at `keyPath` names now, evaluated afresh, or `nil` if the
    /// property makes no dependency lookup of its type (it returns a handle obtained elsewhere).
    /// `replacement`, the override or promoted value, stands in for the instance, so the
    /// factory doesn't run.
    static func declaredKey<Value: Sendable>(
        of keyPath: KeyPath<Application, Application.Dependency<Value>>,
        replacement: Value
    ) -> EntryKey? {
        declaredKey(by: { _ = $0[keyPath: keyPath] }, replacement: replacement)
    }

    /// ``declaredKey(of:replacement:)`` for the declaration `declaration` evaluates (a key path
    /// applied by a closure that drops the handle).
    static func declaredKey<Value: Sendable>(
        by declaration: (Application) -> Void,
        replacement: Value
    ) -> EntryKey? {
        let first = evaluate(declaration, overrideValue: replacement, lookupsToResolve: 0)
        // Several lookups of the override's type: the declaration read one to choose its id.
        let capture = first.lookupsOfValueType > 1
            ? evaluate(declaration, overrideValue: replacement, lookupsToResolve: first.lookupsOfValueType - 1)
            : first
        return capture.key
    }

    /// Evaluates `declaration` with a capture active on the calling thread.
    private static func evaluate<Value: Sendable>(
        _ declaration: (Application) -> Void,
        overrideValue: Value,
        lookupsToResolve: Int
    ) -> KeyCapture {
        let capture = KeyCapture(value: overrideValue, lookupsToResolve: lookupsToResolve)
        // Counted in the override census too, so dependency reads look for the capture.
        live.add(1, ordering: .relaxed)
        OverrideCensus.total.add(1, ordering: .relaxed)
        defer {
            OverrideCensus.total.subtract(1, ordering: .relaxed)
            live.subtract(1, ordering: .relaxed)
        }
        // Outside every override, but in the calling task's application: what the declaration
        // reads to choose its id comes from there.
        TaskContext.withoutOverrides {
            running(capture) { declaration(Application.current) }
        }
        return capture
    }

    /// The stop for a key path whose property returns a dependency handle without declaring one.
    static func notADeclarationMessage(_ keyPath: AnyKeyPath) -> String {
        """
        AppStateKit: \(keyPath) doesn't declare a dependency, so it can't be overridden or removed. \
        Declare it with `dependency(…)` in the property's body (`var api: Dependency<API> { dependency(LiveAPI()) }`) \
        instead of returning a handle obtained elsewhere.
        """
    }
}
