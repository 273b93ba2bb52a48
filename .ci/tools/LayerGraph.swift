// Derives the dependency graph between the folders of one module (Sources/AppStateKitCore unless --root) and fails on a cycle.
//
//   swift .ci/tools/LayerGraph.swift            prints the edges (folder -> folder: the names
//                                               that make the edge), a layer order, and exits 1
//                                               if the folders form a cycle
//   swift .ci/tools/LayerGraph.swift dot        the same graph in Graphviz form
//   swift .ci/tools/LayerGraph.swift --root DIR the same for another tree of folders (the
//                                               fixtures in .ci/tools/LayerGraphFixtures)
//
// A folder depends on another when one of its files names something the other declares:
// - a type (`class`, `struct`, `enum`, `protocol`, `actor`, `typealias`), compared by its fully
//   qualified name: `Registry.Storage` and `ChangeMailbox.Storage` are two declarations, and a
//   name used in a file resolves as Swift resolves it, from the innermost enclosing type
//   outwards (`Storage` inside `extension Registry` is `Registry.Storage`, at top level it is
//   the top-level `Storage`); `private`/`fileprivate` types count only in their own file;
// - a member that folder adds to `Application` (`static var logger`), named as
//   `Application.member`, `Self.member`, `\.member`, or bare (`member(`, `member.`) in a file
//   that extends `Application` and declares no local of that name.
//   A function is named with its first argument label (`reset(fileState:)` is not `reset(_:)`);
//   overloads that differ only in types count for every folder declaring them (listed with -v).
// Comments and string literals are ignored. Run from the repository root.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let root = arguments.firstIndex(of: "--root").map { arguments[$0 + 1] } ?? "Sources/AppStateKitCore"
let verbose = arguments.contains("-v")

/// The source text with comments and string literal contents blanked, so neither makes edges.
func code(of text: String) -> String {
    var result = ""
    var index = text.startIndex
    var inLineComment = false, blockDepth = 0, inString = false, inMultiline = false
    while index < text.endIndex {
        let rest = text[index...]
        let char = text[index]
        if inLineComment {
            if char == "\n" { inLineComment = false; result.append(char) }
        } else if blockDepth > 0 {
            if rest.hasPrefix("*/") { blockDepth -= 1; index = text.index(index, offsetBy: 2); continue }
            if rest.hasPrefix("/*") { blockDepth += 1; index = text.index(index, offsetBy: 2); continue }
            if char == "\n" { result.append(char) }
        } else if inMultiline {
            if rest.hasPrefix("\"\"\"") { inMultiline = false; index = text.index(index, offsetBy: 3); continue }
            if char == "\n" { result.append(char) }
        } else if inString {
            if char == "\\" { index = text.index(after: index); if index < text.endIndex { index = text.index(after: index) }; continue }
            if char == "\"" || char == "\n" { inString = false; result.append("\"") }
        } else if rest.hasPrefix("//") {
            inLineComment = true
        } else if rest.hasPrefix("/*") {
            blockDepth = 1; index = text.index(index, offsetBy: 2); continue
        } else if rest.hasPrefix("\"\"\"") {
            inMultiline = true; result.append("\"\""); index = text.index(index, offsetBy: 3); continue
        } else if char == "\"" {
            inString = true; result.append(char)
        } else {
            result.append(char)
        }
        index = text.index(after: index)
    }
    return result
}

/// Every match of `pattern` with all its groups (an unmatched group is empty).
func allMatches(_ pattern: String, in text: String) -> [[String]] {
    let regex = try! NSRegularExpression(pattern: pattern)
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
        (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
    }
}

func matches(_ pattern: String, in text: String, group: Int = 1) -> [String] {
    let regex = try! NSRegularExpression(pattern: pattern)
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
        Range(match.range(at: group), in: text).map { String(text[$0]) }
    }
}

/// The tokens of a file's code that matter for scopes and type names: identifiers, `.`, `{`,
/// `}`, and `<`/`>`/`:`/`=` (so a generic parameter or an inherited type is not read as a
/// declaration's name).
func tokens(of code: String) -> [String] {
    matches(#"([A-Za-z_][A-Za-z0-9_]*|[.{}])"#, in: code)
}

/// A type declaration: its fully qualified name and where it is.
struct Declaration {
    let name: String
    let folder: String
    let path: String
    let isFilePrivate: Bool
}

/// A capitalised name used in a file, dotted (`Application.State`), with the types enclosing
/// the use (innermost last).
struct Use {
    let parts: [String]
    let scope: [String]
}

/// Walks `code`, calling `declare` for each type declaration (qualified name, file-private?)
/// and returning every use of a capitalised name with its enclosing types.
func scan(_ code: String, declare: (String, Bool) -> Void) -> [Use] {
    let words = tokens(of: code)
    var uses: [Use] = []
    // Each open brace: the qualified type name it opens, or nil for any other block.
    var stack: [[String]?] = []
    var pending: [String]?
    var currentScope: [String] { stack.last(where: { $0 != nil }).flatMap { $0 } ?? [] }
    var index = 0
    var modifiers: Set<String> = []
    while index < words.count {
        let word = words[index]
        switch word {
        case "{":
            stack.append(pending)
            pending = nil
            modifiers = []
        case "}":
            _ = stack.popLast()
            pending = nil
            modifiers = []
        case "private", "fileprivate":
            modifiers.insert("private")
        case "func", "init", "var", "let", "deinit", "subscript", "case":
            pending = nil
            modifiers = []
        case "extension":
            var parts: [String] = []
            var next = index + 1
            while next < words.count, let first = words[next].first, first.isUppercase {
                parts.append(words[next])
                if next + 2 < words.count, words[next + 1] == "." { next += 2 } else { next += 1; break }
            }
            if !parts.isEmpty {
                // An extension names its type from the top level.
                uses.append(Use(parts: parts, scope: []))
                pending = parts
                index = next
                modifiers = []
                continue
            }
        case "class", "struct", "enum", "protocol", "actor", "typealias":
            if index + 1 < words.count, let first = words[index + 1].first, first.isUppercase {
                let name = currentScope + [words[index + 1]]
                declare(name.joined(separator: "."), modifiers.contains("private"))
                if word != "typealias" { pending = name }
                modifiers = []
                index += 2
                continue
            }
        default:
            if let first = word.first, first.isUppercase, index == 0 || words[index - 1] != "." {
                var parts = [word]
                var next = index + 1
                while next + 1 < words.count, words[next] == ".", let head = words[next + 1].first, head.isUppercase {
                    parts.append(words[next + 1])
                    next += 2
                }
                uses.append(Use(parts: parts, scope: currentScope))
                index = next
                continue
            }
        }
        index += 1
    }
    return uses
}

// Every Swift file, by folder.
let fileManager = FileManager.default
var files: [String: [(path: String, code: String)]] = [:]
for folder in try fileManager.contentsOfDirectory(atPath: root).sorted() {
    var isDirectory: ObjCBool = false
    guard fileManager.fileExists(atPath: "\(root)/\(folder)", isDirectory: &isDirectory), isDirectory.boolValue,
        let walker = fileManager.enumerator(atPath: "\(root)/\(folder)")
    else { continue }
    for case let relative as String in walker where relative.hasSuffix(".swift") {
        let path = "\(root)/\(folder)/\(relative)"
        files[folder, default: []].append((path, code(of: try String(contentsOfFile: path, encoding: .utf8))))
    }
}

// What each folder declares, and what each file uses.
var declarations: [String: [Declaration]] = [:]
var memberOwners: [String: Set<String>] = [:]
var uses: [String: [Use]] = [:]
for (folder, sources) in files {
    for source in sources {
        uses[source.path] = scan(source.code) { name, isPrivate in
            declarations[name, default: []].append(Declaration(name: name, folder: folder, path: source.path, isFilePrivate: isPrivate))
        }
        // Members of `extension Application` blocks that start at the beginning of a line.
        // A function is named with its first argument label (`reset(fileState:)`, `reset(_:)`).
        for block in matches(#"(?ms)^extension Application(?:\s*:[^{]*)?\s*\{(.*?)^\}"#, in: source.code) {
            let declaration = #"(?m)^    (?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|open|static|class|nonisolated)\s+)*(var|let|func)\s+([a-z_][A-Za-z0-9_]*)(?:\s*<[^>(]*>)?\s*(\(\s*[A-Za-z_]*)?"#
            for match in allMatches(declaration, in: block) {
                let name = match[2]
                memberOwners[name, default: []].insert(folder)
                if match[1] == "func" { memberOwners[name + label(match[3]), default: []].insert(folder) }
            }
        }
    }
}
/// Overloads that differ only in their types (`update(_:_:)` of a State, a StoredState, a
/// FileState) can't be told apart without the type checker: a use counts for each of them.
let overloaded = memberOwners.filter { $0.value.count > 1 && $0.key.hasSuffix(":)") }.keys.sorted()

/// `(label:)` for the text after a call's or declaration's opening parenthesis: its first
/// argument label, `_` for an unlabelled argument, nothing for no argument.
func label(_ opening: String) -> String {
    let word = opening.dropFirst().trimmingCharacters(in: .whitespacesAndNewlines)
    return word.isEmpty ? "()" : "(\(word):)"
}

/// The folders declaring the member a use names: by name and first label when the use is a
/// call (`Application.reset(fileState:`), by name otherwise.
func owners(of member: String, call: String?) -> Set<String> {
    if let call {
        let labelled = memberOwners[member + call] ?? []
        if !labelled.isEmpty { return labelled }
        if call != "(_:)" { return [] }
    }
    return memberOwners[member] ?? []
}

/// The declarations of `name` visible from the file at `path`.
func visible(_ name: String, from path: String) -> [Declaration] {
    (declarations[name] ?? []).filter { !$0.isFilePrivate || $0.path == path }
}

/// The declarations a use names, resolved from its innermost enclosing type outwards: the
/// head's, then each further dotted part's while it names a nested type.
func resolve(_ use: Use, in path: String) -> [Declaration] {
    for depth in stride(from: use.scope.count, through: 0, by: -1) {
        var qualified = (use.scope.prefix(depth) + [use.parts[0]]).joined(separator: ".")
        var found = visible(qualified, from: path)
        guard !found.isEmpty else { continue }
        for part in use.parts.dropFirst() {
            let deeper = visible(qualified + "." + part, from: path)
            if deeper.isEmpty { break }
            qualified += "." + part
            found += deeper
        }
        return found
    }
    return []
}

// The edges, each with the names that make it.
var edges: [String: [String: Set<String>]] = [:]
for (folder, sources) in files {
    for source in sources {
        var named: [(String, String)] = []
        for use in uses[source.path] ?? [] {
            for declaration in resolve(use, in: source.path) { named.append((declaration.folder, declaration.name)) }
        }
        let memberPattern = #"(?:\bApplication\.|\bSelf\.|\\\.|\\Application\.)([a-z_][A-Za-z0-9_]*)(\s*\(\s*(?:[A-Za-z_]+(?=\s*:))?)?"#
        for match in allMatches(memberPattern, in: source.code) {
            let call = match[2].isEmpty ? nil : label(match[2].hasSuffix("(") ? "(_" : match[2])
            for owner in owners(of: match[1], call: call) { named.append((owner, "Application.\(match[1])\(call ?? "")")) }
        }
        // Inside `extension Application`, a member is also named bare (`current.registry`,
        // `announceCreation(of:)`), unless the file declares a local of that name.
        if source.code.contains("extension Application") {
            for match in allMatches(#"(?<![.\w])([a-z_][A-Za-z0-9_]*)\s*([.\[]|\(\s*(?:[A-Za-z_]+(?=\s*:))?)"#, in: source.code) {
                let member = match[1]
                guard matches(#"\b(?:let|var|case let|func)\s+("# + member + #")\b"#, in: source.code).isEmpty else { continue }
                let call = match[2].hasPrefix("(") ? label(match[2].hasSuffix("(") || match[2].last == " " ? "(_" : match[2]) : nil
                for owner in owners(of: member, call: call) where owner != folder {
                    named.append((owner, "Application.\(member)\(call ?? "")"))
                }
            }
        }
        for (owner, name) in named where owner != folder {
            edges[folder, default: [:]][owner, default: []].insert(name)
        }
    }
}

// A layer order (Kahn's algorithm), or the folders left on a cycle.
let folders = files.keys.sorted()
var remaining = Set(folders)
var order: [[String]] = []
while !remaining.isEmpty {
    let ready = remaining.filter { folder in
        (edges[folder]?.keys ?? [:].keys).allSatisfy { !remaining.contains($0) }
    }.sorted()
    if ready.isEmpty { break }
    order.append(ready)
    remaining.subtract(ready)
}

if arguments.contains("dot") {
    print("digraph AppStateKit {\n    rankdir=BT;")
    for folder in folders { for target in (edges[folder]?.keys.sorted() ?? []) { print("    \"\(folder)\" -> \"\(target)\";") } }
    print("}")
} else {
    for folder in folders {
        for target in (edges[folder]?.keys.sorted() ?? []) {
            let names = edges[folder]![target]!.sorted()
            print("\(folder) -> \(target)  (\(names.prefix(6).joined(separator: ", "))\(names.count > 6 ? ", …" : ""))")
        }
    }
    if verbose, !overloaded.isEmpty { print("\nOverloads counted for every folder declaring them: \(overloaded.joined(separator: ", "))") }
    print("\nLayers, lowest first:")
    for (level, layer) in order.enumerated() { print("  \(level): \(layer.joined(separator: ", "))") }
}
if !remaining.isEmpty {
    let stuck = remaining.sorted()
    FileHandle.standardError.write(Data("error: these folders depend on each other in a cycle: \(stuck.joined(separator: ", "))\n".utf8))
    for folder in stuck {
        let back = (edges[folder] ?? [:]).filter { remaining.contains($0.key) }
        for (target, names) in back.sorted(by: { $0.key < $1.key }) {
            FileHandle.standardError.write(Data("  \(folder) -> \(target)  (\(names.sorted().joined(separator: ", ")))\n".utf8))
        }
    }
    exit(1)
}
