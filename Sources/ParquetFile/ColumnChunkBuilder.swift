/// Encodes one column's values into compressed data pages for the open row group, and writes them out,
/// behind a dictionary page where the column is dictionary-encoded, when the row group is flushed.
///
/// Pages are data page v1: the definition levels of an optional column (RLE hybrid, bit width 1, behind
/// a 4-byte length), then the values, PLAIN or, for byte arrays, RLE_DICTIONARY indices behind their bit
/// width. A byte-array chunk starts dictionary-encoded and falls back to PLAIN for the rest of the chunk
/// once its dictionary would pass `dictionaryLimit` bytes.
final class ColumnChunkBuilder {
  let column: ParquetColumn
  let type: ParquetPhysicalType
  private let isOptional: Bool
  private let compressor: PageCompressor
  private let pageSize: Int
  private let maximumPageValues: Int
  private let dictionaryLimit: Int
  private let statisticsLimit: Int

  // The open page.
  private var levels: [UInt8] = []
  /// PLAIN bytes of booleans (bit-packed as they come) and of byte arrays after a dictionary fallback.
  private var values: [UInt8] = []
  /// Numbers are kept typed and turned into PLAIN bytes when the page closes.
  private var int32Values: [Int32] = []
  private var int64Values: [Int64] = []
  private var doubleBits: [UInt64] = []
  private var indices: [UInt32] = []
  /// One bit per dictionary entry the open page uses: its bounds are found once per entry, when it closes.
  private var pageEntries: [UInt64] = []
  private var booleanCount = 0
  private var pageValueCount = 0
  private var pageNullCount = 0
  private var pageBounds = ValueBounds()

  // The open chunk.
  private var chunkValueCount = 0
  private var chunkNullCount = 0
  private var chunkBounds = ValueBounds()
  /// Finished data pages, each a page header and its compressed body.
  private var pages = PageBuffer()
  private var uncompressedPagesSize = 0
  private var dictionary = ByteArrayDictionary()
  private var recentStrings = RecentStrings()
  private var isDictionaryEncoding: Bool
  private var dictionaryPageCount = 0
  private var plainPageCount = 0
  /// Indices per page at the dictionary's current bit width.
  private var indexPageLimit: Int
  private var indexBitWidth = 1

  init(_ column: ParquetColumn, compressor: PageCompressor, configuration: ParquetWriter.Configuration) {
    self.column = column
    type = column.physicalType
    isOptional = column.isOptional
    self.compressor = compressor
    pageSize = configuration.pageSize
    maximumPageValues = configuration.maximumPageValues
    dictionaryLimit = configuration.dictionaryPageLimit
    statisticsLimit = configuration.maximumStatisticsSize
    isDictionaryEncoding =
      column.physicalType == .byteArray && column.usesDictionary && configuration.dictionaryPageLimit > 0
    indexPageLimit = pageSize * 8
  }

  /// Values (nulls included) in the open row group.
  var valueCount: Int { chunkValueCount + pageValueCount }

  /// Bytes of finished pages and the dictionary.
  var encodedBytes: Int { pages.count + dictionary.plainBytes.count }

  /// Every buffer the column holds, by capacity: finished pages, the dictionary and its hash
  /// table, and the open page's values, indices and levels (the page being encoded is the
  /// compressor's, shared).
  var bufferedBytes: Int {
    pages.capacity + dictionary.memoryBytes + values.capacity + int32Values.capacity * 4
      + (int64Values.capacity + doubleBits.capacity + pageEntries.capacity) * 8 + indices.capacity * 4
      + levels.capacity
  }

  // MARK: Appending

  func appendNull() throws(ParquetError) {
    guard isOptional else { throw .nullInRequiredColumn(column: column.name) }
    levels.append(0)
    pageNullCount += 1
    pageValueCount += 1
    if pageValueCount >= maximumPageValues { try finishPage() }
  }

  @inline(__always)
  private func countValue() {
    if isOptional { levels.append(1) }
    pageValueCount += 1
  }

  @inline(__always)
  private func finishPageIfFull() throws(ParquetError) {
    if values.count >= pageSize || pageValueCount >= maximumPageValues { try finishPage() }
  }

  func append(_ value: Bool) throws(ParquetError) {
    // PLAIN booleans are bit-packed, least significant bit first.
    if booleanCount & 7 == 0 { values.append(0) }
    if value { values[values.count - 1] |= 1 << UInt8(booleanCount & 7) }
    booleanCount += 1
    pageBounds.include(Int64(value ? 1 : 0))
    countValue()
    try finishPageIfFull()
  }

  func append(_ value: Int32) throws(ParquetError) {
    int32Values.append(value)
    pageBounds.include(Int64(value))
    countValue()
    if int32Values.count * 4 >= pageSize || pageValueCount >= maximumPageValues { try finishPage() }
  }

  func append(_ value: Int64) throws(ParquetError) {
    int64Values.append(value)
    pageBounds.include(value)
    countValue()
    if int64Values.count * 8 >= pageSize || pageValueCount >= maximumPageValues { try finishPage() }
  }

  func append(_ value: Double) throws(ParquetError) {
    doubleBits.append(value.bitPattern)
    pageBounds.include(value)
    countValue()
    if doubleBits.count * 8 >= pageSize || pageValueCount >= maximumPageValues { try finishPage() }
  }

  func append(bytes: UnsafeRawBufferPointer) throws(ParquetError) {
    _ = try appendReturningEntry(bytes)
  }

  /// A string's bytes; while dictionary-encoding, a string appended recently with the same
  /// storage (an interned string) reuses its entry without hashing its bytes again.
  func append(string value: String) throws(ParquetError) {
    var failure: ParquetError?
    let done: Void? = value.utf8.withContiguousStorageIfAvailable { buffer in
      do throws(ParquetError) { try appendString(value, UnsafeRawBufferPointer(buffer)) } catch { failure = error }
    }
    if done == nil {  // a bridged or otherwise non-contiguous string
      var text = value
      text.withUTF8 { buffer in
        do throws(ParquetError) { try append(bytes: UnsafeRawBufferPointer(buffer)) } catch { failure = error }
      }
    }
    if let failure { throw failure }
  }

  @inline(__always)
  private func appendString(_ value: String, _ bytes: UnsafeRawBufferPointer) throws(ParquetError) {
    // Only a large native string's bytes are its own storage (a small one's are a copy on the stack).
    guard isDictionaryEncoding, bytes.count > RecentStrings.smallStringLimit, let base = bytes.baseAddress else {
      try append(bytes: bytes)
      return
    }
    if let entry = recentStrings.entry(storage: base, count: bytes.count) {
      try appendIndex(entry)
      return
    }
    if let entry = try appendReturningEntry(bytes) {
      recentStrings.remember(value, storage: base, count: bytes.count, entry: entry)
    }
  }

  /// Appends the bytes; returns their dictionary entry, nil when they went in PLAIN.
  private func appendReturningEntry(_ bytes: UnsafeRawBufferPointer) throws(ParquetError) -> Int? {
    guard bytes.count <= Int32.max - 4 else { throw .valueTooLarge(column: column.name, bytes: bytes.count) }
    if isDictionaryEncoding {
      guard let entry = dictionary.entry(for: bytes, limit: dictionaryLimit) else {
        try fallBackToPlain()
        try appendPlain(bytes)
        return nil
      }
      if dictionary.count > 1 << indexBitWidth {
        indexBitWidth += 1
        indexPageLimit = pageSize * 8 / indexBitWidth
      }
      try appendIndex(entry)
      return entry
    } else {
      try appendPlain(bytes)
      return nil
    }
  }

  @inline(__always)
  private func appendIndex(_ entry: Int) throws(ParquetError) {
    indices.append(UInt32(entry))
    let word = entry >> 6
    if word >= pageEntries.count {
      pageEntries.append(contentsOf: repeatElement(0, count: word + 1 - pageEntries.count))
    }
    pageEntries[word] |= 1 << UInt64(entry & 63)
    countValue()
    if indices.count >= indexPageLimit || pageValueCount >= maximumPageValues { try finishPage() }
  }

  private func appendPlain(_ bytes: UnsafeRawBufferPointer) throws(ParquetError) {
    withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { values.append(contentsOf: $0) }
    values.append(contentsOf: bytes)
    pageBounds.include(bytes)
    countValue()
    try finishPageIfFull()
  }

  /// The dictionary is full: the open page keeps its indices, and the rest of the chunk is PLAIN.
  private func fallBackToPlain() throws(ParquetError) {
    try finishPage()
    isDictionaryEncoding = false
    recentStrings.removeAll()
  }

  // MARK: Pages

  /// Encodes, compresses and keeps the open page, if it has any value.
  func finishPage() throws(ParquetError) {
    guard pageValueCount > 0 else { return }
    var scratch = compressor.takePageBody()
    defer { compressor.keepPageBody(scratch) }
    if isOptional {
      scratch.append(contentsOf: [0, 0, 0, 0])
      RLEHybridEncoder.encode(levels, bitWidth: 1, into: &scratch)
      let length = UInt32(scratch.count - 4)
      for byte in 0..<4 { scratch[byte] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(byte))) }
    }
    // A page of only nulls while dictionary-encoding has no index to write: it is PLAIN with no values,
    // so that a chunk of only nulls needs no empty dictionary.
    let encoding: Encoding
    if isDictionaryEncoding && !indices.isEmpty {
      encoding = .rleDictionary
      includeUsedEntriesInPageBounds()
      let bitWidth = RLEHybridEncoder.bitWidth(forIndicesBelow: dictionary.count)
      scratch.append(UInt8(bitWidth))
      RLEHybridEncoder.encode(indices, bitWidth: bitWidth, into: &scratch)
      dictionaryPageCount += 1
    } else {
      encoding = .plain
      switch type {
      case .int32: Self.appendLittleEndian(int32Values, to: &scratch)
      case .int64: Self.appendLittleEndian(int64Values, to: &scratch)
      case .double: Self.appendLittleEndian(doubleBits, to: &scratch)
      case .boolean, .byteArray: scratch.append(contentsOf: values)
      }
      plainPageCount += 1
    }
    let header = DataPageHeader(
      numValues: Int32(pageValueCount), encoding: encoding,
      statistics: statistics(nullCount: pageNullCount, bounds: pageBounds))
    let headerSize = try appendPage(.data(header), body: scratch, to: &pages)
    uncompressedPagesSize += headerSize + scratch.count

    chunkBounds.include(pageBounds, as: type)
    chunkNullCount += pageNullCount
    chunkValueCount += pageValueCount
    levels.removeAll(keepingCapacity: true)
    values.removeAll(keepingCapacity: true)
    int32Values.removeAll(keepingCapacity: true)
    int64Values.removeAll(keepingCapacity: true)
    doubleBits.removeAll(keepingCapacity: true)
    indices.removeAll(keepingCapacity: true)
    pageEntries.removeAll(keepingCapacity: true)
    booleanCount = 0
    pageValueCount = 0
    pageNullCount = 0
    pageBounds.removeAll()
  }

  /// The null count, and the bounds unless there are none or one is longer than `statisticsLimit`.
  private func statistics(nullCount: Int, bounds: ValueBounds) -> Statistics {
    guard let encoded = bounds.encoded(as: type), encoded.min.count <= statisticsLimit,
      encoded.max.count <= statisticsLimit
    else { return Statistics(nullCount: Int64(nullCount), minValue: nil, maxValue: nil) }
    return Statistics(nullCount: Int64(nullCount), minValue: encoded.min, maxValue: encoded.max)
  }

  private func includeUsedEntriesInPageBounds() {
    for (word, bits) in pageEntries.enumerated() where bits != 0 {
      var rest = bits
      while rest != 0 {
        let entry = word << 6 | rest.trailingZeroBitCount
        rest &= rest - 1
        dictionary.withEntry(entry) { pageBounds.include($0) }
      }
    }
  }

  private static func appendLittleEndian<Number: FixedWidthInteger>(_ numbers: [Number], to output: inout [UInt8]) {
    #if _endian(little)
      numbers.withUnsafeBytes { output.append(contentsOf: $0) }
    #else
      for number in numbers { withUnsafeBytes(of: number.littleEndian) { output.append(contentsOf: $0) } }
    #endif
  }

  /// Appends the page header and the compressed body to `output`; returns the header's size.
  private func appendPage(_ kind: PageHeader.Kind, body: [UInt8], to output: inout PageBuffer) throws(ParquetError)
    -> Int
  {
    let compressed = try compressor.compress(body)
    guard body.count <= Int32.max, compressed.count <= Int32.max else { throw .pageTooLarge(bytes: body.count) }
    let header = PageHeader(
      kind: kind, uncompressedPageSize: Int32(body.count), compressedPageSize: Int32(compressed.count)
    ).encoded()
    output.append(header)
    output.append(compressed)
    return header.count
  }

  // MARK: Flushing

  /// Writes the chunk (dictionary page, then data pages) at the output's offset, returns its metadata,
  /// and starts an empty chunk.
  func flush(to output: inout FileOutput) throws(ParquetError) -> ColumnChunk {
    try finishPage()
    let chunkStart = output.offset
    var dictionaryPageOffset: Int64?
    var uncompressedSize = uncompressedPagesSize
    var compressedSize = pages.count
    var encodingStats: [PageEncodingStats] = []
    var encodings: Set<Encoding> = [.rle]
    if dictionaryPageCount > 0 {
      var dictionaryPage = PageBuffer()
      let headerSize = try appendPage(
        .dictionary(DictionaryPageHeader(numValues: Int32(dictionary.count))), body: dictionary.plainBytes,
        to: &dictionaryPage)
      uncompressedSize += headerSize + dictionary.plainBytes.count
      compressedSize += dictionaryPage.count
      dictionaryPageOffset = chunkStart
      try dictionaryPage.write(to: &output)
      encodingStats.append(PageEncodingStats(pageType: .dictionaryPage, encoding: .plain, count: 1))
      encodingStats.append(
        PageEncodingStats(pageType: .dataPage, encoding: .rleDictionary, count: Int32(dictionaryPageCount)))
      encodings.formUnion([.plain, .rleDictionary])
    }
    if plainPageCount > 0 {
      encodingStats.append(PageEncodingStats(pageType: .dataPage, encoding: .plain, count: Int32(plainPageCount)))
      encodings.insert(.plain)
    }
    let dataPageOffset = output.offset
    try pages.write(to: &output)

    let metaData = ColumnMetaData(
      type: type, encodings: encodings.sorted(), path: [column.name], codec: compressor.codec,
      numValues: Int64(chunkValueCount), totalUncompressedSize: Int64(uncompressedSize),
      totalCompressedSize: Int64(compressedSize), dataPageOffset: dataPageOffset,
      dictionaryPageOffset: dictionaryPageOffset,
      statistics: statistics(nullCount: chunkNullCount, bounds: chunkBounds),
      encodingStats: encodingStats)
    resetChunk()
    return ColumnChunk(fileOffset: chunkStart, metaData: metaData)
  }

  private func resetChunk() {
    chunkValueCount = 0
    chunkNullCount = 0
    chunkBounds.removeAll()
    pages.removeAll()  // a row group's pages: megabytes, not kept for a file that may get no more rows
    uncompressedPagesSize = 0
    dictionary.removeAll()
    recentStrings.removeAll()
    isDictionaryEncoding = type == .byteArray && column.usesDictionary && dictionaryLimit > 0
    dictionaryPageCount = 0
    plainPageCount = 0
    indexBitWidth = 1
    indexPageLimit = pageSize * 8
  }
}
