/// The export XML: how `convert --to` writes it and how an input (a file, or an unzipped export
/// folder) is recognised as it, registered in ``FormatRegistry/standard``.
extension OutputFormat {
  static let xml = OutputFormat(name: "xml", summary: "the export XML format, byte-faithful") { request in
    // `-o DIR/`: the unzipped bundle, side files and other members included.
    if BundleOutputPath.isFolder(request.path) {
      return BundleFormatWriter(try FolderDestination(path: request.path!, protecting: request.input))
    }
    return try StreamFormatWriter(request) { XMLExportWriter(output: $0) }
  }
}

extension StreamInputFormat {
  static let xml = StreamInputFormat(
    format: .xml, recognise: XMLExportReader.recognise, isContainer: false,
    read: { stream, options, sink in
      // A lone apple_health_export/export.xml with its side-file folders beside it is the bundle.
      if sink.capabilities.contains(.sideFiles), let path = stream.path, BundleReader.hasSideFolders(beside: path) {
        return try BundleReader.readFolder(stream.source, options: options, into: sink)
      }
      return try XMLExportReader(options: options).read(stream, format: .xml, into: sink)
    }
  )
}

extension FolderInputFormat {
  /// An unzipped export folder (any folder not recognised before it): the export document found
  /// in it, with its side files when the sink takes them.
  static let exportFolder = FolderInputFormat(
    format: .folder, recognise: { _ in true },
    open: { path in
      let source = try ExportFinder.exportFile(inFolder: path)
      return { options, sink in
        if sink.capabilities.contains(.sideFiles) {
          return try BundleReader.readFolder(source, options: options, into: sink)
        }
        return try XMLExportReader(options: options).read(file: source, format: .folder, into: sink)
      }
    })
}
