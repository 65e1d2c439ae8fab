/// The formats healthport writes, looked up by name: `convert --to NAME` has no per-format branch.
///
/// Each output format declares its name, what it writes (one stream or a destination path), the
/// options of its own (`--split` for CSV) and a factory for the sink that writes it. Adding a
/// format is one folder under `Formats/` plus one line in ``FormatRegistry/standard`` (or, for a
/// format in another module such as SQLite, one line where the command-line tool assembles its
/// registry).
package struct OutputFormat: Sendable {
  /// What `--to` names (lowercase; matched ignoring case).
  package let name: String
  /// One line for `--help`.
  package let summary: String
  /// Options of this format only, e.g. `--split`; given with another format they are a usage error.
  package let options: [OutputFormatOption]
  /// True when the format needs `-o PATH` (a folder or a database, never stdout).
  package let needsPath: Bool
  /// Which filters apply (a database takes everything and is queried later).
  package let filters: FilterSupport
  /// The usage error when a format that ``needsPath`` gets no `-o PATH`; nil for
  /// `--to NAME needs -o PATH`.
  package let missingPathMessage: String?
  /// A sentence for `convert --help` beside the description of outputs, when the format needs one.
  package let helpNote: String?
  /// Makes the writer for one conversion.
  package let makeWriter: @Sendable (OutputRequest) throws -> FormatWriter

  package enum FilterSupport: Sendable { case all, typesOnly }

  package init(
    name: String, summary: String, options: [OutputFormatOption] = [], needsPath: Bool = false,
    filters: FilterSupport = .all, missingPathMessage: String? = nil, helpNote: String? = nil,
    makeWriter: @escaping @Sendable (OutputRequest) throws -> FormatWriter
  ) {
    self.name = name
    self.summary = summary
    self.options = options
    self.needsPath = needsPath
    self.filters = filters
    self.missingPathMessage = missingPathMessage
    self.helpNote = helpNote
    self.makeWriter = makeWriter
  }
}

/// An option that belongs to one output format (`--split`, later `--compression zstd`).
package struct OutputFormatOption: Sendable, Hashable {
  package let name: String
  /// The placeholder of its value, nil for a flag.
  package let valueName: String?
  package let help: String
  /// True when the option needs `-o PATH` (e.g. `--split` writes a folder).
  package let needsPath: Bool
  /// The usage error when an option that ``needsPath`` gets no `-o PATH`; nil for
  /// `--NAME needs -o PATH`.
  package let missingPathMessage: String?

  package init(
    name: String, valueName: String? = nil, help: String, needsPath: Bool = false, missingPathMessage: String? = nil
  ) {
    self.name = name
    self.valueName = valueName
    self.help = help
    self.needsPath = needsPath
    self.missingPathMessage = missingPathMessage
  }
}

/// What one conversion asks of an output format.
package struct OutputRequest: Sendable {
  /// `-o PATH`, nil for stdout.
  package var path: String?
  /// The input path (nil or `-` for stdin): an output may never overwrite it.
  package var input: String?
  /// The values of the format's own options that were given; a flag maps to `[]`.
  package var options: [String: [String]]
  /// `--skip-invalid` was given.
  package var skipInvalid = false
  /// `--quiet` was given.
  package var quiet = false

  package init(path: String?, input: String?, options: [String: [String]] = [:]) {
    self.path = path
    self.input = input
    self.options = options
  }

  package func flag(_ name: String) -> Bool { options[name] != nil }
  package func value(_ name: String) -> String? { options[name]?.last }
}

/// A sink that writes one output, plus the two ways it can end.
package protocol FormatWriter: AnyObject {
  /// Where the elements go (the reader's filters and counters wrap it).
  var sink: ExportSink { get }
  /// Makes the output appear (renames the temporary file or folder into place).
  func commit() throws
  /// Ends a conversion that failed. A file or folder output removes everything written so far
  /// (the destination stays as it was); a database keeps what its format's rules say (SQLite:
  /// every whole element read before damage to the input, nothing after a failure of its own).
  func abort()
  /// The top-level elements the output holds when it holds only some (the single records table:
  /// `Record`); nil when it holds every element. The summary line names what it left out, and
  /// the warnings leave out what it does not hold.
  var heldElements: Set<String>? { get }
  /// What to print on stderr after a successful commit instead of `convert`'s usual summary line
  /// (the SQLite store reports rows added per table); nil for the usual line.
  func summary(_ report: ReadReport) -> String?
  /// The warnings to print after a successful commit, without the skip total (which `convert`
  /// prints itself, also with `--quiet`); by default the reader's.
  func warnings(_ report: ReadReport) -> [String]
  /// A failure of the conversion as the user should read it: a path inside the temporary folder
  /// a folder output is built in named as the folder the user asked for. By default unchanged.
  func describing(_ error: Error) -> Error
}

extension FormatWriter {
  package var heldElements: Set<String>? { nil }
  package func summary(_ report: ReadReport) -> String? { nil }
  package func describing(_ error: Error) -> Error { error }
  package func warnings(_ report: ReadReport) -> [String] { readWarnings(report) }

  /// The reader's warnings about what this output holds, without the skip total.
  package func readWarnings(_ report: ReadReport) -> [String] {
    let warnings = report.warnings(holding: heldElements)
    return Array(warnings.dropLast(report.skipped.isEmpty ? 0 : 1))
  }
}

/// A sink with warnings of its own about what it wrote: characters its format cannot hold.
protocol WriterWarnings: AnyObject {
  var writerWarnings: [String] { get }
}

/// The output formats one program offers, in the order `--help` lists them.
package struct FormatRegistry: Sendable {
  package private(set) var outputs: [OutputFormat]

  package init(outputs: [OutputFormat]) { self.outputs = outputs }

  /// Adds a format (a later one with the same name replaces the earlier).
  package mutating func register(_ format: OutputFormat) {
    outputs.removeAll { $0.name == format.name }
    outputs.append(format)
  }

  /// The format named `name`, ignoring case.
  package func output(named name: String) -> OutputFormat? {
    let lowered = name.lowercased()
    return outputs.first { $0.name == lowered }
  }

  package var outputNames: [String] { outputs.map(\.name) }

  /// Every format's own options, each once, in the order of the formats.
  package var outputOptions: [OutputFormatOption] {
    var seen: Set<String> = []
    return outputs.flatMap(\.options).filter { seen.insert($0.name).inserted }
  }

  /// csv (with `--split`), jsonl, json and xml: what the core library writes. SQLite, in its own
  /// module, is registered beside them by the command-line tool.
  package static let standard = FormatRegistry(outputs: [.csv, .jsonl, .json, .xml, .zip])
}
