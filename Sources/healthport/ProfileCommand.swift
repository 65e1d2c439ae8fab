import HealthPort

/// `healthport profile`: the Health app's profile screen from the export alone.
enum ProfileCommand: Command {
  static let name = "profile"
  static let summary = "Age, sex, blood type, skin type, latest height, weight, BMI, resting heart rate, VO2 max."
  static let options =
    [
      unitsOption,
      OptionSpec(
        name: "--format", short: nil, valueName: "table|json",
        help: "Output format (default: from -o's extension, .json, else table)."),
      FilterOptions.outputOption, FilterOptions.quietOption,
    ] + FilterOptions.specs(excluding: ["--activity", "--type"])
  static let usage = """
    USAGE: healthport profile [INPUT] [--units metric|imperial] [--format table|json] [-o PATH]
                              [--source-product P] [--source TEXT] [--from D] [--to D] [--tz ZONE]

    ARGUMENTS:
      INPUT                       export.xml, export.zip, an export folder, or - for stdin (default).

    The Me characteristics in words (date of birth and age at the export date, biological sex, blood
    type, Fitzpatrick skin type, cardio fitness medications use); the latest height and body mass
    (m/cm/kg, or ft+in/lb with --units imperial), BMI computed from them beside the latest recorded
    BMI, and the latest resting heart rate, VO2 max and walking heart-rate average, with their dates.
    Missing values are shown as missing (null in JSON).

    EXAMPLES:
      healthport profile export.zip
      healthport profile export.zip --units imperial --format json
    """

  static let unitsOption = OptionSpec(
    name: "--units", short: nil, valueName: "metric|imperial",
    help: "metric (m, cm, kg, km; the default) or imperial (ft+in, lb, mi).")

  static func run(_ arguments: ParsedArguments) throws {
    var format = (arguments.value("--output") ?? "").lowercased().hasSuffix(".json") ? "json" : "table"
    if arguments.value("--format") != nil {
      format = try arguments.choice("--format", ["table", "json"], default: "table", command: name)
    }
    let imperial =
      try arguments.choice("--units", ["metric", "imperial"], default: "metric", command: name) == "imperial"
    let input = try FilterOptions.input(arguments, command: name)
    let filter = try FilterOptions.parse(arguments, command: name)
    let profile = Profile()
    try FilterOptions.read(input, into: profile, filter: filter, arguments: arguments, command: name)
    let view = try ProfileView(profile, imperial: imperial)
    let bytes = format == "json" ? view.json() : Array(view.table().utf8)
    try FilterOptions.emit(bytes, to: arguments.value("--output"), input: input)
  }
}

/// The profile's values as shown: converted, rounded, in words.
struct ProfileView {
  /// One line of the table and one key of the JSON object.
  struct Field {
    var label: String
    var key: String
    /// The value for the table; nil when missing.
    var text: String?
    /// The JSON value (already encoded); `null` when missing.
    var json: String
    var date: HealthDate?
  }

  var fields: [Field] = []

  /// Tables round what was converted (m and kg to 2 decimals, cm, lb, in, rates and VO2 max to 1,
  /// trailing zeros trimmed) and show a height or weight recorded in the shown unit as written; JSON
  /// holds every number exactly (``NumberText/exact(_:)``).
  init(_ profile: Profile, imperial: Bool) throws {
    func string(_ text: String?) -> String { text.map(Self.quoted) ?? "null" }
    func number(_ value: Double, _ decimals: Int) -> String { NumberText.format(value, decimals: decimals) }
    func exact(_ value: Double) -> String { NumberText.exact(value) }
    /// The latest height or weight in `unit`: as written when recorded in it, else to `decimals`.
    func shown(_ measurement: Profile.Measurement, of type: String, _ decimals: Int) -> String {
      profile.latest[type]?.unit == measurement.unit
        ? exact(measurement.value) : number(measurement.value, decimals)
    }
    func add(_ label: String, _ key: String, _ text: String?, json: String? = nil, date: HealthDate? = nil) {
      fields.append(Field(label: label, key: key, text: text, json: json ?? string(text), date: date))
    }
    add("date of birth", "dateOfBirth", profile.dateOfBirth)
    let age = profile.ageAtExport
    add("age at export", "age", age.map(String.init), json: age.map(String.init) ?? "null", date: profile.exportDate)
    add("biological sex", "biologicalSex", profile.biologicalSex)
    add("blood type", "bloodType", profile.bloodType)
    add("Fitzpatrick skin type", "fitzpatrickSkinType", profile.fitzpatrickSkinType)
    add("cardio fitness medications", "cardioFitnessMedicationsUse", profile.cardioFitnessMedicationsUse)

    let heightType = Profile.heightType
    if imperial, let inches = try profile.latest(heightType, in: "in") {
      let (feet, shownInches) = Self.feetAndInches(inches: inches.value)
      let wholeFeet = (inches.value / 12).rounded(.down)
      add(
        "height", "height", "\(feet) ft \(number(shownInches, 1)) in",
        json:
          "{\"ft\": \(exact(wholeFeet)), \"in\": \(exact(inches.value - wholeFeet * 12)), \"date\": \(string(inches.date.description))}",
        date: inches.date)
    } else if let metres = try profile.latest(heightType, in: "m"),
      let centimetres = try profile.latest(heightType, in: "cm")
    {
      add(
        "height", "height",
        "\(shown(metres, of: heightType, 2)) m (\(shown(centimetres, of: heightType, 1)) cm)",
        json:
          "{\"m\": \(exact(metres.value)), \"cm\": \(exact(centimetres.value)), \"date\": \(string(metres.date.description))}",
        date: metres.date)
    } else {
      add("height", "height", nil)
    }
    let massUnit = imperial ? "lb" : "kg"
    if let mass = try profile.latest(Profile.bodyMassType, in: massUnit) {
      add(
        "weight", "bodyMass", "\(shown(mass, of: Profile.bodyMassType, imperial ? 1 : 2)) \(massUnit)",
        json: "{\"\(massUnit)\": \(exact(mass.value)), \"date\": \(string(mass.date.description))}",
        date: mass.date)
    } else {
      add("weight", "bodyMass", nil)
    }
    let computed = try profile.computedBMI()
    let recorded = profile.latest[Profile.bmiType]
    add("BMI from height and weight", "bmiComputed", computed.map { number($0, 2) }, json: computed.map(exact))
    add(
      "BMI recorded", "bmiRecorded", recorded.map { number($0.value, 2) }, json: recorded.map { exact($0.value) },
      date: recorded?.date)
    for (label, key, type) in [
      ("resting heart rate", "restingHeartRate", Profile.restingHeartRateType),
      ("walking heart rate average", "walkingHeartRateAverage", Profile.walkingHeartRateType),
    ] {
      let rate = try profile.latest(type, in: "count/min")
      add(
        label, key, rate.map { "\(number($0.value, 1)) count/min" },
        json: rate.map {
          "{\"value\": \(exact($0.value)), \"unit\": \"count/min\", \"date\": \(string($0.date.description))}"
        },
        date: rate?.date)
    }
    let vo2 = profile.latest[Profile.vo2MaxType]
    add(
      "VO2 max", "vo2Max", vo2.map { "\(number($0.value, 1)) \($0.unit)" },
      json: vo2.map {
        "{\"value\": \(exact($0.value)), \"unit\": \(string($0.unit)), \"date\": \(string($0.date.description))}"
      },
      date: vo2?.date)
  }

  /// Feet and inches (one decimal, carried so that 11.96 in never shows as 12.0).
  static func feetAndInches(inches: Double) -> (feet: Int, inches: Double) {
    let tenths = Int((inches * 10).rounded())
    return (tenths / 120, Double(tenths % 120) / 10)
  }

  static func quoted(_ text: String) -> String {
    var bytes: [UInt8] = []
    JSONEscaping.appendString(text, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  func json() -> [UInt8] {
    var text = "{"
    for (index, field) in fields.enumerated() {
      text += (index == 0 ? "\n  " : ",\n  ") + "\"\(field.key)\": \(field.json)"
      if field.key == "bmiRecorded" {
        text += ",\n  \"bmiRecordedDate\": \(field.date.map { Self.quoted($0.description) } ?? "null")"
      }
      if field.key == "age" {
        text += ",\n  \"exportDate\": \(field.date.map { Self.quoted($0.description) } ?? "null")"
      }
    }
    return Array((text + "\n}\n").utf8)
  }

  func table() -> String {
    var output = TabularOutput(columns: ["field", "value", "date"])
    for field in fields {
      output.rows.append([.text(field.label), .text(field.text ?? "(missing)"), .text(field.date?.description ?? "")])
    }
    return output.table()
  }
}
