import HealthPort

/// The words of the output formats on the command line: their own options' names and help, and
/// the notes `convert --help` adds about a format. The library names the options by a key
/// (``OutputFormatOption/name``, `partitionBy`); the tool spells them (`--partition-by`).
enum FormatWords {
  /// The option of `option`: its key in words joined by dashes, after `--` (`--partition-by`).
  static func option(_ option: OutputFormatOption) -> String {
    var spelled = "--"
    for character in option.name {
      if character.isUppercase {
        spelled += "-" + character.lowercased()
      } else {
        spelled.append(character)
      }
    }
    return spelled
  }

  /// The help line of `option`, where it names other options; else the library's own.
  static func help(_ option: OutputFormatOption) -> String {
    switch option.name {
    case "split": "CSV only: a folder of tables (needs -o DIR)."
    case "keepPartial":
      "With --to sqlite: keep a new database after a damaged input, with what was read before the damage."
    default: option.help
    }
  }

  /// A sentence for `convert --help` about `format`, when it needs one.
  static func note(_ format: OutputFormat) -> String? {
    switch format.name {
    case "sqlite": "--to sqlite is `healthport load INPUT --db PATH` (needs -o PATH)."
    default: nil
    }
  }
}
