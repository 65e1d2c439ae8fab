/// A sink whose answer needs, of each top-level Record, only what a ``RecordTally`` keeps: its
/// ``ExportSink/capabilities`` have ``SinkCapabilities/recordTallies``. A parallel read then
/// tallies the Records of each range on its parsing thread instead of building each one and
/// handing it on (issue 16); the other elements come as before. `info`'s summary is one: the
/// reader's folder declares the contract and the tally, and the aggregation conforms.
protocol RecordTallying: AnyObject {
  /// A range's tally, merged after the elements before it: its Records' starts from `from` up to
  /// `upTo` (those before the range's next element), in their place among the elements.
  func weighStarts(of tally: RecordTally, from: Int, upTo: Int)
  /// The rest of a range's tally, after ``weighStarts(of:from:upTo:)`` for all its starts.
  func merge(_ tally: RecordTally)
}

extension ExportSink {
  /// The sink that takes a parallel read's tallies of Records: this one, or the first down its
  /// chain of stages (``ExportStage``), when this one's capabilities have
  /// ``SinkCapabilities/recordTallies``; nil when every Record must be handed on.
  var recordTallying: (any RecordTallying)? {
    guard capabilities.contains(.recordTallies) else { return nil }
    var sink: any ExportSink = self
    while true {
      if let tallying = sink as? RecordTallying { return tallying }
      guard let stage = sink as? any ExportStage else { return nil }
      sink = stage.next
    }
  }
}
