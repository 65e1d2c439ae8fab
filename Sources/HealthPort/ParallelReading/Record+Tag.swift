extension Record {
  /// This Record as the start tag it is made of (``RecordTag``), for `body`: so that a writer has
  /// one Record encoder, which a parallel read feeds the tags it reads and every other path the
  /// Records it built. The tag's texts are the Record's bytes, valid only during the call.
  @inline(__always)
  func withTag<R>(_ body: (borrowing RecordTag) throws -> R) rethrows -> R {
    try type.withUTF8Bytes { type in
      try sourceName.withUTF8Bytes { sourceName in
        try Self.withBytes(sourceVersion) { sourceVersion in
          try Self.withBytes(deviceString?.rest) { deviceRest in
            try Self.withBytes(unit) { unit in
              try Self.withBytes(value) { value in
                let head = RecordHead(
                  type: type, sourceName: sourceName, startDate: startDate, sourceProduct: sourceProduct)
                return try body(
                  RecordTag(
                    head: head, sourceVersion: sourceVersion, deviceAddress: deviceString?.address,
                    deviceZeros: deviceString?.addressZeros ?? 0, deviceRest: deviceRest, unit: unit,
                    creationDate: creationDate, endDate: endDate, value: value, extraAttributes: extraAttributes))
              }
            }
          }
        }
      }
    }
  }

  @inline(__always)
  private static func withBytes<R>(
    _ text: String?, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R
  ) rethrows -> R {
    guard let text else { return try body(nil) }
    return try text.withUTF8Bytes { try body($0) }
  }
}
