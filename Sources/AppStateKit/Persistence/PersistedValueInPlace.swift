/// Yields a persisted entry's value for mutation in place: the entry's ``PersistedEntry/modification``
/// lock is held from the read to the write, so `value += 1` from many threads loses nothing.
///
/// A value that can't be read is reported and the mutation runs on the initial value, which is
/// not written (the persisted value is kept); a failed write is reported. Reports are made after
/// the lock is released. What a throwing mutation changed before it threw is written, as for an
/// in-memory state.
struct PersistedValueInPlace<Value: Codable & Sendable> {
    let entry: PersistedEntry<Value>

    var value: Value {
        get { entry.valueOutsideModification }
        nonmutating set { entry.assign(newValue) }
        nonmutating _modify {
            entry.modification.lock(entry)
            var problems: [any Error] = []
            var current: Value
            var isWritable = true
            do {
                current = try entry.read()
            } catch {
                isWritable = false
                problems.append(entry.changeNotWritten(error))
                current = entry.initial
            }
            // Written in `defer` so that a mutation that throws (which unwinds this accessor
            // when it is the outermost, but ends it normally when a wrapper or slice yields it)
            // keeps its changes either way.
            defer {
                do {
                    if isWritable { try entry.write(current) }
                } catch {
                    problems.append(error)
                }
                entry.modification.unlock()
                for problem in problems { entry.report(problem) }
            }
            yield &current
        }
    }
}
