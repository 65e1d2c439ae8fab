// PLACEHOLDER (branch convert-xml): stands in for the CSV writers that the convert-csv branch
// provides with the same names and initialisers. The lead replaces this file when merging.

/// Placeholder for the single-table CSV writer of the convert-csv branch.
public final class CSVRecordsWriter: ExportSink {
  public init(output: OutputStream) throws {
    throw HealthPortError(.usage, "healthport convert: error: csv output not available in this build")
  }
  public func begin(_ header: ExportHeader) throws {}
  public func consume(_ element: ExportElement) throws {}
  public func end(_ report: ReadReport) throws {}
}

/// Placeholder for the `--split` folder writer of the convert-csv branch.
public final class CSVSplitWriter: ExportSink {
  public init(directory: String) throws {
    throw HealthPortError(.usage, "healthport convert: error: csv output not available in this build")
  }
  public func begin(_ header: ExportHeader) throws {}
  public func consume(_ element: ExportElement) throws {}
  public func end(_ report: ReadReport) throws {}
}
