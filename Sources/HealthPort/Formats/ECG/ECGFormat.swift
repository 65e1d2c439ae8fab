extension StreamInputFormat {
  /// An ECG recording's CSV on its own (first line `Name`), read as a bundle of one recording.
  static let ecg = StreamInputFormat(
    format: .ecg, recognise: ECGReader.recognise, isContainer: false,
    read: { stream, options, sink in
      try BundleReader.readSingle(.ecg, stream, format: .ecg, options: options, into: sink)
    })
}
