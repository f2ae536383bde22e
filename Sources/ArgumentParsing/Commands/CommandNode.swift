/// One command of a tool's tree, with what dispatching, parsing and help need of it.
struct CommandNode {
    var name: String
    var abstract: String
    var discussion: String
    /// The words that invoke it: `["scanpick", "queue", "retry"]`.
    var path: [String]
    var children: [CommandNode]
    /// The child run when a group is given no subcommand.
    var defaultChild: String?
    /// nil for the tool itself.
    var type: (any Command.Type)?
    var specification: ArgumentsSpecification

    init(_ type: any Command.Type, parent: [String]) {
        let configuration = type.configuration
        name = configuration.name
        abstract = configuration.abstract
        discussion = configuration.discussion
        let path = parent + [configuration.name]
        self.path = path
        children = configuration.subcommands.map { CommandNode($0, parent: path) }
        defaultChild = configuration.defaultSubcommand?.configuration.name
        self.type = type
        specification = Self.specification(of: type)
    }

    init(tool name: String, abstract: String, commands: [any Command.Type]) {
        self.name = name
        self.abstract = abstract
        discussion = ""
        path = [name]
        children = commands.map { CommandNode($0, parent: [name]) }
        defaultChild = nil
        type = nil
        specification = ArgumentsSpecification(declarations: [], rules: [])
    }

    private static func specification<C: Command>(of type: C.Type) -> ArgumentsSpecification {
        C.Arguments.specification
    }

    var isGroup: Bool { !children.isEmpty }
    var invocation: String { path.joined(separator: " ") }

    func child(named name: String) -> CommandNode? { children.first { $0.name == name } }

    /// Every command below this one and itself, depth first.
    var all: [CommandNode] { [self] + children.flatMap(\.all) }

    /// Where a group's subcommand is named: the first word that is neither an option nor the value
    /// of one (options of any command below may come before it: `queue --config F retry 3`).
    func subcommandWord(in words: [String]) -> (index: Int, word: String)? {
        let options = all.flatMap(\.specification.options)
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "--" { return nil }
            if word == "-" || !word.hasPrefix("-") { return (index, word) }
            if word.hasPrefix("--") {
                if !word.contains("="), options.contains(where: { "--\($0.long)" == word && !$0.isFlag }) {
                    index += 1
                }
            } else {
                for (offset, letter) in word.dropFirst().enumerated() {
                    guard options.contains(where: { $0.short == letter && !$0.isFlag }) else { continue }
                    if offset == word.count - 2 { index += 1 }  // its value is the next word
                    break
                }
            }
            index += 1
        }
        return nil
    }

    /// Mistakes in the declarations of this command and those below it.
    var problems: [String] {
        var problems = specification.problems.map { "\(invocation): \($0)" }
        if isGroup, !specification.declarations.isEmpty {
            problems.append("\(invocation): a group takes no options or arguments of its own")
        }
        var names = Set<String>()
        for child in children where !names.insert(child.name).inserted {
            problems.append("\(invocation): \(child.name) is declared twice")
        }
        if let defaultChild, child(named: defaultChild) == nil {
            problems.append("\(invocation): its default, \(defaultChild), is not one of its commands")
        }
        // Finding a subcommand needs to know which options take a value, whichever command declares them.
        let options = all.flatMap(\.specification.options)
        for option in options where options.contains(where: { $0.long == option.long && $0.isFlag != option.isFlag }) {
            problems.append("\(invocation): --\(option.long) is a flag in one command and takes a value in another")
        }
        return problems + children.flatMap(\.problems)
    }
}
