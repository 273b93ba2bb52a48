// High/ depends on Low/ (it names `Registry`).
struct Storage {
    let registry: Registry
}
