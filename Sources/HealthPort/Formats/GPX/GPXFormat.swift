extension StreamInputFormat {
  /// A GPX route on its own (root element `gpx`), read as a bundle of one unreferenced route.
  static let gpx = StreamInputFormat(
    format: .gpx, recognise: GPXReader.recognise, isContainer: false,
    read: { stream, options, sink in
      try BundleReader.readSingle(.route, stream, format: .gpx, options: options, into: sink)
    })
}
