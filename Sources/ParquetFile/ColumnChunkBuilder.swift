/// Encodes one column's values into compressed data pages for the open row group, and writes them out,
/// behind a dictionary page where the column is dictionary-encoded, when the row group is flushed.
///
/// Pages are data page v1: the definition levels of an optional column (RLE hybrid, bit width 1, behind
/// a 4-byte length), then the values, PLAIN or, for byte arrays, RLE_DICTIONARY indices behind their bit
/// width. A byte-array chunk starts dictionary-encoded and falls back to PLAIN for the rest of the chunk
/// once its dictionary would pass `dictionaryLimit` bytes.
final class ColumnChunkBuilder {
  let column: ParquetColumn
  private let type: ParquetPhysicalType
  private let compressor: PageCompressor
  private let pageSize: Int
  private let maximumPageValues: Int
  private let dictionaryLimit: Int

  // The open page.
  private var levels: [UInt8] = []
  private var values: [UInt8] = []
  private var indices: [UInt32] = []
  private var booleanCount = 0
  private var pageValueCount = 0
  private var pageNullCount = 0
  private var pageBounds = ValueBounds()
  /// The dictionary entry last added to `pageBounds`: a run of one value is compared once.
  private var lastBoundedEntry = -1

  // The open chunk.
  private var chunkValueCount = 0
  private var chunkNullCount = 0
  private var chunkBounds = ValueBounds()
  /// Finished data pages, each a page header and its compressed body.
  private var pages: [UInt8] = []
  private var uncompressedPagesSize = 0
  private var dictionary = ByteArrayDictionary()
  private var isDictionaryEncoding: Bool
  private var dictionaryPageCount = 0
  private var plainPageCount = 0
  /// Indices per page at the dictionary's current bit width.
  private var indexPageLimit: Int
  private var indexBitWidth = 1
  private var scratch: [UInt8] = []

  init(_ column: ParquetColumn, compressor: PageCompressor, configuration: ParquetWriter.Configuration) {
    self.column = column
    type = column.physicalType
    self.compressor = compressor
    pageSize = configuration.pageSize
    maximumPageValues = configuration.maximumPageValues
    dictionaryLimit = configuration.dictionaryPageLimit
    isDictionaryEncoding = column.physicalType == .byteArray && configuration.dictionaryPageLimit > 0
    indexPageLimit = pageSize * 8
  }

  /// Values (nulls included) in the open row group.
  var valueCount: Int { chunkValueCount + pageValueCount }

  /// Bytes of finished pages and the dictionary.
  var encodedBytes: Int { pages.count + dictionary.plainBytes.count }

  /// `encodedBytes` and the open page's values and levels.
  var bufferedBytes: Int { encodedBytes + values.count + indices.count * 4 + levels.count }

  // MARK: Appending

  func appendNull() throws(ParquetError) {
    guard column.isOptional else { throw .nullInRequiredColumn(column: column.name) }
    levels.append(0)
    pageNullCount += 1
    pageValueCount += 1
    if pageValueCount >= maximumPageValues { try finishPage() }
  }

  @inline(__always)
  private func countValue() {
    if column.isOptional { levels.append(1) }
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
    withUnsafeBytes(of: value.littleEndian) { values.append(contentsOf: $0) }
    pageBounds.include(Int64(value))
    countValue()
    try finishPageIfFull()
  }

  func append(_ value: Int64) throws(ParquetError) {
    withUnsafeBytes(of: value.littleEndian) { values.append(contentsOf: $0) }
    pageBounds.include(value)
    countValue()
    try finishPageIfFull()
  }

  func append(_ value: Double) throws(ParquetError) {
    withUnsafeBytes(of: value.bitPattern.littleEndian) { values.append(contentsOf: $0) }
    pageBounds.include(value)
    countValue()
    try finishPageIfFull()
  }

  func append(bytes: UnsafeRawBufferPointer) throws(ParquetError) {
    guard bytes.count <= Int32.max - 4 else { throw .valueTooLarge(column: column.name, bytes: bytes.count) }
    if isDictionaryEncoding {
      let hash = ByteArrayDictionary.hash(bytes)
      let found = dictionary.find(bytes, hash: hash)
      let entry: Int
      if let existing = found.entry {
        entry = existing
      } else if dictionary.plainBytes.count + 4 + bytes.count <= dictionaryLimit {
        entry = dictionary.insert(bytes, hash: hash, slot: found.slot)
        if dictionary.count > 1 << indexBitWidth {
          indexBitWidth += 1
          indexPageLimit = pageSize * 8 / indexBitWidth
        }
      } else {
        try fallBackToPlain()
        try appendPlain(bytes)
        return
      }
      indices.append(UInt32(entry))
      if entry != lastBoundedEntry {
        pageBounds.include(bytes)
        lastBoundedEntry = entry
      }
      countValue()
      if indices.count >= indexPageLimit || pageValueCount >= maximumPageValues { try finishPage() }
    } else {
      try appendPlain(bytes)
    }
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
  }

  // MARK: Pages

  /// Encodes, compresses and keeps the open page, if it has any value.
  func finishPage() throws(ParquetError) {
    guard pageValueCount > 0 else { return }
    scratch.removeAll(keepingCapacity: true)
    if column.isOptional {
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
      let bitWidth = RLEHybridEncoder.bitWidth(forIndicesBelow: dictionary.count)
      scratch.append(UInt8(bitWidth))
      RLEHybridEncoder.encode(indices, bitWidth: bitWidth, into: &scratch)
      dictionaryPageCount += 1
    } else {
      encoding = .plain
      scratch.append(contentsOf: values)
      plainPageCount += 1
    }
    let bounds = pageBounds.encoded(as: type)
    let statistics = Statistics(nullCount: Int64(pageNullCount), minValue: bounds?.min, maxValue: bounds?.max)
    let header = DataPageHeader(numValues: Int32(pageValueCount), encoding: encoding, statistics: statistics)
    let headerSize = try appendPage(.data(header), body: scratch, to: &pages)
    uncompressedPagesSize += headerSize + scratch.count

    chunkBounds.include(pageBounds, as: type)
    chunkNullCount += pageNullCount
    chunkValueCount += pageValueCount
    levels.removeAll(keepingCapacity: true)
    values.removeAll(keepingCapacity: true)
    indices.removeAll(keepingCapacity: true)
    booleanCount = 0
    pageValueCount = 0
    pageNullCount = 0
    pageBounds.removeAll()
    lastBoundedEntry = -1
  }

  /// Appends the page header and the compressed body to `output`; returns the header's size.
  private func appendPage(_ kind: PageHeader.Kind, body: [UInt8], to output: inout [UInt8]) throws(ParquetError)
    -> Int
  {
    let compressed = try compressor.compress(body)
    guard body.count <= Int32.max, compressed.count <= Int32.max else { throw .pageTooLarge(bytes: body.count) }
    let header = PageHeader(
      kind: kind, uncompressedPageSize: Int32(body.count), compressedPageSize: Int32(compressed.count)
    ).encoded()
    output.append(contentsOf: header)
    output.append(contentsOf: compressed)
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
      var dictionaryPage: [UInt8] = []
      let headerSize = try appendPage(
        .dictionary(DictionaryPageHeader(numValues: Int32(dictionary.count))), body: dictionary.plainBytes,
        to: &dictionaryPage)
      uncompressedSize += headerSize + dictionary.plainBytes.count
      compressedSize += dictionaryPage.count
      dictionaryPageOffset = chunkStart
      try output.write(dictionaryPage)
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
    try output.write(pages)

    let bounds = chunkBounds.encoded(as: type)
    let metaData = ColumnMetaData(
      type: type, encodings: encodings.sorted(), path: [column.name], codec: compressor.codec,
      numValues: Int64(chunkValueCount), totalUncompressedSize: Int64(uncompressedSize),
      totalCompressedSize: Int64(compressedSize), dataPageOffset: dataPageOffset,
      dictionaryPageOffset: dictionaryPageOffset,
      statistics: Statistics(nullCount: Int64(chunkNullCount), minValue: bounds?.min, maxValue: bounds?.max),
      encodingStats: encodingStats)
    resetChunk()
    return ColumnChunk(fileOffset: chunkStart, metaData: metaData)
  }

  private func resetChunk() {
    chunkValueCount = 0
    chunkNullCount = 0
    chunkBounds.removeAll()
    pages.removeAll(keepingCapacity: true)
    uncompressedPagesSize = 0
    dictionary.removeAll()
    isDictionaryEncoding = type == .byteArray && dictionaryLimit > 0
    dictionaryPageCount = 0
    plainPageCount = 0
    indexBitWidth = 1
    indexPageLimit = pageSize * 8
  }
}
