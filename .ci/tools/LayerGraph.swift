// Derives the dependency graph between the folders of Sources/AppStateKit and fails on a cycle.
//
//   swift .ci/tools/LayerGraph.swift            prints the edges (folder -> folder: the names
//                                               that make the edge), a layer order, and exits 1
//                                               if the folders form a cycle
//   swift .ci/tools/LayerGraph.swift dot        the same graph in Graphviz form
//
// A folder depends on another when one of its files names something the other declares:
// - a type (`class`, `struct`, `enum`, `protocol`, `actor`, `typealias`) declared there, nested
//   types included (`Application.State` is declared in State/);
// - a member that folder adds to `Application` (`static var logger`), named as
//   `Application.member`, `Self.member`, `\.member`, or bare (`member(`, `member.`) in a file
//   that extends `Application` and declares no local of that name.
// Names declared in more than one folder are ambiguous and count for none (listed with -v).
// Comments and string literals are ignored. Run from the repository root.
import Foundation

let root = "Sources/AppStateKit"
let arguments = CommandLine.arguments.dropFirst()
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

func matches(_ pattern: String, in text: String, group: Int = 1) -> [String] {
    let regex = try! NSRegularExpression(pattern: pattern)
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
        Range(match.range(at: group), in: text).map { String(text[$0]) }
    }
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

// What each folder declares.
var typeOwners: [String: Set<String>] = [:]
var memberOwners: [String: Set<String>] = [:]
for (folder, sources) in files {
    for source in sources {
        for name in matches(#"\b(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)"#, in: source.code) {
            typeOwners[name, default: []].insert(folder)
        }
        // Members of `extension Application` blocks that start at the beginning of a line.
        for block in matches(#"(?ms)^extension Application(?:\s*:[^{]*)?\s*\{(.*?)^\}"#, in: source.code) {
            for name in matches(#"(?m)^    (?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|open|static|class|nonisolated)\s+)*(?:var|let|func)\s+([a-z_][A-Za-z0-9_]*)"#, in: block) {
                memberOwners[name, default: []].insert(folder)
            }
        }
    }
}
let ambiguous = (typeOwners.filter { $0.value.count > 1 }.keys.map { "type \($0)" }
    + memberOwners.filter { $0.value.count > 1 }.keys.map { "member \($0)" }).sorted()
let types = typeOwners.compactMapValues { $0.count == 1 ? $0.first : nil }
let members = memberOwners.compactMapValues { $0.count == 1 ? $0.first : nil }

// The edges, each with the names that make it.
var edges: [String: [String: Set<String>]] = [:]
for (folder, sources) in files {
    for source in sources {
        var named: [(String, String)] = []
        for identifier in Set(matches(#"\b([A-Z][A-Za-z0-9_]*)\b"#, in: source.code)) {
            if let owner = types[identifier] { named.append((owner, identifier)) }
        }
        let memberPattern = #"(?:\bApplication\.|\bSelf\.|\\\.|\\Application\.)([a-z_][A-Za-z0-9_]*)"#
        for member in Set(matches(memberPattern, in: source.code)) {
            if let owner = members[member] { named.append((owner, "Application.\(member)")) }
        }
        // Inside `extension Application`, a member is also named bare (`current.registry`,
        // `announceCreation(of:)`), unless the file declares a local of that name.
        if source.code.contains("extension Application") {
            for member in Set(matches(#"(?<![.\w])([a-z_][A-Za-z0-9_]*)\s*[(.\[]"#, in: source.code)) {
                guard let owner = members[member], owner != folder,
                    matches(#"\b(?:let|var|case let|func)\s+("# + member + #")\b"#, in: source.code).isEmpty
                else { continue }
                named.append((owner, "Application.\(member)"))
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
    if verbose, !ambiguous.isEmpty { print("\nAmbiguous (ignored): \(ambiguous.joined(separator: ", "))") }
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
