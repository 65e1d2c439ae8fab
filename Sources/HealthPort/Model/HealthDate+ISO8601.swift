extension HealthDate {
  /// Parses a date as CSV files from other tools write it: the export form
  /// (`2024-01-02 03:04:05 +0100`) or ISO 8601 (`2024-01-02T03:04:05Z`, `2024-01-02T03:04:05+02:00`,
  /// `+0200`, `+02`, with or without seconds, a fraction of a second, or a space instead of `T`),
  /// or a bare day (`2024-01-02`, midnight). Fractions of a second are dropped (the export has
  /// whole seconds). A time without an offset is a wall-clock time and is kept with offset
  /// `+0000`, so that its day and time of day stay as written. Nil for anything else.
  package static func flexible(_ bytes: UnsafeRawBufferPointer) -> HealthDate? {
    if let date = HealthDate(utf8: bytes) { return date }
    var index = 0
    let count = bytes.count
    func number(_ digits: Int) -> Int? {
      guard index + digits <= count else { return nil }
      var value = 0
      for _ in 0..<digits {
        let digit = Int(bytes[index]) &- 48
        guard (0...9).contains(digit) else { return nil }
        value = value * 10 + digit
        index += 1
      }
      return value
    }
    func take(_ byte: UInt8) -> Bool {
      guard index < count, bytes[index] == byte else { return false }
      index += 1
      return true
    }
    guard let year = number(4), take(0x2D), let month = number(2), take(0x2D), let day = number(2),
      (1...12).contains(month), day >= 1, day <= daysInMonth(year, month)
    else { return nil }
    var hour = 0
    var minute = 0
    var second = 0
    var offset = 0
    if index < count {
      guard take(UInt8(ascii: "T")) || take(UInt8(ascii: "t")) || take(0x20), let h = number(2), take(0x3A),
        let m = number(2), h < 24, m < 60
      else { return nil }
      hour = h
      minute = m
      if take(0x3A) {
        guard let s = number(2), s < 60 else { return nil }
        second = s
        if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
          let fractionStart = index
          while index < count, (48...57).contains(bytes[index]) { index += 1 }
          guard index > fractionStart else { return nil }
        }
      }
      _ = take(0x20)
      if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
        offset = 0
      } else if index < count {
        guard bytes[index] == 0x2B || bytes[index] == 0x2D else { return nil }
        let sign = bytes[index] == 0x2D ? -1 : 1
        index += 1
        guard let oh = number(2), oh < 24 else { return nil }
        var om = 0
        if index < count {
          _ = take(0x3A)
          guard let m = number(2), m < 60 else { return nil }
          om = m
        }
        offset = sign * (oh * 3600 + om * 60)
      }
      guard index == count else { return nil }
    }
    let days = daysSince1970(year: year, month: month, day: day)
    let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    return HealthDate(secondsSince1970: local - Int64(offset), offsetSeconds: Int32(offset))
  }

  /// ``flexible(_:)-(UnsafeRawBufferPointer)`` for a String.
  package static func flexible(_ text: String) -> HealthDate? {
    var text = text
    return text.withUTF8 { flexible(UnsafeRawBufferPointer($0)) }
  }
}
