import HealthPort
import ParquetFile

/// `convert --to parquet -o DIR`: the export as a typed, Hive-partitioned Parquet dataset, an
/// output format of the ``FormatRegistry`` (registered by the command-line tool).
package enum ParquetOutput {
  package static let format = OutputFormat(
    name: "parquet", summary: "a typed Parquet dataset, a folder per table",
    options: [partitionBy, person, compression, dropIdentifiers], needsPath: true,
    makeWriter: { try Writer(request: $0) })

  static let partitionBy = OutputFormatOption(
    name: "partitionBy", valueName: "KEYS",
    help: "Parquet only: Hive folders by type and/or year (e.g. type,year).")
  static let person = OutputFormatOption(
    name: "person", valueName: "NAME",
    help: "Parquet only: a cohort member's folder (person=NAME/); the same NAME again replaces its files.")
  static let compression = OutputFormatOption(
    name: "compression", valueName: "CODEC", help: "Parquet only: zstd (the default), snappy or none.")
  static let dropIdentifiers = OutputFormatOption(
    name: "dropIdentifiers", help: "Parquet only: leave out the date of birth (its year kept) and owners' names.")

  /// The partition keys, the person and the codec, checked.
  package struct Settings: Sendable {
    package var partitionBy: [String] = []
    package var person: String?
    package var codec: ParquetCodec = .zstd()
    package var dropIdentifiers = false
    package var limits = ParquetLimits()

    package init() {}

    init(_ request: OutputRequest) throws {
      if let keys = request.options[ParquetOutput.partitionBy.name] {
        let names = keys.flatMap { $0.split(separator: ",") }.map { key in
          var key = key.drop { $0 == " " }
          while key.last == " " { key.removeLast() }
          return key
        }
        for key in names where !key.isEmpty {
          guard let known = PartitionKey(rawValue: String(key)) else {
            throw HealthPortError(
              .badValue(.partitionKeys, value: String(key), choices: PartitionKey.allCases.map(\.rawValue)))
          }
          guard !self.partitionBy.contains(known.rawValue) else {
            throw HealthPortError(.repeatedValue(.partitionKeys, value: String(key)))
          }
          self.partitionBy.append(known.rawValue)
        }
      }
      if let name = request.value(ParquetOutput.person.name) {
        self.person = try HivePath.personValue(name)
      }
      switch request.value(ParquetOutput.compression.name)?.lowercased() {
      case nil, "zstd": codec = .zstd()
      case "snappy": codec = .snappy
      case "none", "uncompressed": codec = .uncompressed
      case let other?:
        throw HealthPortError(.badValue(.compression, value: other, choices: ["zstd", "snappy", "none"]))
      }
      dropIdentifiers = request.flag(ParquetOutput.dropIdentifiers.name)
    }
  }

  /// One conversion into a dataset folder: the sink that writes the tables, and the folder that
  /// makes them appear (or vanish) at the end.
  package final class Writer: FormatWriter {
    private let folder: ParquetDatasetFolder
    private let datasetSink: ParquetDatasetSink

    package convenience init(request: OutputRequest) throws {
      guard let path = request.path else {
        throw HealthPortError(.needsOutputPath(.format(ParquetOutput.format.name)))
      }
      try self.init(directory: path, settings: try Settings(request), protecting: request.input)
    }

    package init(directory: String, settings: Settings, protecting input: String? = nil) throws {
      // Page buffers of megabytes come and go all run long: each its own mapping, not heap holes.
      LargeAllocations.mapAbove()
      // Checked (and shortened) here too for a library caller's settings.
      let person = try settings.person.map(HivePath.personValue)
      folder = try ParquetDatasetFolder(target: directory, person: person, protecting: input)
      let dataset = ParquetDataset(folder: folder, codec: settings.codec, limits: settings.limits, person: person)
      datasetSink = ParquetDatasetSink(
        dataset: dataset, partitionBy: settings.partitionBy.compactMap(PartitionKey.init(rawValue:)),
        dropIdentifiers: settings.dropIdentifiers)
    }

    package var sink: ExportSink { datasetSink }
    package func commit() throws { try folder.commit() }
    package func abort() { folder.abort() }

    /// `error` naming the folder the user named rather than the temporary one.
    package func describing(_ error: Error) -> Error { folder.describing(error) }
  }
}
