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
  /// Makes the writer for one conversion.
  package let makeWriter: @Sendable (OutputRequest) throws -> FormatWriter

  package enum FilterSupport: Sendable { case all, typesOnly }

  package init(
    name: String, summary: String, options: [OutputFormatOption] = [], needsPath: Bool = false,
    filters: FilterSupport = .all,
    makeWriter: @escaping @Sendable (OutputRequest) throws -> FormatWriter
  ) {
    self.name = name
    self.summary = summary
    self.options = options
    self.needsPath = needsPath
    self.filters = filters
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

  package init(name: String, valueName: String? = nil, help: String, needsPath: Bool = false) {
    self.name = name
    self.valueName = valueName
    self.help = help
    self.needsPath = needsPath
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
    report.warnings(holding: heldElements)
  }
}

/// A sink with warnings of its own about what it wrote: characters its format cannot hold.
protocol WriterWarnings: AnyObject {
  var writerWarnings: [String] { get }
}

/// The formats one program reads and writes: the one list of them is ``standard``, which the
/// input recogniser asks and which the command-line tool extends with the formats of modules the
/// core does not link.
package struct FormatRegistry: Sendable {
  /// What `convert --to` writes, in the order `--help` lists them.
  package private(set) var outputs: [OutputFormat]
  /// The formats read from a byte stream (a file, stdin, bytes in memory), asked in this order; a
  /// stream that none recognises is read as the last, whose parser names the problem.
  let streamInputs: [StreamInputFormat]
  /// The formats read from a folder given by path, asked in this order; the last takes any folder.
  let folderInputs: [FolderInputFormat]

  package init(outputs: [OutputFormat]) { self.init(streams: [], folders: [], outputs: outputs) }

  init(streams: [StreamInputFormat], folders: [FolderInputFormat], outputs: [OutputFormat]) {
    self.streamInputs = streams
    self.folderInputs = folders
    self.outputs = outputs
  }

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

  /// Every format the core library reads and writes, each defined in its folder under `Formats/`.
  /// SQLite and Parquet, in modules of their own (the core links neither libsqlite3 nor libzstd),
  /// are registered beside these by the command-line tool (`ConvertCommand.registry`).
  package static let standard = FormatRegistry(
    streams: [.zip, .ecg, .csv, .json, .gpx, .xml],
    folders: [.csvSplit, .exportFolder],
    outputs: [.csv, .jsonl, .json, .xml, .zip])
}
