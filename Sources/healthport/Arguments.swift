import HealthPort

/// One option a command accepts.
struct OptionSpec: Sendable {
  let name: String  // "--format"
  let short: String?  // "-o"
  let valueName: String?  // nil for a flag
  let help: String
  var repeatable = false
  /// The values it takes when they are a fixed list that ``valueName`` cannot spell (`--to`, a
  /// format or a date); empty when ``valueName`` lists them (`day|week|month`) or any value goes.
  var values: [String] = []

  var takesValue: Bool { valueName != nil }

  /// The values shell completion offers: ``values``, else those ``valueName`` lists (`table|json`).
  var choices: [String] {
    if !values.isEmpty { return values }
    guard let valueName, valueName.contains("|") else { return [] }
    return valueName.split(separator: "|").map(String.init)
  }

  /// Its line in help: `  -o, --output <path>         Write here…` and a line feed.
  var helpLine: String {
    var left = (short.map { "\($0), " } ?? "") + name
    if let valueName { left += " <\(valueName)>" }
    return "  " + left.padding(to: 28) + help + "\n"
  }

  /// True when the value is a file or folder (`-o PATH`).
  var takesPath: Bool { valueName?.lowercased() == "path" }
}

/// A command line split into options and positional arguments, after the rules of
/// swift-argument-parser: `--opt value`, `--opt=value`, `-o value`, `--` ends options, a lone
/// `-` is a positional (stdin).
struct ParsedArguments {
  private(set) var values: [String: [String]] = [:]
  private(set) var flags: Set<String> = []
  private(set) var positionals: [String] = []

  init(_ arguments: [String], options: [OptionSpec], command: String) throws {
    var index = 0
    var optionsEnded = false
    while index < arguments.count {
      let token = arguments[index]
      index += 1
      if optionsEnded || token == "-" || !token.hasPrefix("-") {
        positionals.append(token)
        continue
      }
      if token == "--" {
        optionsEnded = true
        continue
      }
      var name = token
      var inlineValue: String?
      if token.hasPrefix("--"), let equals = token.firstIndex(of: "=") {
        name = String(token[..<equals])
        inlineValue = String(token[token.index(after: equals)...])
      }
      guard let spec = options.first(where: { $0.name == name || $0.short == name }) else {
        let names = options.map(\.name)
        let hint = NameSuggestion.closest(to: name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw HealthPortError(.usage, message: "unknown option '\(name)'\(hint)")
      }
      if spec.takesValue {
        let value: String
        if let inlineValue {
          value = inlineValue
        } else if index < arguments.count {
          value = arguments[index]
          index += 1
        } else {
          throw HealthPortError(
            .usage, message: "option '\(spec.name)' needs a value \(spec.valueName!)")
        }
        if !spec.repeatable, values[spec.name] != nil {
          throw HealthPortError(.usage, message: "option '\(spec.name)' given more than once")
        }
        values[spec.name, default: []].append(value)
      } else {
        if inlineValue != nil {
          throw HealthPortError(.usage, message: "option '\(spec.name)' takes no value")
        }
        flags.insert(spec.name)
      }
    }
  }

  func value(_ name: String) -> String? { values[name]?.last }

  /// All values of a repeatable option, with comma-separated lists split.
  func list(_ name: String) -> [String] {
    (values[name] ?? []).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: " ") } }.filter {
      !$0.isEmpty
    }
  }

  func flag(_ name: String) -> Bool { flags.contains(name) }

  /// A value that must be one of `choices`.
  func choice(_ name: String, _ choices: [String], default fallback: String, command: String) throws -> String {
    guard let value = value(name) else { return fallback }
    guard choices.contains(value) else {
      let hint = NameSuggestion.closest(to: value, in: choices).map { " (did you mean '\($0)'?)" } ?? ""
      throw HealthPortError(
        .usage,
        message: "'\(value)' is not a valid value for \(name); choose one of \(choices.joined(separator: ", "))\(hint)"
      )
    }
    return value
  }
}

extension String {
  func trimmingCharacters(in set: Character) -> String {
    var slice = Substring(self)
    while slice.first == set { slice.removeFirst() }
    while slice.last == set { slice.removeLast() }
    return String(slice)
  }
}

extension Substring {
  func trimmingCharacters(in set: Character) -> String { String(self).trimmingCharacters(in: set) }
}
